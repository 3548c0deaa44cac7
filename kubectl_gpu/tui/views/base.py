"""What every view is: a title line, one table per section (`tab` switches), and a detail pane for the row
under the cursor. A view class names itself (`view_id`, `title`, `key`) and builds its model from a
`Refresh` in `build` (a static method: it runs in the refresh worker, never on the UI thread).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any, ClassVar

import msgspec
from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import ContentSwitcher, Static

from kubectl_gpu.core.report import Finding, ObjectRef
from kubectl_gpu.pages import by_name
from kubectl_gpu.render import theme
from kubectl_gpu.render.draw import rich_prose
from kubectl_gpu.render.findings import findings_block
from kubectl_gpu.render.model import Cell, Prose, Row, Span
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.keys import SORT_LETTERS
from kubectl_gpu.tui.widgets.grid import GridTable
from kubectl_gpu.tui.widgets.grid_model import Grid

__all__ = ["Section", "TableView", "ViewModel", "findings_detail", "lines", "object_detail"]


class Section(msgspec.Struct, frozen=True, dict=True):
    """A table of the view: the grid of one model table (its rows' object type is its own)."""

    name: str
    table: Grid[Any]


class ViewModel(msgspec.Struct, frozen=True, dict=True):
    sections: tuple[Section, ...]
    #: a line under the title: a legend, totals, a footnote
    summary: Text | None = None
    notes: tuple[Text, ...] = msgspec.field(default=())


#: a detail pane's value: text (one line: made safe here, through the view model's `Cell`), a styled
#: (text, style), the model's own prose (several lines, already safe) or cell, or a number
Value = str | int | Decimal | tuple[str, str] | Prose | Cell | None


def _spans(value: Value) -> list[Span]:
    if isinstance(value, Prose):
        return list(value.spans)
    if isinstance(value, tuple):
        value = Cell(value[0], style=value[1])
    if not isinstance(value, Cell):
        value = Cell(str(value))
    return [Span(value.text, value.style)]


def lines(pairs: Iterable[tuple[str, Value]]) -> Text:
    """`label: value` lines for a detail pane (values None or empty are left out)."""
    spans: list[Span] = []
    for label, value in pairs:
        if value is None or value == "" or value == ():
            continue
        spans += [Span(f"{label}: ", theme.HEADER), *_spans(value), Span("\n")]
    out = rich_prose(Prose(tuple(spans)))
    out.rstrip()
    return out


def findings_detail(head: RenderableType | None, findings: Iterable[Finding], limit: int = 12) -> Group:
    """A detail pane: `head`, then the object's findings (worst first), the fix under each."""
    found = list(findings)
    parts: list[RenderableType] = [head] if head is not None else []
    if found:
        parts.append(Text(""))
        parts.append(rich_prose(findings_block(found[:limit])))
        if len(found) > limit:
            parts.append(Text(f"... and {len(found) - limit} more (f: Findings)", style=theme.MUTED))
    return Group(*parts)


class TableView(Vertical):
    """One view of the app. Subclasses set the class names and `build`; `open(row)` is `enter`."""

    #: the page's id, title, key and footer label: its spec's (`class NodesView(TableView, page="nodes")`,
    #: kubectl_gpu/pages), set when the class is made
    view_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    key: ClassVar[str] = ""
    #: the footer's label, when shorter than the title
    footer: ClassVar[str] = ""
    #: section names, in the order `build` returns them
    SECTIONS: ClassVar[tuple[str, ...]] = ("",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_section", "Section", show=False),
        Binding("shift+tab", "next_section(-1)", "Previous section", show=False),
        Binding("J", "scroll_detail(1)", "Detail down", show=False),
        Binding("K", "scroll_detail(-1)", "Detail up", show=False),
        *(Binding(letter, f"sort_letter('{letter}')", "Sort", show=False) for letter in SORT_LETTERS),
    ]

    class Open(Message):
        """`enter` on a row: the app decides (explain, a detail screen, a drill-down)."""

        def __init__(self, view: TableView, row: Row[Any]) -> None:
            super().__init__()
            self.view = view
            self.row = row

    def __init_subclass__(cls, page: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if page:
            face = by_name(page).tui
            if face is None:
                raise TypeError(f"page {page!r} has no TUI face (kubectl_gpu/pages/{page}.py)")
            cls.view_id, cls.title, cls.key, cls.footer = page, face.title, face.key, face.footer

    def __init__(self) -> None:
        super().__init__(id=f"view-{self.view_id}", classes="view")
        self.model: ViewModel | None = None
        self.section = 0
        self._title_shown = ""
        self._detail_shown: tuple[int, str | None, int, frozenset[str]] | None = None
        #: False until mounted: the app mounts a view on its first show (the first screen composes only
        #: the Overview); until then `show` and `set_filter` only keep what they are given
        self.composed = False
        self._kept_filter = ""
        #: what the title says about the scope read (`ns nosuch: not found`), "" for nothing
        self.scope_note = ""

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield Static(self.title, classes="view-title")
        yield Static("", classes="view-summary")
        with ContentSwitcher(initial="grid-0", classes="view-sections"):
            for index, _ in enumerate(self.SECTIONS):
                yield GridTable(id=f"grid-{index}")
        with VerticalScroll(classes="detail-pane") as pane:
            pane.can_focus = False
            yield Static("", classes="detail")

    # --- what the app asks ---------------------------------------------------------------------

    @property
    def grid(self) -> GridTable:
        return self.query_one(f"#grid-{self.section}", GridTable)

    @property
    def grids(self) -> list[GridTable]:
        return list(self.query(GridTable))

    def on_mount(self) -> None:
        self.composed = True
        if self.model is not None:
            self.show(self.model)
        if self._kept_filter:
            self.set_filter(self._kept_filter)

    def show(self, model: ViewModel) -> None:
        self.model = model
        if not self.composed:
            return
        for index, section in enumerate(model.sections):
            self.query_one(f"#grid-{index}", GridTable).set_table(section.table)
        summary = self.query_one(".view-summary", Static)
        summary.update(model.summary or "")
        summary.display = model.summary is not None
        self._title()

    def set_filter(self, text: str) -> None:
        self._kept_filter = text
        if not self.composed:
            return
        for grid in self.grids:
            grid.set_filter(text)
        self._title()

    def set_scope_note(self, note: str) -> None:
        """Say `note` in the title (the namespace in scope does not exist), or nothing (`""`)."""
        self.scope_note = note
        if self.composed:
            self._title()

    @property
    def filter_text(self) -> str:
        return self.grid.filter_text if self.composed else self._kept_filter

    def focus_table(self) -> None:
        self.grid.focus()

    # --- inside ----------------------------------------------------------------------------------

    def count_note(self) -> str:
        """What the row count alone does not say (a view whose rows group several objects); "" for none."""
        return ""

    def _title(self) -> None:
        grid = self.grid
        title = Text(self.title, style=theme.HEADER)
        if len(self.SECTIONS) > 1:
            for index, name in enumerate(self.SECTIONS):
                title.append("  ")
                title.append(
                    f"[{name}]" if index == self.section else name,
                    style="" if index == self.section else theme.MUTED,
                )
        shown, total = len(grid.view), len(grid.table.rows)
        if total or not self.scope_note:  # no `0` where the namespace read does not exist: the note says it
            title.append(f"  {shown}" if shown == total else f"  {shown} of {total}", style=theme.MUTED)
        if note := self.count_note():
            title.append(f"  {note}", style=theme.MUTED)
        if self.scope_note:
            title.append(f"  {self.scope_note}", style=theme.ERROR)
        if grid.filter_text:
            title.append(f"  /{grid.filter_text}", style=theme.WARNING)
        if grid.marks:
            title.append(f"  {len(grid.marks)} marked", style=theme.INFO)
        if len(self.SECTIONS) > 1:
            title.append("  (tab: section)", style=theme.MUTED)
        if title.plain != self._title_shown:  # the cursor moves far more often than the counts change
            self._title_shown = title.plain
            self.query_one(".view-title", Static).update(title, layout=False)

    def letter_columns(self, letter: str) -> list[int]:
        """The columns on screen whose header starts with `letter` (Shift+letter sorts by them)."""
        grid = self.grid
        columns = grid.table.columns
        return [i for i in grid.shown_columns if columns[i].label.upper().startswith(letter.upper())]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sort_letter":  # a column shown starts with it, and two rows or more to sort
            return len(self.grid.view) > 1 and bool(self.letter_columns(str(parameters[0])))
        if action == "next_section":
            return len(self.SECTIONS) > 1
        if action == "scroll_detail":  # the pane overflows, and not already at that end
            pane = self.query_one(".detail-pane", VerticalScroll)
            down = int(str(parameters[0])) > 0 if parameters else True
            return pane.scroll_y < pane.max_scroll_y if down else pane.scroll_y > 0
        return True

    def action_next_section(self, step: int = 1) -> None:
        if len(self.SECTIONS) < 2:
            return
        self.section = (self.section + step) % len(self.SECTIONS)
        self.query_one(ContentSwitcher).current = f"grid-{self.section}"
        self.grid.focus()
        self._title()
        self._detail(self.grid.cursor_row)
        self.refresh_bindings()  # another table: other keys may work (s on the Nodes section)

    def action_sort_letter(self, letter: str) -> None:
        """Shift+letter (k9s): sort by the column shown whose header starts with `letter`; again: reversed;
        again (two such columns, ALLOC and AGE): the next one."""
        columns = self.letter_columns(letter)
        if not columns:
            return
        grid = self.grid
        if grid.sort_column not in columns:
            grid.sort_by(columns[0])
        elif not grid.sort_reverse:
            grid.sort_by(grid.sort_column, reverse=True)
        else:
            grid.sort_by(columns[(columns.index(grid.sort_column) + 1) % len(columns)])

    def action_scroll_detail(self, lines: int) -> None:
        self.query_one(".detail-pane", VerticalScroll).scroll_relative(y=lines * 3, animate=False)

    def _detail(self, row: Row[Any] | None) -> None:
        pane = self.query_one(".detail", Static)
        left_out = {c.key for c in self.grid.table.columns} - set(self.grid.shown_keys)
        key = (self.section, row.key if row is not None else None, id(self.grid.table), frozenset(left_out))
        if key == self._detail_shown:
            return
        self._detail_shown = key
        if row is None:
            pane.update("")
            return
        pane.update(self.grid.table.describe(row, left_out))
        self.query_one(".detail-pane", VerticalScroll).scroll_home(animate=False)
        self.call_after_refresh(self.refresh_bindings)  # J/K work when the pane overflows

    @on(GridTable.Highlighted)
    def _highlighted(self, event: GridTable.Highlighted) -> None:
        if event.grid is self.grid:
            self._detail(event.row)
            self._title()

    def open_row(self, row: Row[Any]) -> bool:
        """`enter` the view handles itself (True: opening a group), else the app decides (False)."""
        return False

    @on(GridTable.Selected)
    def _selected(self, event: GridTable.Selected) -> None:
        event.stop()
        if not self.open_row(event.row):
            self.post_message(self.Open(self, event.row))


def object_detail(refresh: Refresh, ref: ObjectRef | None, head: RenderableType | None = None) -> Group:
    """A detail pane for a row about `ref`: `head`, then the diagnose findings about it."""
    return findings_detail(head, refresh.findings_for(ref) if ref is not None else ())
