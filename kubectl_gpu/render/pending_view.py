"""Human views for `kubectl gpu pending` (a table, worst first) and `kubectl gpu explain` (target by target)."""

from __future__ import annotations

from decimal import Decimal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.pending.report import PendingReport, PodDiagnosis
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.render import theme

__all__ = ["explain_view", "pending_table", "pending_view"]


def _requests(diag: PodDiagnosis) -> str:
    def num(v: Decimal) -> str:
        return str(int(v)) if v == v.to_integral_value() else str(v.normalize())

    parts = [f"{k}={num(v)}" for k, v in diag.requests.items() if k not in ("cpu", "memory")]
    return ",".join(parts) or "-"


def _one_line(text: str | None, limit: int = 90) -> str:
    if not text:
        return "-"
    first = text.strip().splitlines()[0]
    if text.strip().startswith(("tolerations:", "nodeSelector:")):
        first = " ".join(line.strip() for line in text.strip().splitlines())
    return first if len(first) <= limit else first[: limit - 1] + "…"


def pending_table(report: PendingReport, *, wide: bool) -> Table:
    columns = ["NAMESPACE", "POD", "REQUEST", "VERDICT", "NEAREST", "REASON", "FIX"]
    if wide:
        columns.insert(6, "AGE")
    table = theme.table(columns, wrap=("REASON", "FIX"))
    for diag in report.pods:
        nearest = f"{diag.nearest.kind.lower()}/{diag.nearest.name}" if diag.nearest else "-"
        cells: list[RenderableType] = [
            diag.namespace,
            diag.name,
            _requests(diag),
            Text(str(diag.verdict), style=theme.pending_verdict(diag.verdict)),
            nearest,
            _one_line(diag.reason, 110 if wide else 80),
        ]
        if wide:
            cells.append(format_age(report.now - diag.created) if diag.created else "-")
        cells.append(_one_line(diag.fix, 110 if wide else 60))
        table.add_row(*cells)
    return table


def _mark(ok: bool | None) -> Text:
    return Text("?" if ok is None else "ok" if ok else "NO", style=theme.check_style(ok))


def explain_view(diag: PodDiagnosis) -> Group:
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"Pod {diag.namespace}/{diag.name}", style=theme.HEADER)
    head.append(f"  requests {_requests(diag)}\n")
    head.append("Verdict: ")
    head.append(str(diag.verdict), style=theme.pending_verdict(diag.verdict))
    if diag.nearest:
        head.append(f"  (nearest: {diag.nearest.kind} {diag.nearest.name})")
    head.append(f"\n{diag.reason}\n")
    parts.append(head)
    for evaluation in diag.evaluations:
        title = f"{evaluation.target.kind} {evaluation.target.name}"
        if not evaluation.offers:
            title += "  (cannot offer the requested accelerator)"
        table = theme.table(title=title, show_header=False)
        table.add_column("check", style=theme.HEADER, no_wrap=True)
        table.add_column("ok", no_wrap=True)
        table.add_column("detail", overflow="fold")
        for check in evaluation.checks:
            table.add_row(check.name, _mark(check.ok), check.detail)
        parts.append(table)
        parts.append(Text(""))
    if diag.evidence:
        columns = ("SOURCE", "REASON", "COUNT", "LAST SEEN", "MESSAGE")
        events = theme.table(columns, wrap=("MESSAGE",), title="Events")
        for ev in diag.evidence:
            seen = ev.last_seen.isoformat().replace("+00:00", "Z") if ev.last_seen else "-"
            events.add_row(ev.source, ev.reason, str(ev.count), seen, ev.message)
        parts.append(events)
    else:
        parts.append(Text("Events: none recorded for this pod", style=theme.MUTED))
    for line in diag.disagreements:
        parts.append(Text(f"Disagreement: {line}", style=theme.WARNING))
    for note in diag.notes:
        parts.append(Text(f"Note: {note}", style=theme.MUTED))
    if diag.fix:
        parts.append(Text("\nFix:", style=theme.HEADER))
        parts.append(Text(diag.fix))
    tried = diag.fix_check  # the fix made on a copy of the cluster and the pod evaluated again
    # A YAML comment: the fix above it stays pasteable as it is.
    if tried is not None and tried.after is not None and tried.verified is not None:
        mark = "verified" if tried.verified else "does not remove the blocker"
        parts.append(Text(f"# {mark} ({tried.change}): {tried.after.text()}", style=theme.MUTED))
    elif tried is not None:
        parts.append(Text(f"# not verified: {tried.change}", style=theme.MUTED))
    return Group(*parts)


def pending_view(report: PendingReport, *, wide: bool, all_pending: bool = False) -> RenderableType:
    if not report.pods:
        scope = "Pending pods" if all_pending else "Pending pods requesting accelerators"
        if report.pods_unlisted is not None:  # forbidden: "none" would be a guess
            return Text(f"Pods could not be listed (forbidden): whether there are {scope} is unknown.")
        return Text(f"No {scope}.")
    return pending_table(report, wide=wide)
