"""Human view for `kubectl gpu lint` (and the findings block `lifecycle` prints): one block per finding,
worst first, with the fix indented under it."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.text import Text

from kubectl_gpu.core.analyses.lint.analysis import LintReport
from kubectl_gpu.core.report import Finding, Severity

__all__ = ["findings_text", "lint_view"]

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def findings_text(findings: Iterable[Finding], *, trailing_newline: bool = True) -> Text:
    out = Text()
    for finding in findings:
        out.append(f"{finding.severity.value.upper():<8}", style=_STYLE[finding.severity])
        out.append(f"{finding.code}  ", style="bold")
        out.append(f"{finding.object}\n")
        out.append(f"  {finding.message}\n")
        if finding.fix:
            lines = finding.fix.splitlines()
            out.append(f"  fix: {lines[0]}\n", style="green")
            for line in lines[1:]:
                out.append(f"       {line}\n", style="green")
    if not trailing_newline:
        out.rstrip()
    return out


def lint_view(report: LintReport, *, wide: bool) -> Group:
    checked = f"{len(report.pools)} NodePool(s), {len(report.node_classes)} NodeClass(es)"
    if wide:
        gpu = [p.name for p in report.pools if p.gpu]
        training = [p.name for p in report.pools if p.training]
        checked += f"; GPU pools: {', '.join(gpu) or '-'}; training pools: {', '.join(training) or '-'}"
    if not report.pools and not report.node_classes:
        return Group(Text("No NodePools or NodeClasses to check."))
    if not report.findings:
        return Group(Text(f"No findings ({checked})."))
    counts = {s: sum(1 for f in report.findings if f.severity is s) for s in Severity}
    failing = report.exit_code() != 0
    summary = (
        f"{len(report.findings)} finding(s): {counts[Severity.ERROR]} error, {counts[Severity.WARNING]} warning, "
        f"{counts[Severity.INFO]} info; checked {checked}; --fail-on {report.fail_on.value}: "
        f"{'FAIL' if failing else 'pass'}"
    )
    return Group(
        findings_text(report.findings, trailing_newline=False),
        Text(summary, style="bold red" if failing else ""),
    )
