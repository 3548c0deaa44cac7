"""The table every view shows: rows built once per refresh (in the worker), drawn a line at a time.

Textual's DataTable measures every cell on the UI thread whenever rows are added (about a second for
5,000 rows x 10 columns on a small machine, on every refresh). Here the worker builds `Grid`s (the view
model's table and its rows as they are, `widgets.grid_model`) with their column widths already measured,
and `GridTable` (a Line API `ScrollView`) only renders the lines on screen, so a refresh, a sort or a
filter costs the UI thread a few milliseconds at any size.

The cursor follows a row's key, not its position: after a refresh, a sort or a filter it stays on the same
object, at the same place on screen, when that object is still listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kubectl_gpu.render.model import Row
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.widgets.fit import GAP, GUTTER, cut, fit_widths
from kubectl_gpu.tui.widgets.grid_model import Grid, Shown

__all__ = ["GridTable", "layout"]


def layout(table: Grid[Any], width: int) -> list[int]:
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

        def __init__(self, grid: GridTable, row: Row[Any] | None) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

    class Selected(Message):
        """`enter` (or a double click) on a row."""

        def __init__(self, grid: GridTable, row: Row[Any]) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

    def __init__(self, table: Grid[Any] | None = None, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.table: Grid[Any] = table or Grid(None)
        self.filter_text = ""
        self.sort_column: int | None = None
        self.sort_reverse = False
        self.marks: set[str] = set()
        #: False where marking means nothing (Pending): `space` is then the view's own key
        self.markable = True
        #: the rows in view (filtered, sorted), and where each is in the grid's rows
        self.view: list[Row[Any]] = list(self.table.rows)
        self._order: list[int] = list(range(len(self.view)))
        self.cursor = 0
        self._widths: list[int] = []
        self._relayout()

    # --- state -------------------------------------------------------------------------------

    @property
    def cursor_row(self) -> Row[Any] | None:
        return self.view[self.cursor] if 0 <= self.cursor < len(self.view) else None

    @property
    def shown_keys(self) -> list[str]:
        """The keys of the columns on screen, in their order (a narrow terminal leaves some out)."""
        return [c.key for c, w in zip(self.table.columns, self._widths, strict=False) if w]

    @property
    def marked_rows(self) -> list[Row[Any]]:
        return [row for row in self.view if row.key in self.marks]

    @property
    def body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def set_table(self, table: Grid[Any]) -> None:
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
        grid = self.table
        order = range(len(grid.rows))
        indices = [i for i in order if grid.matches(i, self.filter_text)] if self.filter_text else list(order)
        if self.sort_column is not None and self.sort_column < len(grid.columns):
            column = self.sort_column
            indices.sort(key=lambda i: grid.sort_key(i, column), reverse=self.sort_reverse)
        self._order = indices
        self.view = rows = [grid.rows[i] for i in indices]
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
        shown = self.shown_keys
        self._relayout()
        if self.shown_keys != shown:  # the detail pane lists what the width now leaves out
            self._announce()
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

    def _line(self, cells: Sequence[Shown], base: Style, gutter: str, gutter_style: Style) -> Text:
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
        labels: list[Shown] = []
        for index, column in enumerate(self.table.columns):
            arrow = ("▼" if self.sort_reverse else "▲") if index == self.sort_column else ""
            labels.append(column.label + arrow)
        style = self.rich_style + self.get_component_rich_style("grid--header", partial=True)
        return self._line(labels, style, "", style)

    def _row_line(self, index: int) -> Text:
        row = self.view[index]
        cells = self.table.shown(self._order[index])
        marked = row.key in self.marks
        base = self.rich_style
        mark = self.get_component_rich_style("grid--mark", partial=True)
        if index != self.cursor:
            return self._line(cells, base, "●" if marked else "", base + mark)
        cursor = self.get_component_rich_style("grid--cursor", partial=True)
        if self.app.no_color:  # no background colour to show it: reverse video
            cursor += Style(reverse=True)
        line = self._line(cells, base + cursor, "●" if marked else "", base + cursor + mark)
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
