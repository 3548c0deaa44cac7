"""`kubectl gpu diagnose` as a view model: every analysis's findings in one table, worst first."""

from __future__ import annotations

from kubectl_gpu.core.analyses.diagnose import DiagnoseReport
from kubectl_gpu.render.findings import findings_table
from kubectl_gpu.render.model import View, prose

__all__ = ["diagnose_view"]


def diagnose_view(report: DiagnoseReport, *, wide: bool) -> View:
    if not report.findings:
        return View.sentence(f"No findings ({', '.join(report.analyses)}).")
    counts = report.counts()
    summary = f"\n{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"
    clip = (400, 400) if wide else (110, 70)
    return View.of([findings_table(report.findings, clip=clip), prose(summary)])
