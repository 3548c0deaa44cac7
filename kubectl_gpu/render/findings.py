"""Findings, the two ways every view shows them, worst first as the report sorts them: a table, one row
each (diagnose, drivers, nvme, cost), and a block, the fix indented under each (lint, lifecycle)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.report import Finding
from kubectl_gpu.render import theme

__all__ = ["findings_block", "findings_table"]


def _first_lines(text: str | None, limit: int) -> str:
    """Up to three lines of `text` joined into one, cut at `limit` characters with an ellipsis."""
    if not text:
        return "-"
    line = " ".join(part.strip() for part in text.strip().splitlines()[:3])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def findings_table(
    findings: Iterable[Finding],
    *,
    title: str | None = None,
    clip: tuple[int, int] | None = None,
    fix_column: bool = True,
) -> Table:
    """SEVERITY, CODE, OBJECT, MESSAGE and FIX, one row per finding.

    `clip` = (message, fix) characters: each cut to one line of at most that many (`diagnose`, where the
    table is the whole output); None keeps the whole text, wrapped on a terminal. Without `fix_column` the
    fix goes under the message, as `fix: ...` (`cost`, whose table is already wide)."""
    columns = ["SEVERITY", "CODE", "OBJECT", "MESSAGE", *(["FIX"] if fix_column else [])]
    table = theme.table(columns, wrap=("MESSAGE", "FIX"), title=title)
    for finding in findings:
        message, fix = finding.message, finding.fix
        if clip is not None:
            message, fix = _first_lines(message, clip[0]), _first_lines(fix, clip[1])
        if not fix_column:
            message += f"\nfix: {fix}" if fix else ""
        table.add_row(
            Text(str(finding.severity), style=theme.severity(finding.severity)),
            finding.code,
            str(finding.object),
            message,
            *([fix or "-"] if fix_column else []),
        )
    return table


def findings_block(findings: Iterable[Finding]) -> Text:
    """Per finding: SEVERITY CODE OBJECT, the message indented under it, then `fix:` and its lines."""
    out = Text()
    for finding in findings:
        out.append(f"{finding.severity.value.upper():<8}", style=theme.severity(finding.severity))
        out.append(f"{finding.code}  ", style=theme.HEADER)
        out.append(f"{finding.object}\n")
        out.append(f"  {finding.message}\n")
        if finding.fix:
            first, *rest = finding.fix.splitlines()
            out.append(f"  fix: {first}\n", style=theme.FIX)
            for line in rest:
                out.append(f"       {line}\n", style=theme.FIX)
    out.rstrip()
    return out
