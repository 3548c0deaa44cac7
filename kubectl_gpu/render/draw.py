"""The CLI's drawing of the view model: rich tables in the house style (`theme.table`), prose as rich
`Text` (never markup), and CSV.

The model's text is already safe (`render.safe`); rich is only told what to draw, and the console never
reads markup (`render.output.make_console`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Prose, Table, View

__all__ = ["csv_text", "rich_cell", "rich_prose", "rich_table", "rich_view"]


def rich_cell(cell: Cell, column: Column | None = None) -> Text:
    """Always a `Text`: a plain `str` cell is read as markup by a console that reads markup (Textual's).
    In a `brief` column, the text's first sentence (`Column.shown`)."""
    return Text(column.shown(cell) if column is not None else cell.text, style=cell.style)


def rich_prose(text: Prose) -> Text:
    out = Text()
    for span in text.spans:
        out.append(span.text, style=span.style or None)
    return out


def rich_table(table: Table[object]) -> RichTable:
    result = theme.table(show_header=table.show_header)
    result.title = Text(table.title, style=theme.HEADER) if table.title is not None else None  # never markup
    for column in table.columns:
        result.add_column(
            Text(column.header),
            no_wrap=not column.wrap,
            overflow=("fold" if column.fold else "ellipsis") if column.wrap else "ellipsis",
            style=column.style or None,
        )
    for row in table.rows:
        result.add_row(*[rich_cell(c, k) for c, k in zip(row.cells, table.columns, strict=False)])
    return result


def rich_view(view: View) -> RenderableType:
    parts: list[RenderableType] = [
        rich_table(part) if isinstance(part, Table) else rich_prose(part) for part in view.parts
    ]
    return parts[0] if len(parts) == 1 and isinstance(parts[0], Text) else Group(*parts)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """RFC 4180 CSV: a header row, then the rows; None is an empty field."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(["" if value is None else value for value in row] for row in rows)
    return buffer.getvalue()
