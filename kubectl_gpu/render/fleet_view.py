"""Fleet mode as a table: each cluster's own view, merged into one table per kind of table, with a CLUSTER
column first.

A command's view is a group of tables and lines of text. The fleet view takes the views of every cluster
(built by the same view functions as a single-cluster run), puts the rows of the tables that have the same
title and columns into one table, each row led by its cluster, in the order the tables first appear, and
then the lines of text, each led by its cluster (`prod: No nodes with accelerators.`). Blank lines only
separate; they are laid out again between the merged tables. Nothing is recomputed: a row is the row the
single-cluster table shows.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Column, Table
from rich.text import Text

from kubectl_gpu.render import theme
from kubectl_gpu.render.output import view_parts

__all__ = ["CLUSTER_COLUMN", "fleet_view"]

CLUSTER_COLUMN = "CLUSTER"


def _key(table: Table) -> tuple[str, tuple[str, ...]]:
    return (str(table.title or ""), tuple(str(c.header) for c in table.columns))


def _empty_like(table: Table) -> Table:
    """`table` without rows, with a CLUSTER column (one line) first."""
    merged = copy.copy(table)
    merged.rows = []
    merged.columns = [
        Column(CLUSTER_COLUMN, header_style=theme.HEADER, no_wrap=True, overflow="ellipsis"),
        *(copy.copy(c) for c in table.columns),
    ]
    for column in merged.columns:
        column._cells = []
    for index, column in enumerate(merged.columns):
        column._index = index
    return merged


def _add_rows(merged: Table, cluster: str, table: Table) -> None:
    for row_index, row in enumerate(table.rows):
        cells = [column._cells[row_index] for column in table.columns]
        merged.add_row(cluster, *cells, style=row.style, end_section=row.end_section)


def _texts(part: RenderableType) -> RenderableType | None:
    """A part that is not a table, without the blank lines around it; None for a blank line."""
    if isinstance(part, str):
        part = Text(part)
    if isinstance(part, Text):
        body = _strip_newlines(part)
        return body if body.plain.strip() else None
    return part


def _strip_newlines(text: Text) -> Text:
    """The text without the blank lines a view puts before a block (`\\nml/job needs ...`)."""
    while text.plain.startswith("\n"):
        text = text[1:]
    while text.plain.endswith("\n"):
        text = text[:-1]
    return text


def _cluster_lines(cluster: str, parts: list[RenderableType]) -> list[RenderableType]:
    """One-line texts each led by the cluster (`prod: 2 errors`); blocks (a finding per few lines) under
    a line that names the cluster."""
    if all(isinstance(p, Text) and "\n" not in p.plain for p in parts):
        return [Text(f"{cluster}: ", style=theme.HEADER).append_text(p) for p in parts if isinstance(p, Text)]
    return [Text(f"{cluster}:", style=theme.HEADER), *parts]


def fleet_view(views: Sequence[tuple[str, RenderableType]]) -> RenderableType:
    """One view of the fleet from each cluster's (name, view), in the order given."""
    tables: dict[tuple[str, tuple[str, ...]], Table] = {}
    lines: list[RenderableType] = []
    for cluster, view in views:
        texts: list[RenderableType] = []
        for part in view_parts(view):
            if isinstance(part, Table):
                key = _key(part)
                if key not in tables:
                    tables[key] = _empty_like(part)
                _add_rows(tables[key], cluster, part)
                continue
            text = _texts(part)
            if text is not None:
                texts.append(text)
        if texts:
            lines.extend(_cluster_lines(cluster, texts))
    parts: list[RenderableType] = []
    for table in tables.values():
        if parts:
            parts.append(Text(""))
        parts.append(table)
    if lines:
        if parts:
            parts.append(Text(""))
        parts.extend(lines)
    return Group(*parts)
