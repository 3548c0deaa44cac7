"""Human view for `kubectl gpu lifecycle`: a node table, a pod table, survival answers, then findings."""

from __future__ import annotations

from datetime import datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.lifecycle.report import (
    Disruption,
    LifecycleReport,
    NodeLifecycle,
    PodLifecycle,
)
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_block

__all__ = ["lifecycle_view", "nodes_table", "pods_table"]


def _rel(at: datetime | None, now: datetime) -> str:
    if at is None:
        return "-"
    delta = at - now
    return "now" if delta.total_seconds() <= 0 else f"in {format_age(delta)}"


def _disruption(d: Disruption | None, now: datetime) -> str:
    if d is None:
        return "-"
    return f"{d.by} {_rel(d.at, now)}"


def _expires(life: NodeLifecycle, now: datetime) -> str:
    if life.expires_at is None:
        return "never" if life.expire_after.value == "Never" else "-"
    why = "21d cap" if life.expiry_reason == "maxLifetime" else f"expireAfter {life.expire_after.value}"
    if life.expire_after.source.endswith("default") and life.expiry_reason == "expireAfter":
        why += " (default)"
    return f"{_rel(life.expires_at, now)} ({why})"


def _allowed(life: NodeLifecycle, now: datetime) -> str:
    if life.budgets is None:
        return "?"
    parts = []
    for a in life.allowances:
        if a.reason == "Empty":
            continue
        short = "drift" if a.reason == "Drifted" else "consol"
        if a.now is None:
            parts.append(f"{short} any")
        elif a.now > 0:
            parts.append(f"{short} {a.now}")
        else:
            parts.append(f"{short} 0 ({_rel(a.next_at, now) if a.next_at else 'blocked'})")
    return ", ".join(parts)


def _dnd(life: NodeLifecycle, now: datetime) -> str:
    parts = []
    if life.node_do_not_disrupt is not None:
        parts.append(f"node={life.node_do_not_disrupt}")
    active = [p for p in life.protections if p.active_at(now)]
    if active:
        parts.append(f"{len(active)} pod(s)")
    return ", ".join(parts) or "-"


def nodes_table(report: LifecycleReport, *, wide: bool) -> Table:
    now = report.now
    columns = [
        "NODE",
        "NODEPOOL",
        "TYPE",
        "AGE",
        "EXPIRES",
        "DRIFTED",
        "ALLOWED NOW",
        "DND",
        "NEXT DISRUPTION",
    ]
    if wide:
        columns += ["TGP", "CONSOLIDATION", "BUDGETS", "CREATED"]
    table = theme.table(columns, wrap=("BUDGETS",))
    for life in report.nodes:
        drifted = "?" if life.drifted is None else (life.drift_reason or "yes") if life.drifted else "no"
        cells: list[str | Text] = [
            life.name,
            life.node_pool or "-",
            life.instance_type or "-",
            format_age(now - life.created) if life.created else "-",
            _expires(life, now),
            Text(drifted, style=theme.WARNING if life.drifted else ""),
            _allowed(life, now),
            _dnd(life, now),
            _disruption(life.next_disruption, now),
        ]
        if wide:
            budgets = "?"
            if life.budgets is not None:
                budgets = "; ".join(
                    s.spec.describe()
                    + (" [active]" if s.active else "")
                    + (" [INVALID]" if s.spec.error else "")
                    for s in life.budgets
                )
            cells += [
                life.termination_grace_period.value or "none",
                f"{life.consolidation_policy.value or '?'} after {life.consolidate_after.value or '?'}",
                budgets,
                life.created.isoformat().replace("+00:00", "Z") if life.created else "-",
            ]
        table.add_row(*cells)
    return table


def pods_table(report: LifecycleReport, *, wide: bool) -> Table:
    now = report.now
    survival = any(p.survival is not None for p in report.pods)
    columns = ["NAMESPACE", "POD", "NODE", "GPUS", "RUNNING", "DND", "NEXT DISRUPTION", "RISK"]
    if survival:
        columns.append("SURVIVES")
    if wide:
        columns.append("DETAIL")
    table = theme.table(columns, wrap=("DETAIL",))
    for pod in report.pods:
        nxt = pod.next_disruption
        cells: list[str | Text] = [
            pod.namespace,
            pod.name,
            pod.node,
            ",".join(f"{k.rpartition('/')[2]}={v}" for k, v in pod.requests.items()) or "-",
            format_age(now - pod.started) if pod.started else "-",
            _pod_dnd(pod, now),
            _disruption(nxt, now),
            Text(pod.risk, style=theme.RISK.get(pod.risk, "")),
        ]
        if survival:
            verdict = pod.survival.verdict if pod.survival else "-"
            cells.append(Text(verdict, style=theme.SURVIVAL.get(verdict, "")))
        if wide:
            cells.append(nxt.detail if nxt else "-")
        table.add_row(*cells)
    return table


def _pod_dnd(pod: PodLifecycle, now: datetime) -> str:
    p = pod.protection
    if p is None:
        return "-"
    if p.kind == "invalid":
        return f"{p.value} (ignored)"
    if p.kind == "permanent":
        return "true"
    return f"{p.value} ({'until ' + _rel(p.until, now) if p.active_at(now) else 'lapsed'})"


def lifecycle_view(report: LifecycleReport, *, wide: bool, include_all: bool = False) -> Group:
    if not report.nodes:
        where = "" if include_all else " with accelerators (use --all for every Karpenter node)"
        return Group(Text(f"No nodes{where}."))
    parts: list[RenderableType] = [nodes_table(report, wide=wide)]
    if report.pods:
        parts += [Text(""), pods_table(report, wide=wide)]
    for pod in report.pods:
        if pod.survival is None:
            continue
        s = pod.survival
        head = Text()
        head.append(f"\n{pod.namespace}/{pod.name} needs {s.needs} more (until ")
        head.append(f"{s.deadline.isoformat().replace('+00:00', 'Z')}): ")
        head.append(
            {"yes": "survives", "no": "will NOT survive", "at-risk": "at risk"}[s.verdict],
            style=theme.SURVIVAL.get(s.verdict, ""),
        )
        parts.append(head)
        parts += [Text(f"  - {reason}") for reason in s.reasons]
    for life in report.nodes:
        parts += [Text(f"note: {life.name}: {note}", style=theme.MUTED) for note in life.notes]
    if report.findings:
        parts += [Text(""), findings_block(report.findings)]
    return Group(*parts)
