"""`kubectl gpu lint` as a view model: the findings table, worst first, the fixes under it, then the summary
line with what was checked and whether --fail-on fails."""

from __future__ import annotations

from kubectl_gpu.core.analyses.lint.analysis import LintReport
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_parts, plural, summary_spans
from kubectl_gpu.render.model import View, prose

__all__ = ["lint_view"]


def lint_view(report: LintReport, *, wide: bool) -> View:
    classes = plural(len(report.node_classes), "NodeClass", "NodeClasses")
    checked = f"{plural(len(report.pools), 'NodePool')}, {classes}"
    if wide:
        gpu = [p.name for p in report.pools if p.gpu]
        training = [p.name for p in report.pools if p.training]
        checked += f"; GPU pools: {', '.join(gpu) or '-'}; training pools: {', '.join(training) or '-'}"
    if not report.pools and not report.node_classes and not report.findings:
        return View.sentence("No NodePools or NodeClasses to check.")
    if not report.findings:
        return View.sentence(f"No findings ({checked}).")
    failing = report.exit_code() != 0
    verdict = f"; checked {checked}; --fail-on {report.fail_on.value}: {'FAIL' if failing else 'pass'}"
    line = prose(*summary_spans(report.findings), (verdict, theme.ERROR if failing else ""))
    return View.of(findings_parts(report.findings, summary=line))
