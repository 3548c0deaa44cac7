"""`kubectl gpu lint` as a view model: one block per finding, worst first, with the fix indented under it,
then a summary line."""

from __future__ import annotations

from kubectl_gpu.core.analyses.lint.analysis import LintReport
from kubectl_gpu.core.report import Severity
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_block
from kubectl_gpu.render.model import View, prose

__all__ = ["lint_view"]


def lint_view(report: LintReport, *, wide: bool) -> View:
    checked = f"{len(report.pools)} NodePool(s), {len(report.node_classes)} NodeClass(es)"
    if wide:
        gpu = [p.name for p in report.pools if p.gpu]
        training = [p.name for p in report.pools if p.training]
        checked += f"; GPU pools: {', '.join(gpu) or '-'}; training pools: {', '.join(training) or '-'}"
    if not report.pools and not report.node_classes and not report.findings:
        return View.sentence("No NodePools or NodeClasses to check.")
    if not report.findings:
        return View.sentence(f"No findings ({checked}).")
    counts = {s: sum(1 for f in report.findings if f.severity is s) for s in Severity}
    failing = report.exit_code() != 0
    summary = (
        f"{len(report.findings)} finding(s): {counts[Severity.ERROR]} error, {counts[Severity.WARNING]} warning, "
        f"{counts[Severity.INFO]} info; checked {checked}; --fail-on {report.fail_on.value}: "
        f"{'FAIL' if failing else 'pass'}"
    )
    return View.of([findings_block(report.findings), prose((summary, theme.ERROR if failing else ""))])
