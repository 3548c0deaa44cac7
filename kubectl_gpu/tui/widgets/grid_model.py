"""The view model's table (`render.model.Table[T]`) as the grid lays it out: what the TUI adds to it, typed
by the rows' object, and nothing copied.

A `Grid[T]` holds the model's table and its rows as they are; each grid column is a `GridColumn`: the
model's `Column` (found by its key, never by header text) and the `Fit` that says how wide it may grow and
which columns a narrow terminal keeps. A view may add columns of its own (an allocation bar, LIFE,
EXPIRES) with `Fit.compute`, computed from the typed row (`Row[T]`: its `obj` is the report's object),
never from a rendered string. The detail pane's function is typed by the table too (`Grid[NodeRow]`
takes a `Callable[[Row[NodeRow]], ...]`), so no view dispatches on what a row's object is.

Built in the refresh worker: the columns' natural widths are measured once (the widest cell, capped),
and a view's own columns computed once per row. Drawing is lazy: a row's cells become what the screen
shows (a rich `Text` where a cell has a style) only when the row is drawn, once, then cached; the `/`
filter's text is made on the first filter.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any, Generic, TypeVar

import msgspec
from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.render import model, theme
from kubectl_gpu.render.model import Row

__all__ = ["Fit", "Grid", "GridColumn", "Shown", "shown_cell", "sort_value"]

T = TypeVar("T")

#: a cell as the screen shows it: the model's text, or a rich Text (a style; a bar of the view's own)
Shown = str | Text


def sort_value(value: object) -> tuple[int, Any]:
    """A sort key that orders None last and never compares a number with a string."""
    if value is None:
        return (2, "")
    if isinstance(value, bool | int | float):
        return (0, value)
    return (1, str(value).lower())


def shown_cell(cell: model.Cell, column: model.Column) -> Shown:
    """The cell as the grid shows it: in a `brief` column, its first sentence; styled, a rich Text."""
    text = column.shown(cell)
    return Text(text, style=cell.style) if cell.style else text


class Fit(msgspec.Struct, Generic[T], frozen=True):
    """How the TUI lays out one column: the model's column `key`, or (with `compute`) one of its own."""

    key: str
    max_width: int = 64
    flex: bool = False
    min_width: int = 12
    #: a column of the TUI's own, from the typed model row: (what to show, what it sorts by)
    compute: Callable[[Row[T]], tuple[Shown, object]] | None = None
    header: str = ""
    #: which columns stay when the terminal is narrow: lower first; None: the model column's `priority`
    #: (a column of the view's own: `Priority.USEFUL`), then the column's position
    priority: int | None = None
    #: when short of room, the column may be cut (at a word's end) down to this width; 0: never
    shrink: int = 0
    #: names (pods, workloads): a cell too long is cut where the room ends, not at a word
    names: bool = False


class GridColumn(msgspec.Struct, frozen=True):
    """One column of the grid: the model's column (for a column of the view's own, one made from its fit's
    key and header), where its cells are in a model row (None: computed), and its fit."""

    column: model.Column
    fit: Fit[Any]
    position: int | None

    @property
    def key(self) -> str:
        return self.column.key

    @property
    def label(self) -> str:
        return self.column.header

    @property
    def right(self) -> bool:
        return self.position is not None and self.column.right

    @property
    def whole(self) -> bool:
        """A code (a verdict, a finding's code): never narrowed nor cut, shown whole or left out."""
        return self.position is not None and self.column.kind == model.Kind.CODE

    @property
    def priority(self) -> int:
        if self.fit.priority is not None:
            return self.fit.priority
        return self.column.priority if self.position is not None else model.Priority.USEFUL

    @property
    def flex(self) -> bool:
        return self.fit.flex

    @property
    def min_width(self) -> int:
        return self.fit.min_width

    @property
    def max_width(self) -> int:
        return self.fit.max_width

    @property
    def shrink(self) -> int:
        return self.fit.shrink

    @property
    def names(self) -> bool:
        return self.fit.names


def _default_fits(table: model.Table[Any]) -> list[Fit[Any]]:
    """Every column of the model, in its order; the first wrapping one takes the width left over."""
    flexed = False
    out: list[Fit[Any]] = []
    for column in table.columns:
        flex = column.wrap and not flexed
        flexed = flexed or flex
        out.append(Fit(column.key, max_width=200 if flex else 64, flex=flex, min_width=20 if flex else 12))
    return out


def _unique(rows: tuple[Row[T], ...]) -> tuple[Row[T], ...]:
    """Row keys are unique in a grid (the cursor and the marks follow them): a second row of one object
    gets `key#index` (rare: the same row object otherwise)."""
    seen: set[str] = set()
    out = list(rows)
    for index, row in enumerate(rows):
        if row.key in seen:
            out[index] = replace(row, key=f"{row.key}#{index}")
        seen.add(out[index].key)
    return tuple(out)


