"""Fleet mode's view: each cluster's own view model, merged into one table per kind of table, with CLUSTER
as the model's first column.

The fleet view takes the views of every cluster (built by the same view functions as a single-cluster run),
puts the rows of the tables that have the same name and columns into one table, each row led by its
cluster, in the order the tables first appear, and then the lines of text, each led by its cluster
(`prod: No nodes with accelerators.`). Blank lines only separate; they are laid out again between the
merged tables. Nothing is recomputed: a row is the row the single-cluster table shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import msgspec

from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Part, Prose, Row, Span, Table, View, prose
from kubectl_gpu.render.safe import safe_line

__all__ = ["CLUSTER_COLUMN", "fleet_view"]

CLUSTER_COLUMN = Column("cluster", "CLUSTER")


def _key(table: Table[object]) -> tuple[str, str | None, tuple[str, ...]]:
    return (table.name, table.title, tuple(c.key for c in table.columns))


def _cluster_rows(cluster: str, table: Table[object]) -> list[Row[object]]:
    lead = Cell(cluster)
    return [replace(row, key=f"{cluster}/{row.key}", cells=(lead, *row.cells)) for row in table.rows]


def _strip_newlines(text: Prose) -> Prose | None:
    """The text without the blank lines a view puts before a block (`\\nml/job needs ...`); None when
    nothing is left."""
    plain = text.plain
    if not plain.strip():
        return None
    spans = list(text.spans)
    while spans and not spans[0].text.lstrip("\n"):
        spans.pop(0)
    while spans and not spans[-1].text.rstrip("\n"):
        spans.pop()
    spans[0] = Span(spans[0].text.lstrip("\n"), spans[0].style)
    spans[-1] = Span(spans[-1].text.rstrip("\n"), spans[-1].style)
    return Prose(tuple(spans), verbatim=text.verbatim)


def _cluster_lines(cluster: str, texts: list[Prose]) -> list[Part]:
    """One-line texts each led by the cluster (`prod: 2 findings: ...`); a block (the FIXES, a finding per
    few lines) under a line that names the cluster (a context's name is cluster text: one line, made safe)."""
    cluster = safe_line(cluster)
    lead = Span(f"{cluster}: ", theme.HEADER)
    parts: list[Part] = []
    for text in texts:
        if "\n" in text.plain:
            parts += [prose((f"{cluster}:", theme.HEADER)), text]
        else:
            parts.append(msgspec.structs.replace(text, spans=(lead, *text.spans)))
    return parts


def fleet_view(views: Sequence[tuple[str, View]]) -> View:
    """One view of the fleet from each cluster's (name, view), in the order given."""
    tables: dict[tuple[str, str | None, tuple[str, ...]], tuple[Table[object], list[Row[object]]]] = {}
    lines: list[Part] = []
    for cluster, view in views:
        texts: list[Prose] = []
        for part in view.parts:
            if isinstance(part, Table):
                key = _key(part)
                if key not in tables:
                    tables[key] = (part, [])
                tables[key][1].extend(_cluster_rows(cluster, part))
                continue
            text = _strip_newlines(part)
            if text is not None:
                texts.append(text)
        if texts:
            lines.extend(_cluster_lines(cluster, texts))
    parts: list[Part] = []
    for first, rows in tables.values():
        if parts:
            parts.append(prose(""))
        parts.append(replace(first, columns=(CLUSTER_COLUMN, *first.columns), rows=tuple(rows)))
    if lines:
        if parts:
            parts.append(prose(""))
        parts.extend(lines)
    return View.of(parts)
