"""Machine-readable output and the console the human output goes to."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Iterable
from typing import IO, Any

import orjson
import yaml
from rich.console import Console, RenderableType
from rich.segment import Segment

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
        width=None if color else 4000,
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


def print_table(console: Console, table: RenderableType) -> None:
    """Print a table; off a terminal, without the trailing padding rich adds to every line."""
    if console.is_terminal:
        console.print(table)
        return
    with console.capture() as captured:
        console.print(table)
    console.file.write("\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n")
