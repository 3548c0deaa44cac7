"""`kubectl gpu diagnose` as a view model: every analysis's findings in one table, worst first, the fixes
under it, then the summary line."""

from __future__ import annotations

from kubectl_gpu.core.analyses.diagnose import DiagnoseReport
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import View

__all__ = ["diagnose_view"]


def diagnose_view(report: DiagnoseReport, *, wide: bool) -> View:
    """`wide` changes nothing: the messages and fixes are always whole."""
    if not report.findings:
        return View.sentence(f"No findings ({', '.join(report.analyses)}).")
    return View.of(findings_parts(report.findings))
