"""A table of findings (diagnose, lint and friends), worst first."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.diagnose import DiagnoseReport
from kubectl_gpu.core.report import Finding, Severity

__all__ = ["diagnose_view", "findings_table"]

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _first_line(text: str | None, limit: int) -> str:
    if not text:
        return "-"
    line = " ".join(part.strip() for part in text.strip().splitlines()[:3])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def findings_table(findings: Iterable[Finding], *, wide: bool = False) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for column in ("SEVERITY", "CODE", "OBJECT", "MESSAGE", "FIX"):
        table.add_column(column, no_wrap=column in ("SEVERITY", "CODE", "OBJECT"), overflow="fold")
    limit = 400 if wide else 110
    for finding in findings:
        table.add_row(
            Text(str(finding.severity), style=_STYLE[finding.severity]),
            finding.code,
            str(finding.object),
            _first_line(finding.message, limit),
            _first_line(finding.fix, limit if wide else 70),
        )
    return table


def diagnose_view(report: DiagnoseReport, *, wide: bool) -> RenderableType:
    if not report.findings:
        return Text(f"No findings ({', '.join(report.analyses)}).")
    counts = report.counts()
    summary = f"\n{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"
    return Group(findings_table(report.findings, wide=wide), Text(summary))
