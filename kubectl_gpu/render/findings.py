"""Findings, the two ways every view shows them, worst first as the report sorts them: a table, one row
each (diagnose, drivers, nvme, cost), and a block, the fix indented under each (lint, lifecycle)."""

from __future__ import annotations

from collections.abc import Iterable

from kubectl_gpu.core.report import Finding
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, FindingItem, Kind, Prose, Row, Span, Table, finding_item

__all__ = ["findings_block", "findings_table"]

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def _first_lines(text: str | None, limit: int) -> str:
    """Up to three lines of `text` joined into one, cut at `limit` characters with an ellipsis."""
    if not text:
        return "-"
    line = " ".join(part.strip() for part in text.strip().splitlines()[:3])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _columns(fix_column: bool, source: bool) -> tuple[Column, ...]:
    columns = [
        Column("severity", "SEVERITY", Kind.SEVERITY),
        Column("code", "CODE", Kind.CODE),
        Column("object", "OBJECT"),
        *([Column("source", "SOURCE", Kind.CODE)] if source else []),
        Column("message", "MESSAGE", wrap=True),
    ]
    if fix_column:
        columns.append(Column("fix", "FIX", wrap=True))
    return tuple(columns)


def _row(index: int, item: FindingItem, clip: tuple[int, int] | None, fix_column: bool, source: bool) -> Row:
    message, fix = item.message, item.fix
    if clip is not None:
        message, fix = _first_lines(message, clip[0]), _first_lines(fix, clip[1])
    if not fix_column:
        message += f"\nfix: {fix}" if fix else ""
    cells = [
        Cell(item.severity, _SEVERITY_RANK.get(item.severity, 3), theme.severity(item.severity)),
        Cell(item.code),
        Cell(item.object),
        *([Cell(item.source.source or "-")] if source else []),
        Cell(message, block=True),
        *([Cell(fix or "-", block=True)] if fix_column else []),
    ]
    node = item.ref.name if item.ref.kind == "Node" else None  # where a debug pod would look
    return Row(f"{index}:{item.code}:{item.object}", tuple(cells), item.ref, node, item)


def findings_table(
    findings: Iterable[Finding],
    *,
    title: str | None = None,
    clip: tuple[int, int] | None = None,
    fix_column: bool = True,
    source: bool = False,
    name: str = "findings",
) -> Table:
    """SEVERITY, CODE, OBJECT, MESSAGE and FIX, one row per finding.

    `clip` = (message, fix) characters: each cut to one line of at most that many (`diagnose`, where the
    table is the whole output); None keeps the whole text, wrapped on a terminal. Without `fix_column` the
    fix goes under the message, as `fix: ...` (`cost`, whose table is already wide). `source`: a SOURCE
    column (the analysis that found it)."""
    rows = tuple(_row(i, finding_item(f), clip, fix_column, source) for i, f in enumerate(findings))
    return Table(name, _columns(fix_column, source), rows, title=title)


def findings_block(findings: Iterable[Finding]) -> Prose:
    """Per finding: SEVERITY CODE OBJECT, the message indented under it, then `fix:` and its lines."""
    spans: list[Span] = []
    for finding in findings:
        item = finding_item(finding)
        spans.append(Span(f"{item.severity.upper():<8}", theme.severity(item.severity)))
        spans.append(Span(f"{item.code}  ", theme.HEADER))
        spans.append(Span(f"{item.object}\n"))
        spans.append(Span(f"  {item.message}\n"))
        if item.fix:
            first, *rest = item.fix.splitlines()
            spans.append(Span(f"  fix: {first}\n", theme.FIX))
            spans.extend(Span(f"       {line}\n", theme.FIX) for line in rest)
    if spans:  # rich's Text.rstrip: no trailing newline
        last = spans[-1]
        spans[-1] = Span(last.text.rstrip(), last.style)
    return Prose(tuple(spans))
