"""The CLI's own tables as TUI tables: every view shows the cells `kubectl gpu <command>` prints, built by the
same render functions, so the two front ends cannot drift apart.

`render/` returns rich `Table`s (often inside a `Group`); `tables_of` picks them out of a view and
`from_rich` turns one into a `grid.Table`, one `Row` per rich row, with the keys, object references and
detail panes the caller knows from the report (the render functions add rows in report order).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.tui.widgets.grid import Cell, Column, Row, Table

__all__ = [
    "RowMeta",
    "auto_sort",
    "from_rich",
    "make_row",
    "rich_rows",
    "table_titled",
    "tables_of",
    "texts_of",
]

_AGE = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_NUMBER = re.compile(r"^[$]?-?\d[\d,]*(?:\.\d+)?[*]?$")


def auto_sort(text: str) -> object:
    """How a cell sorts: numbers (`14`, `69.25*`, `$1.86`) and ages (`3d10h`, `5h20m`) by value."""
    plain = text.strip()
    if _NUMBER.match(plain):
        return float(plain.strip("$*").replace(",", ""))
    match = _AGE.match(plain)
    if match and plain:
        d, h, m, s = (int(g or 0) for g in match.groups())
        return float(((d * 24 + h) * 60 + m) * 60 + s)
    return plain


@dataclass(frozen=True, slots=True)
class RowMeta:
    """What the report knows about the object of row `i`: its key, reference, node and detail pane."""

    key: str
    ref: ObjectRef | None = None
    node: str | None = None
    detail: Callable[[], RenderableType] | None = None


def _flatten(view: RenderableType) -> list[RenderableType]:
    if isinstance(view, Group):
        return [part for child in view.renderables for part in _flatten(child)]
    return [view]


def tables_of(view: RenderableType) -> list[RichTable]:
    """The tables of a view, in order."""
    return [part for part in _flatten(view) if isinstance(part, RichTable)]


def texts_of(view: RenderableType) -> list[Text]:
    """The lines of text around a view's tables (notes, footnotes), empty ones dropped."""
    return [p for p in _flatten(view) if isinstance(p, Text) and p.plain.strip()]


def _cell(value: RenderableType) -> Cell:
    if isinstance(value, str | Text):
        return value
    return str(value)


def _label(header: RenderableType) -> str:
    return header.plain if isinstance(header, Text) else str(header)


def rich_rows(table: RichTable) -> list[dict[str, Cell]]:
    """The cells of each row of `table`, by column header."""
    labels = [_label(c.header) for c in table.columns]
    cells_by_column = [[_cell(v) for v in c.cells] for c in table.columns]
    count = max((len(cells) for cells in cells_by_column), default=0)
    return [
        {
            label: (cells[i] if i < len(cells) else "")
            for label, cells in zip(labels, cells_by_column, strict=True)
        }
        for i in range(count)
    ]


def make_row(cells: Sequence[Cell], info: RowMeta) -> Row:
    """A row whose cells sort by value (`auto_sort`)."""
    return Row(
        info.key,
        tuple(cells),
        sort=tuple(auto_sort(_plain(c)) for c in cells),
        ref=info.ref,
        node=info.node,
        detail=info.detail,
    )


def from_rich(
    table: RichTable,
    meta: Callable[[int], RowMeta] | None = None,
    *,
    flex: Sequence[str] = (),
    right: Sequence[str] = (),
    empty: str = "Nothing to show.",
) -> Table:
    """One `Row` per row of `table`; `meta(i)` names row i's object (default: its first cell is the key)."""
    labels = [_label(c.header) for c in table.columns]
    columns = tuple(Column(label, flex=label in flex, right=label in right) for label in labels)
    rows: list[Row] = []
    seen: set[str] = set()
    for index, by_label in enumerate(rich_rows(table)):
        cells = [by_label[label] for label in labels]
        info = meta(index) if meta is not None else RowMeta(_plain(cells[0]) if cells else str(index))
        if info.key in seen:  # two rows of one object (a TOTAL row, repeated names): keys stay unique
            info = RowMeta(f"{info.key}#{index}", info.ref, info.node, info.detail)
        seen.add(info.key)
        rows.append(make_row(cells, info))
    return Table(columns, tuple(rows), empty=empty)


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def table_titled(tables: Sequence[RichTable], title: str) -> RichTable | None:
    """The table whose title starts with `title` (the CLI titles its sections: NODES, FINDINGS, ...)."""
    return next((t for t in tables if isinstance(t.title, str) and t.title.startswith(title)), None)
