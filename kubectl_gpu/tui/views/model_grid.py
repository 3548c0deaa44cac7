"""The view model (`render.model`) as the TUI's grid: each view picks the model's columns by their key
(never by header text), says how wide each may grow, and may add columns of its own (a bar) computed from
the row's object. Cells keep the model's text (already made safe; a `brief` column's first sentence) and
sort by the model's values. Which columns a narrow terminal keeps is the model's `Column.priority` (a
view may say otherwise), and a code column (`Kind.CODE`) is shown whole or left out, never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import msgspec
from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.render import model
from kubectl_gpu.tui.widgets.grid import Cell, Column, Row, Table

__all__ = ["Fit", "grid_cell", "to_grid"]


class Fit(msgspec.Struct, frozen=True):
    """How the TUI lays out one column: the model's column `key`, or (with `compute`) one of its own."""

    key: str
    max_width: int = 64
    flex: bool = False
    min_width: int = 12
    #: a column of the TUI's own, from the model row: (what to show, what it sorts by)
    compute: Callable[[model.Row], tuple[Cell, object]] | None = None
    header: str = ""
    #: which columns stay when the terminal is narrow: lower first; None: the model column's `priority`
    #: (a column of the view's own: `Priority.USEFUL`), then the column's position
    priority: int | None = None
    #: when short of room, the column may be cut (at a word's end) down to this width; 0: never
    shrink: int = 0
    #: names (pods, workloads): a cell too long is cut where the room ends, not at a word
    names: bool = False


def grid_cell(cell: model.Cell, column: model.Column | None = None) -> Cell:
    """The cell as the grid shows it: in a `brief` column, its first sentence."""
    text = column.shown(cell) if column is not None else cell.text
    return Text(text, style=cell.style) if cell.style else text


def _priority(fit: Fit, column: model.Column | None) -> int:
    if fit.priority is not None:
        return fit.priority
    return column.priority if column is not None else model.Priority.USEFUL


def _fits(table: model.Table) -> list[Fit]:
    """Every column of the model, in its order; the first wrapping one takes the width left over."""
    flexed = False
    out = []
    for column in table.columns:
        flex = column.wrap and not flexed
        flexed = flexed or flex
        out.append(Fit(column.key, max_width=200 if flex else 64, flex=flex, min_width=20 if flex else 12))
    return out


def to_grid(
    table: model.Table | None,
    *,
    fits: Sequence[Fit] | None = None,
    detail: Callable[[model.Row], RenderableType] | None = None,
    empty: str = "Nothing to show.",
    key: Callable[[model.Row], str] | None = None,
) -> Table:
    """The grid of `table` (None: an empty one), its columns as `fits` lays them out (default: all)."""
    if table is None or (not table.rows and fits is None):
        first = fits[0] if fits else Fit("name")
        label = first.header or first.key.upper()
        return Table((Column(label),), (), empty=empty)
    layout = list(fits) if fits is not None else _fits(table)
    positions = [None if f.compute is not None else table.index(f.key) for f in layout]
    models = [table.columns[p] if p is not None else None for p in positions]
    columns = tuple(
        Column(
            f.header if m is None else m.header,
            flex=f.flex,
            min_width=f.min_width,
            max_width=f.max_width,
            right=m is not None and m.right,
            priority=_priority(f, m),
            shrink=f.shrink,
            names=f.names,
            whole=m is not None and m.kind == model.Kind.CODE,
            key=f.key,
        )
        for f, m in zip(layout, models, strict=True)
    )
    rows: list[Row] = []
    seen: set[str] = set()
    for index, row in enumerate(table.rows):
        cells: list[Cell] = []
        sort: list[object] = []
        for fit, position in zip(layout, positions, strict=True):
            if position is None:
                assert fit.compute is not None
                shown, value = fit.compute(row)
                cells.append(shown)
                sort.append(value)
            else:
                cell = row.cells[position]
                cells.append(grid_cell(cell, table.columns[position]))
                sort.append(cell.sort_key)
        name = key(row) if key is not None else row.key
        if name in seen:  # two rows of one object: keys stay unique
            name = f"{name}#{index}"
        seen.add(name)
        rows.append(
            Row(
                name,
                tuple(cells),
                sort=tuple(sort),
                ref=row.ref,
                node=row.node,
                detail=partial(detail, row) if detail is not None else None,
            )
        )
    return Table(columns, tuple(rows), empty=empty)
