"""Machine-readable output and the console the human output goes to."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson
import yaml
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.segment import Segment, Segments
from rich.table import Table

__all__ = ["dump_json", "dump_yaml", "make_console", "print_table", "use_color"]


def use_color(stream: IO[str], *, no_color: bool) -> bool:
    """Colour only on a terminal, never with --no-color or NO_COLOR set (https://no-color.org)."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# C0 controls but newline and tab, DEL and C1: never ours (rich adds our styles to segments), but they
# reach the tables in cluster data anyone may write (an Event's message, a condition, an OS image): an
# ESC there would colour a pipe or drive the terminal. Terminals give them no width, so removing them
# keeps the tables aligned.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Off a terminal the console is this wide: tables take the width they need.
_UNBOUNDED = 4000
# A wrapping column narrower than this reads as a column of syllables.
_READABLE = 20


class _Console(Console):
    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(_CONTROL.sub("", segment.text), segment.style)
            for segment in buffer
        )

    def on_broken_pipe(self) -> None:
        """The reader went away (`| head`). rich would exit 1, which is our "findings" code: raise the
        BrokenPipeError instead, so that it ends like every other broken pipe (see `cli.app.main`)."""
        self.quiet = True
        # No error on the final flush; stdout may have no file descriptor (captured in tests).
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def make_console(*, stderr: bool = False, no_color: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    color = use_color(stream, no_color=no_color)
    return _Console(
        file=stream,
        stderr=stderr,
        no_color=not color,
        color_system="auto" if color else None,
        highlight=False,
        emoji=False,
        # Our strings carry user data ("In [spot]", taint values): never read them as rich markup.
        markup=False,
        # Not a terminal: do not wrap to 80 columns, let the table take the width it needs.
        width=None if color else _UNBOUNDED,
        soft_wrap=False,
    )


def _default(value: Any) -> Any:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def dump_json(data: Any) -> str:
    return orjson.dumps(data, default=_default, option=orjson.OPT_INDENT_2).decode() + "\n"


def dump_yaml(data: Any) -> str:
    plain = orjson.loads(orjson.dumps(data, default=_default))
    return yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, default_flow_style=False)


def _parts(view: RenderableType) -> Iterator[RenderableType]:
    if isinstance(view, Group):
        for part in view.renderables:
            yield from _parts(part)
    else:
        yield view


def _narrowest(console: Console, table: Table) -> int:
    """The narrowest `table` reads well at: no cell cut, every column shown. A one-line column as wide as
    its widest cell; a wrapping column _READABLE wide (or its widest cell, when narrower), and no narrower
    than its longest word unless it folds words."""
    options = console.options.update_width(_UNBOUNDED)
    widths = []
    for column in table.columns:
        cells = [column.header, *column.cells] if table.show_header else list(column.cells)
        sizes = [Measurement.get(console, options, cell) for cell in cells]
        widest = max((m.maximum for m in sizes), default=0)
        if column.no_wrap:
            widths.append(widest)
            continue
        longest_word = max((m.minimum for m in sizes), default=0) if column.overflow != "fold" else 0
        widths.append(max(min(widest, _READABLE), longest_word))
    _, right, _, left = table.padding
    return sum(widths) + (left + right) * max(len(widths) - 1, 0)


def _print(console: Console, view: RenderableType) -> None:
    for part in _parts(view):
        if not isinstance(part, Table) or _narrowest(console, part) <= console.width:
            console.print(part)
            continue
        # Fitted to this console, rich would cut cells and drop whole columns (pending's REASON and FIX
        # on 120 columns): print the table at its own width instead, and let the terminal wrap its lines,
        # as it wraps kubectl's.
        width = Measurement.get(console, console.options.update_width(_UNBOUNDED), part).maximum
        lines = console.render_lines(part, console.options.update_width(width), pad=False, new_lines=True)
        console.print(Segments([segment for line in lines for segment in line]), soft_wrap=True, end="")


def print_table(console: Console, view: RenderableType) -> None:
    """Print a view (a table, text, or a Group of them), fitted to the console's width where its tables
    fit it without cutting a cell; off a terminal, without the trailing padding rich adds to every line."""
    if console.is_terminal:
        _print(console, view)
        return
    with console.capture() as captured:
        _print(console, view)
    console.file.write("\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n")