class Grid(Generic[T]):
    """The model's `table` as the grid shows it, its columns as `fits` lays them out (default: all, in the
    model's order). `table` None, or no row and no fits: an empty grid of one column saying `empty`.
    `detail` renders the detail pane of a row (None: its cells, a line each)."""

    def __init__(
        self,
        table: model.Table[T] | None,
        fits: Sequence[Fit[T]] | None = None,
        *,
        detail: Callable[[Row[T]], RenderableType] | None = None,
        empty: str = "Nothing to show.",
    ) -> None:
        self.empty = empty
        self.detail = detail
        if table is None or (not table.rows and fits is None):
            first: Fit[T] = fits[0] if fits else Fit("name")
            column = model.Column(first.key, first.header or first.key.upper())
            table, fits = model.Table("", (column,)), (Fit(first.key),)
        self.table: model.Table[T] = table
        layout = list(fits) if fits is not None else _default_fits(table)
        self.columns = tuple(self._placed(fit) for fit in layout)
        self.rows: tuple[Row[T], ...] = _unique(table.rows)
        #: per row, the view's own columns' (shown, sort value), in the grid's column order
        self._computed = [
            tuple(c.fit.compute(row) for c in self.columns if c.fit.compute is not None) for row in self.rows
        ]
        self._shown: dict[int, tuple[Shown, ...]] = {}
        self.widths = self._measure()

    def _placed(self, fit: Fit[T]) -> GridColumn:
        if fit.compute is not None:
            return GridColumn(model.Column(fit.key, fit.header), fit, None)
        position = self.table.index(fit.key)
        return GridColumn(self.table.columns[position], fit, position)

    def _measure(self) -> tuple[int, ...]:
        """Each column's natural width: its widest cell (the header with room for the sort arrow), capped
        at its `max_width` unless whole."""
        widths = [cell_len(c.label) + 1 for c in self.columns]
        for index in range(len(self.rows)):
            for i, text in enumerate(self._texts(index)):
                size = cell_len(text)
                if size > widths[i]:
                    widths[i] = size
        return tuple(w if c.whole else min(w, c.max_width) for w, c in zip(widths, self.columns, strict=True))

    def _texts(self, index: int) -> list[str]:
        """Row `index`'s cells as plain text, in the grid's column order."""
        row, computed, out = self.rows[index], iter(self._computed[index]), []
        for column in self.columns:
            if column.position is None:
                shown = next(computed)[0]
                out.append(shown.plain if isinstance(shown, Text) else shown)
            else:
                out.append(column.column.shown(row.cells[column.position]))
        return out

    def shown(self, index: int) -> tuple[Shown, ...]:
        """Row `index`'s cells as the screen shows them, made on its first draw and kept."""
        cells = self._shown.get(index)
        if cells is None:
            row, computed, out = self.rows[index], iter(self._computed[index]), []
            for column in self.columns:
                if column.position is None:
                    out.append(next(computed)[0])
                else:
                    out.append(shown_cell(row.cells[column.position], column.column))
            cells = self._shown[index] = tuple(out)
        return cells

    def sort_key(self, index: int, column: int) -> tuple[int, Any]:
        """Row `index`'s value in `column` to sort by: the model cell's (`Cell.sort_key`), or the view's own."""
        placed = self.columns[column]
        if placed.position is not None:
            return sort_value(self.rows[index].cells[placed.position].sort_key)
        own = sum(1 for c in self.columns[:column] if c.position is None)
        return sort_value(self._computed[index][own][1])

    @cached_property
    def _filter_texts(self) -> list[str]:
        return [" ".join(self._texts(i)).lower() for i in range(len(self.rows))]

    def matches(self, index: int, query: str) -> bool:
        """`/` filter: every word appears (case-insensitive); a word starting with `!` must not."""
        text = self._filter_texts[index]
        for word in query.lower().split():
            if word.startswith("!") and len(word) > 1:
                if word[1:] in text:
                    return False
            elif word not in text:
                return False
        return True

    @cached_property
    def _index(self) -> dict[int, int]:
        return {id(row): index for index, row in enumerate(self.rows)}

    def index_of(self, row: Row[Any]) -> int:
        """Where `row` (one of this grid's) is in `rows`."""
        return self._index[id(row)]

    def describe(self, row: Row[T], left_out: Collection[str] = ()) -> RenderableType:
        """The detail pane of `row`: the row's cells a line each (already safe); or the view's own, then the
        values of the columns a narrow terminal `left_out` (keys), so no value is out of reach."""
        if self.detail is None:
            return self._cells_text(row, lambda column: True)
        own = self.detail(row)
        if id(row) not in self._index or not any(column.key in left_out for column in self.columns):
            return own  # (a row of the rows before a refresh, announced late: its own detail only)
        rest = self._cells_text(row, lambda column: column.key in left_out)
        return Group(own, Text(""), Text("Not shown at this width:", style=theme.MUTED), rest)

    def _cells_text(self, row: Row[T], wanted: Callable[[GridColumn], bool]) -> Text:
        out = Text()
        index = self._index.get(id(row))
        if index is None:  # a row of the rows before a refresh, announced late: the new one follows
            return out
        for column, cell in zip(self.columns, self.shown(index), strict=True):
            if not wanted(column):
                continue
            out.append(f"{column.label}: ", style=theme.HEADER)
            out.append_text(cell if isinstance(cell, Text) else Text(cell))
            out.append("\n")
        out.rstrip()
        return out

    @cached_property
    def has_nodes(self) -> bool:
        """Some row is about a node (`space` marks it; `s` and `x` act on it)."""
        return any(row.node for row in self.rows)

    @cached_property
    def has_refs(self) -> bool:
        """Some row names a Kubernetes object (`y`, `e`)."""
        return any(row.ref is not None for row in self.rows)
