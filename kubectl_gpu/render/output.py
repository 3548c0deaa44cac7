"""The console the human output goes to, and the tables drawn on it; the `-o json|yaml` documents are
render/documents.py (re-exported here), which a machine-readable run imports alone."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator

import msgspec
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.segment import Segments
from rich.table import Table
from rich.text import Text

from kubectl_gpu.render import theme
from kubectl_gpu.render.documents import dump_json, dump_yaml
from kubectl_gpu.render.model import Prose, View
from kubectl_gpu.render.model import Table as ModelTable
from kubectl_gpu.render.terminal import use_color

__all__ = [
    "LARGE_TABLE_ROWS",
    "dump_json",
    "dump_yaml",
    "make_console",
    "print_table",
    "use_color",
    "view_parts",
]


# Off a terminal the console is this wide: tables take the width they need.
_UNBOUNDED = 4000
# A wrapping column narrower than this reads as a column of syllables.
_READABLE = 20
#: Past this many rows a table of one-line cells is laid out here, line by line, not by rich: rich measures
#: every cell several times over (`nodes --all` on 20,000 nodes took 25 s to print, 45 s with -o wide).
#: The text is the same (the tests compare both); on a terminal such a table is printed at its own width.
LARGE_TABLE_ROWS = 2000


class _Console(Console):
    """The tables' console. It draws text made safe once, before it: the view model's (its constructors
    call `render.safe`) and the message lines of `cli.say`; it cleans nothing a second time."""

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


def view_parts(view: RenderableType) -> Iterator[RenderableType]:
    """The leaves of a view: nested Groups flattened, in order."""
    if isinstance(view, Group):
        for part in view.renderables:
            yield from view_parts(part)
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
    for part in view_parts(view):
        if not isinstance(part, Table) or _narrowest(console, part) <= console.width:
            console.print(part)
            continue
        # Fitted to this console, rich would cut cells and drop whole columns (pending's REASON and FIX
        # on 120 columns): print the table at its own width instead, and let the terminal wrap its lines,
        # as it wraps kubectl's.
        width = Measurement.get(console, console.options.update_width(_UNBOUNDED), part).maximum
        lines = console.render_lines(part, console.options.update_width(width), pad=False, new_lines=True)
        console.print(Segments([segment for line in lines for segment in line]), soft_wrap=True, end="")


Cell = str | Text


class _Shape(msgspec.Struct, frozen=True):
    """What the line-by-line printer needs of a table besides its cells."""

    title: str | None
    right: tuple[bool, ...]
    show_header: bool
    header_style: str
    title_style: str


def _rich_shape(table: Table) -> _Shape:
    right = tuple(column.justify == "right" for column in table.columns)
    title = str(table.title) if table.title else None
    header, title_style = str(table.header_style or ""), str(table.title_style or "")
    return _Shape(title, right, table.show_header, header, title_style)


def _large_cells(table: Table) -> list[list[Cell]] | None:
    """A big rich table of one-line cells (str or Text), column by column, header first; None for any
    other table (rich lays those out)."""
    columns = table.columns
    if table.row_count <= LARGE_TABLE_ROWS or not columns or not all(c.no_wrap for c in columns):
        return None
    grid: list[list[Cell]] = []
    for column in columns:
        found = [column.header, *column.cells] if table.show_header else list(column.cells)
        cells = [c for c in found if isinstance(c, str | Text)]
        if len(cells) != len(found) or any("\n" in (c.plain if isinstance(c, Text) else c) for c in cells):
            return None
        grid.append(cells)
    return grid


def _large_model(table: ModelTable[object]) -> tuple[_Shape, list[list[Cell]]] | None:
    """A big table of the view model, drawn line by line straight from its cells (no rich table is built:
    `nodes --all` on 20,000 nodes); None for a small one or one with a cell of several lines."""
    if len(table.rows) <= LARGE_TABLE_ROWS or not table.columns:
        return None
    grid: list[list[Cell]] = [[c.header] if table.show_header else [] for c in table.columns]
    for row in table.rows:
        for index, cell in enumerate(row.cells):
            text = table.columns[index].shown(cell)  # a brief column: the first sentence
            if "\n" in text:
                return None
            grid[index].append(Text(text, style=cell.style) if cell.style else text)
    shape = _Shape(table.title, (False,) * len(table.columns), table.show_header, theme.HEADER, theme.HEADER)
    return shape, grid


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _plain_lines(shape: _Shape, grid: list[list[Cell]]) -> list[str]:
    """The table's lines as plain text, columns two spaces apart as theme.table lays them out."""
    plain = [[_plain(c) for c in cells] for cells in grid]
    widths = [max(cell_len(c) for c in cells) for cells in plain]
    rows = [shape.title] if shape.title else []
    for row in range(len(plain[0])):
        parts = []
        for col, width in enumerate(widths):
            cell = plain[col][row]
            pad = " " * (width - cell_len(cell))
            parts.append(pad + cell if shape.right[col] else cell + pad)
        rows.append("  ".join(parts).rstrip())
    return rows


