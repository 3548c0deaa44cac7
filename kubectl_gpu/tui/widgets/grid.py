"""The table every view shows: rows built once per refresh (in the worker), drawn a line at a time.

Textual's DataTable measures every cell on the UI thread whenever rows are added (about a second for
5,000 rows x 10 columns on a small machine, on every refresh). Here the worker builds `Table`s with their
column widths already measured, and `GridTable` (a Line API `ScrollView`) only renders the lines on screen,
so a refresh, a sort or a filter costs the UI thread a few milliseconds at any size.

The cursor follows a row's key, not its position: after a refresh, a sort or a filter it stays on the same
object, at the same place on screen, when that object is still listed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import msgspec
from rich.cells import cell_len
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.widgets.fit import GAP, GUTTER, cut, fit_widths

__all__ = ["Column", "GridTable", "Row", "Table", "layout", "sort_value"]

Cell = str | Text


def sort_value(value: object) -> tuple[int, Any]:
    """A sort key that orders None last and never compares a number with a string."""
    if value is None:
        return (2, "")
    if isinstance(value, bool | int | float):
        return (0, value)
    return (1, str(value).lower())


class Column(msgspec.Struct, frozen=True):
    label: str
    #: takes the width left over, down to `min_width` (REASON, MESSAGE); the rest keep their natural width,
    #: or down to `shrink` when short of room (0: never cut; a column that does not fit is left out)
    flex: bool = False
    min_width: int = 12
    max_width: int = 64
    right: bool = False
    #: which columns stay when narrow: lower first (then the column's position)
    priority: int = 0
    shrink: int = 0
    #: a column of names: a cell too long is cut where the room ends, not at a word (`fit.cut`)
    names: bool = False
    #: a code (a verdict, a finding's code): never narrowed nor cut, shown whole or left out
    whole: bool = False
    #: the view model's column key (`render.model.Column.key`, or the view's own column's)
    key: str = ""


@dataclass(frozen=True, slots=True)
class Row:
    """One object. `key` is stable across refreshes (a node's name, `ns/pod`); `sort` holds one key per
    column (default: the cell's text); `ref` is the Kubernetes object (`y`, `e`); `node` the node `s` and
    `x` act on; `detail` renders the detail pane."""

    key: str
    cells: tuple[Cell, ...]
    sort: tuple[Any, ...] = ()
    ref: ObjectRef | None = None
    node: str | None = None
    detail: Callable[[], RenderableType] | None = field(default=None, compare=False)
    text: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.text:
            plain = " ".join(c.plain if isinstance(c, Text) else c for c in self.cells)
            object.__setattr__(self, "text", plain.lower())

    def sort_key(self, column: int) -> tuple[int, Any]:
        if column < len(self.sort):
            return sort_value(self.sort[column])
        cell = self.cells[column] if column < len(self.cells) else ""
        return sort_value(cell.plain if isinstance(cell, Text) else cell)

    def matches(self, query: str) -> bool:
        """`/` filter: every word appears (case-insensitive); a word starting with `!` must not."""
        for word in query.lower().split():
            if word.startswith("!") and len(word) > 1:
                if word[1:] in self.text:
                    return False
            elif word not in self.text:
                return False
        return True


def _width(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


@dataclass(frozen=True)
class Table:
    """Columns and rows, with each column's natural width (its widest cell, capped) measured once."""

    columns: tuple[Column, ...]
    rows: tuple[Row, ...] = ()
    empty: str = "Nothing to show."
    widths: tuple[int, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.widths:
            widths = [cell_len(c.label) + 1 for c in self.columns]  # room for the sort arrow
            for row in self.rows:
                for i, cell in enumerate(row.cells[: len(widths)]):
                    size = _width(cell)
                    if size > widths[i]:
                        widths[i] = size
            capped = tuple(
                w if c.whole else min(w, c.max_width) for w, c in zip(widths, self.columns, strict=True)
            )
            object.__setattr__(self, "widths", capped)

    @cached_property
    def has_nodes(self) -> bool:
        """Some row is about a node (`space` marks it; `s` and `x` act on it)."""
        return any(row.node for row in self.rows)

    @cached_property
    def has_refs(self) -> bool:
        """Some row names a Kubernetes object (`y`, `e`)."""
        return any(row.ref is not None for row in self.rows)


def layout(table: Table, width: int) -> list[int]:
    """Column widths for `width` cells (0: left out), fitted by priority (`widgets.fit`)."""
    return fit_widths(table.columns, table.widths, width)


class GridTable(ScrollView, can_focus=True):
    """A virtual table: one header line, then the rows in view (filtered, sorted), a cursor and marks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "Top", show=False),
        Binding("end,G", "jump(-1)", "Bottom", show=False),
        Binding("left", "scroll_cells(-8)", "Scroll left", show=False),
        Binding("right", "scroll_cells(8)", "Scroll right", show=False),
        Binding("enter", "select", "Open", show=False),
        Binding("space", "mark", "Mark", show=False),
        Binding("S", "sort_next", "Sort", show=False),
        Binding("R", "sort_reverse", "Reverse sort", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "grid--header",
        "grid--cursor",
        "grid--mark",
        "grid--empty",
    }
    DEFAULT_CSS = """
    GridTable { height: 1fr; }
    GridTable > .grid--header { text-style: bold; }
    GridTable > .grid--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    GridTable:blur > .grid--cursor { background: $block-cursor-blurred-background; }
    GridTable > .grid--mark { color: $accent; text-style: bold; }
    GridTable > .grid--empty { color: $text-muted; }
    """

    class Highlighted(Message):
        """The cursor moved to another row (or to none: an empty table)."""

        def __init__(self, grid: GridTable, row: Row | None) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

    class Selected(Message):
        """`enter` (or a double click) on a row."""

        def __init__(self, grid: GridTable, row: Row) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

    def __init__(self, table: Table | None = None, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.table = table or Table(())
        self.filter_text = ""
        self.sort_column: int | None = None
        self.sort_reverse = False
        self.marks: set[str] = set()
        #: False where marking means nothing (Pending): `space` is then the view's own key
        self.markable = True
        self.view: list[Row] = list(self.table.rows)
        self.cursor = 0
        self._widths: list[int] = []
        self._relayout()

    # --- state -------------------------------------------------------------------------------

    @property
    def cursor_row(self) -> Row | None:
        return self.view[self.cursor] if 0 <= self.cursor < len(self.view) else None

    @property
    def shown_keys(self) -> list[str]:
        """The keys of the columns on screen, in their order (a narrow terminal leaves some out)."""
        return [c.key for c, w in zip(self.table.columns, self._widths, strict=False) if w]

    @property
    def marked_rows(self) -> list[Row]:
        return [row for row in self.view if row.key in self.marks]

    @property
    def body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def set_table(self, table: Table) -> None:
        """New rows (a refresh): the cursor stays on the same key, at the same height on screen."""
        self.table = table
        keys = {row.key for row in table.rows}
        self.marks &= keys
        self._rebuild(keep=True)

    def set_filter(self, query: str) -> None:
        self.filter_text = query.strip()
        self._rebuild(keep=True)

    def sort_by(self, column: int | None, reverse: bool = False) -> None:
        self.sort_column = column
        self.sort_reverse = reverse
        self._rebuild(keep=True)

    @property
    def shown_columns(self) -> list[int]:
        """The columns on screen at this width (a narrow terminal leaves some out), left to right."""
        return [index for index, width in enumerate(self._widths) if width]

    def move_to(self, key: str) -> bool:
        """Put the cursor on the row with `key`; False when it is not in view."""
        for index, row in enumerate(self.view):
            if row.key == key:
                self._set_cursor(index)
                return True
        return False

    def _rebuild(self, *, keep: bool) -> None:
        current = self.cursor_row
        offset = self.cursor - round(self.scroll_y)
        rows = (
            [r for r in self.table.rows if r.matches(self.filter_text)]
            if self.filter_text
            else list(self.table.rows)
        )
        if self.sort_column is not None and self.sort_column < len(self.table.columns):
            column = self.sort_column
            rows.sort(key=lambda r: r.sort_key(column), reverse=self.sort_reverse)
        self.view = rows
        index = min(self.cursor, max(len(rows) - 1, 0))
        if keep and current is not None:
            index = next((i for i, r in enumerate(rows) if r.key == current.key), index)
        self.cursor = index
        self._relayout()
        if keep:
            self.scroll_to(y=max(0, index - max(0, offset)), animate=False, immediate=True)
        self._scroll_to_cursor()
        self.refresh()
        self._announce()
        self.refresh_bindings()  # which keys work depends on the rows (marks, moves, y, s)

    def _layout_width(self) -> int:
        """The width the columns are fitted to: the content's, less the vertical scrollbar when the rows
        will need one (it appears after the layout: fitted to the width without it, the table overflowed
        by the scrollbar's width and scrolled sideways)."""
        if not self.is_mounted:
            return 200
        region = self.content_region
        overflows = len(self.view) + 1 > region.height
        return region.width - (self.styles.scrollbar_size_vertical if overflows else 0)

    def _relayout(self) -> None:
        self._widths = layout(self.table, self._layout_width())
        shown = [w for w in self._widths if w]
        total = GUTTER + sum(shown) + GAP * max(len(shown) - 1, 0)
        self.virtual_size = Size(total, len(self.view) + 1)

    def _announce(self) -> None:
        self.post_message(self.Highlighted(self, self.cursor_row))

    def _set_cursor(self, index: int) -> None:
        if not self.view:
            return
        index = max(0, min(index, len(self.view) - 1))
        if index != self.cursor:
            old, self.cursor = self.cursor, index
            top = round(self.scroll_y)
            for row in (old, index):  # only the two lines that changed (a scroll repaints everything)
                self.refresh_line(row - top + 1)
            self._announce()
        self._scroll_to_cursor()

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_y)
        height = self.body_height
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    # --- events and actions ---------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._relayout()
        self._scroll_to_cursor()
        self.refresh()
        self.refresh_bindings()  # left/right scroll only a table wider than the screen

    def action_cursor(self, delta: int) -> None:
        self._set_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._set_cursor(self.cursor + direction * self.body_height)

    def action_jump(self, index: int) -> None:
        self._set_cursor(index if index >= 0 else len(self.view) - 1)

    def action_scroll_cells(self, delta: int) -> None:
        self.scroll_to(x=max(0, self.scroll_x + delta), animate=False, immediate=True)

    def action_select(self) -> None:
        row = self.cursor_row
        if row is not None:
            self.post_message(self.Selected(self, row))

    def action_mark(self) -> None:
        row = self.cursor_row
        if row is None or not row.node:
            return
        self.marks ^= {row.key}
        self.refresh_line(self.cursor - round(self.scroll_y) + 1)
        before = self.cursor
        self._set_cursor(self.cursor + 1)
        if self.cursor == before:  # the last row: no move, but the count of marks changed
            self._announce()
        self.refresh_bindings()  # esc now clears the marks

    #: what each action needs to do something (a key that would do nothing is neither run nor listed)
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TEXTUAL_DEFAULTS:
            return False
        if action == "mark":  # a node's row (s runs on the marked nodes); never where marks mean nothing
            row = self.cursor_row
            return self.markable and row is not None and bool(row.node)
        if action in ("cursor", "page"):  # up at the top, down at the bottom: nothing to do
            step = int(str(parameters[0])) if parameters else 1
            return self.cursor > 0 if step < 0 else self.cursor < len(self.view) - 1
        if action == "jump":
            return self.cursor != (0 if parameters[:1] == (0,) else len(self.view) - 1) and bool(self.view)
        if action in ("sort_next", "sort_reverse"):
            return len(self.view) > 1
        if action == "select":
            return bool(self.view)
        if action == "scroll_cells":  # wider than the screen, and not already at that edge
            left = int(str(parameters[0])) < 0 if parameters else False
            if not self.allow_horizontal_scroll:
                return False
            return self.scroll_x > 0 if left else self.scroll_x < self.max_scroll_x
        return True

    def action_sort_next(self) -> None:
        count = len(self.table.columns)
        if count:
            nxt = 0 if self.sort_column is None else self.sort_column + 1
            self.sort_by(None if nxt >= count else nxt)

    def action_sort_reverse(self) -> None:
        self.sort_by(self.sort_column if self.sort_column is not None else 0, not self.sort_reverse)

    def on_click(self, event: events.Click) -> None:
        scroll_x, scroll_y = self.scroll_offset
        if event.y == 0:
            column = self._column_at(event.x + scroll_x)
            if column is not None:
                same = column == self.sort_column
                self.sort_by(column, reverse=not self.sort_reverse if same else False)
            return
        index = scroll_y + event.y - 1
        if 0 <= index < len(self.view):
            self._set_cursor(index)
            if event.chain >= 2:
                self.action_select()

    def _column_at(self, x: int) -> int | None:
        at = GUTTER
        for index, width in enumerate(self._widths):
            if not width:
                continue
            if at <= x < at + width + GAP:
                return index
            at += width + GAP
        return None

    # --- rendering --------------------------------------------------------------------------------

    def _line(self, cells: Sequence[Cell], base: Style, gutter: str, gutter_style: Style) -> Text:
        line = Text(style=base, end="")
        line.append(gutter.ljust(GUTTER), gutter_style)
        last = max((i for i, w in enumerate(self._widths) if w), default=-1)
        for index, width in enumerate(self._widths):
            if not width:  # left out: too narrow a terminal (the detail pane shows it)
                continue
            cell = cells[index] if index < len(cells) else ""
            column = self.table.columns[index] if index < len(self.table.columns) else None
            text = cut(
                cell.copy() if isinstance(cell, Text) else Text(cell),
                width,
                words=column is None or not column.names,
            )
            pad = width - text.cell_len
            right = column is not None and column.right
            if right:
                line.append(" " * pad)
            line.append_text(text)
            if not right:
                line.append(" " * pad)
            if index != last:
                line.append(" " * GAP)
        return line

    def _header(self) -> Text:
        labels: list[Cell] = []
        for index, column in enumerate(self.table.columns):
            arrow = ("▼" if self.sort_reverse else "▲") if index == self.sort_column else ""
            labels.append(column.label + arrow)
        style = self.rich_style + self.get_component_rich_style("grid--header", partial=True)
        return self._line(labels, style, "", style)

    def _row_line(self, index: int) -> Text:
        row = self.view[index]
        marked = row.key in self.marks
        base = self.rich_style
        mark = self.get_component_rich_style("grid--mark", partial=True)
        if index != self.cursor:
            return self._line(row.cells, base, "●" if marked else "", base + mark)
        cursor = self.get_component_rich_style("grid--cursor", partial=True)
        if self.app.no_color:  # no background colour to show it: reverse video
            cursor += Style(reverse=True)
        line = self._line(row.cells, base + cursor, "●" if marked else "", base + cursor + mark)
        line.stylize(cursor)  # one colour on the cursor's bar: red on blue reads badly
        return line

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self.rich_style
        if y == 0:
            text = self._header()
        elif not self.view:
            text = Text(
                self.table.empty if y == 1 else "",
                style=self.get_component_rich_style("grid--empty", partial=True),
            )
            if self.filter_text and y == 1:
                text = Text(f"No rows match /{self.filter_text} (esc clears the filter).", style=text.style)
        else:
            index = scroll_y + y - 1
            if index >= len(self.view):
                return Strip.blank(width, style)
            text = self._row_line(index)
        # Every segment gets a style: NO_COLOR's monochrome filter reads the colour of each one.
        segments = [Segment(s.text, s.style or style, s.control) for s in text.render(self.app.console)]
        strip = Strip(segments, text.cell_len)
        left = scroll_x if self.view else 0  # the empty message never scrolls away
        return strip.crop_extend(left, left + width, style).simplify()
