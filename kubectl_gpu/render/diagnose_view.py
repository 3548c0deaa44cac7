"""Human view for `kubectl gpu diagnose`: every analysis's findings in one table, worst first."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.diagnose import DiagnoseReport
from kubectl_gpu.render.findings import findings_table

__all__ = ["diagnose_view"]


def diagnose_view(report: DiagnoseReport, *, wide: bool) -> RenderableType:
    if not report.findings:
        return Text(f"No findings ({', '.join(report.analyses)}).")
    counts = report.counts()
    summary = f"\n{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"
    clip = (400, 400) if wide else (110, 70)
    return Group(findings_table(report.findings, clip=clip), Text(summary))