def _styled_lines(shape: _Shape, grid: list[list[Cell]]) -> list[Text]:
    """The same lines with their styles, for a colour console (bold headers, red health)."""
    texts = [[c if isinstance(c, Text) else Text(c) for c in cells] for cells in grid]
    if shape.show_header:
        for cells in texts:
            cells[0] = Text(cells[0].plain, style=shape.header_style)
    widths = [max(t.cell_len for t in cells) for cells in texts]
    lines = [Text(shape.title, style=shape.title_style)] if shape.title else []
    for row in range(len(texts[0])):
        line = Text()
        for col, width in enumerate(widths):
            cell = texts[col][row]
            pad = " " * (width - cell.cell_len)
            line.append("  " if col else "")
            line.append(pad if shape.right[col] else "")
            line.append_text(cell)
            line.append("" if shape.right[col] else pad)
        line.rstrip()
        lines.append(line)
    return lines


def _print_large(console: Console, shape: _Shape, grid: list[list[Cell]]) -> None:
    if console.no_color or console.color_system is None:  # plain text, no rich rendering at all
        console.file.write("".join(f"{line}\n" for line in _plain_lines(shape, grid)))
        return
    console.print(Text("\n").join(_styled_lines(shape, grid)), soft_wrap=True)


def _print_part(console: Console, part: RenderableType, *, verbatim: bool = False) -> None:
    """`verbatim`: text whose lines are printed as they are, never wrapped or cut (a fix block)."""
    grid = _large_cells(part) if isinstance(part, Table) else None
    if grid is not None and isinstance(part, Table):
        _print_large(console, _rich_shape(part), grid)
    elif verbatim:  # soft wrap: rich neither wraps nor crops; a terminal wraps what is too long
        console.print(part, soft_wrap=True)
    elif console.is_terminal:
        _print(console, part)
    else:
        with console.capture() as captured:
            _print(console, part)
        console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def _model_parts(view: View | ModelTable[object] | Prose) -> list[ModelTable[object] | Prose]:
    return list(view.parts) if isinstance(view, View) else [view]


def print_table(console: Console, view: RenderableType | View | ModelTable[object] | Prose) -> None:
    """Print a view (the view model's, drawn by `render.draw`; or a rich table, text, or a Group of them),
    fitted to the console's width where its tables fit it without cutting a cell; off a terminal, without
    the trailing padding rich adds to every line. A table of more than LARGE_TABLE_ROWS one-line rows is
    written line by line (the same text, fast)."""
    if not isinstance(view, View | ModelTable | Prose):
        for part in view_parts(view):
            _print_part(console, part)
        return
    from kubectl_gpu.render.draw import rich_prose, rich_table

    for shown in _model_parts(view):
        if isinstance(shown, ModelTable):
            large = _large_model(shown)
            if large is not None:
                _print_large(console, *large)
            else:
                _print_part(console, rich_table(shown))
        elif isinstance(shown, Prose):
            _print_part(console, rich_prose(shown), verbatim=shown.verbatim)
