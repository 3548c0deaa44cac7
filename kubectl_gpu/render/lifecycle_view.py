"""`kubectl gpu lifecycle` as a view model: a node table, a pod table, survival answers, then findings."""

from __future__ import annotations

from datetime import datetime

from kubectl_gpu.core.analyses.lifecycle.report import (
    Disruption,
    LifecycleReport,
    NodeLifecycle,
    PodLifecycle,
)
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Row, Span, Table, View, prose
from kubectl_gpu.render.safe import safe_line

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


#: narrow, a node keeps when it expires and what disrupts it next (the page's answer); a pod its risk
NODE_COLUMNS = (
    Column("node", "NODE", priority=Priority.NAME),
    Column("nodepool", "NODEPOOL", priority=Priority.EXTRA),
    Column("type", "TYPE", priority=Priority.EXTRA),
    Column("age", "AGE", Kind.AGE, priority=Priority.EXTRA),
    Column("expires", "EXPIRES", priority=Priority.ANSWER),
    Column("drifted", "DRIFTED", Kind.CODE),
    Column("allowed", "ALLOWED NOW"),
    Column("dnd", "DND"),
    Column("next", "NEXT DISRUPTION", priority=Priority.ANSWER),
    Column("tgp", "TGP", wide=True),
    Column("consolidation", "CONSOLIDATION", wide=True),
    Column("budgets", "BUDGETS", wide=True, wrap=True),
    Column("created", "CREATED", wide=True),
)


def _since(at: datetime | None, now: datetime) -> Cell:
    if at is None:
        return Cell("-", -1)
    return Cell(format_age(now - at), (now - at).total_seconds())


def _until(at: datetime | None, now: datetime, text: str) -> Cell:
    """A time to come, sorting soonest first (unknown last)."""
    return Cell(text, (at - now).total_seconds() if at is not None else float("inf"))


def _budgets(life: NodeLifecycle) -> str:
    if life.budgets is None:
        return "?"
    return "; ".join(
        s.spec.describe() + (" [active]" if s.active else "") + (" [INVALID]" if s.spec.error else "")
        for s in life.budgets
    )


def _node_row(life: NodeLifecycle, now: datetime, wide: bool) -> Row[NodeLifecycle]:
    drifted = "?" if life.drifted is None else (life.drift_reason or "yes") if life.drifted else "no"
    nxt = life.next_disruption
    cells = [
        Cell(life.name),
        Cell(life.node_pool or "-"),
        Cell(life.instance_type or "-"),
        _since(life.created, now),
        _until(life.expires_at, now, _expires(life, now)),
        Cell(drifted, style=theme.WARNING if life.drifted else ""),
        Cell(_allowed(life, now)),
        Cell(_dnd(life, now)),
        _until(nxt.at if nxt else None, now, _disruption(nxt, now)),
    ]
    if wide:
        cells += [
            Cell(life.termination_grace_period.value or "none"),
            Cell(
                "never (static pool)"  # spec.replicas: Karpenter never consolidates it
                if life.consolidation_policy.source == "static-nodepool"
                else f"{life.consolidation_policy.value or '?'} after {life.consolidate_after.value or '?'}"
            ),
            Cell(_budgets(life)),
            Cell(life.created.isoformat().replace("+00:00", "Z") if life.created else "-"),
        ]
    return Row(life.name, tuple(cells), ObjectRef("Node", life.name), life.name, life)


def nodes_table(report: LifecycleReport, *, wide: bool) -> Table[NodeLifecycle]:
    columns = tuple(c for c in NODE_COLUMNS if wide or not c.wide)
    return Table("nodes", columns, tuple(_node_row(n, report.now, wide) for n in report.nodes))


POD_COLUMNS = (
    Column("namespace", "NAMESPACE", priority=Priority.EXTRA),
    Column("pod", "POD", priority=Priority.NAME),
    Column("node", "NODE"),
    Column("gpus", "GPUS", priority=Priority.EXTRA),
    Column("running", "RUNNING", Kind.AGE, priority=Priority.EXTRA),
    Column("dnd", "DND"),
    Column("next", "NEXT DISRUPTION", priority=Priority.ANSWER),
    Column("risk", "RISK", Kind.CODE, priority=Priority.ANSWER),
    Column("survives", "SURVIVES", Kind.CODE, priority=Priority.ANSWER),
    Column("detail", "DETAIL", wide=True, wrap=True, brief=True),
)
_RISK_RANK = {"high": 0, "medium": 1, "low": 2}


def _pod_row(pod: PodLifecycle, now: datetime, survival: bool, wide: bool) -> Row[PodLifecycle]:
    nxt = pod.next_disruption
    cells = [
        Cell(pod.namespace),
        Cell(pod.name),
        Cell(pod.node),
        Cell(",".join(f"{k.rpartition('/')[2]}={v}" for k, v in pod.requests.items()) or "-"),
        _since(pod.started, now),
        Cell(_pod_dnd(pod, now)),
        _until(nxt.at if nxt else None, now, _disruption(nxt, now)),
        Cell(pod.risk, _RISK_RANK.get(pod.risk, 3), theme.RISK.get(pod.risk, "")),
    ]
    if survival:
        verdict = pod.survival.verdict if pod.survival else "-"
        cells.append(Cell(verdict, style=theme.SURVIVAL.get(verdict, "")))
    if wide:
        cells.append(Cell(nxt.detail if nxt else "-"))
    ref = ObjectRef("Pod", pod.name, pod.namespace)
    return Row(f"{pod.namespace}/{pod.name}", tuple(cells), ref, pod.node, pod)


def pods_table(report: LifecycleReport, *, wide: bool) -> Table[PodLifecycle]:
    survival = any(p.survival is not None for p in report.pods)
    columns = tuple(c for c in POD_COLUMNS if (wide or not c.wide) and (survival or c.key != "survives"))
    rows = tuple(_pod_row(p, report.now, survival, wide) for p in report.pods)
    return Table("pods", columns, rows)


def _pod_dnd(pod: PodLifecycle, now: datetime) -> str:
    p = pod.protection
    if p is None:
        return "-"
    if p.kind == "invalid":
        return f"{p.value} (ignored)"
    if p.kind == "permanent":
        return "true"
    return f"{p.value} ({'until ' + _rel(p.until, now) if p.active_at(now) else 'lapsed'})"


def _survival(pod: PodLifecycle) -> list[Part]:
    s = pod.survival
    if s is None:
        return []
    verdict = {"yes": "survives", "no": "will NOT survive", "at-risk": "at risk"}[s.verdict]
    head = prose(
        Span(f"\n{pod.namespace}/{pod.name} needs {s.needs} more (until "),
        Span(f"{s.deadline.isoformat().replace('+00:00', 'Z')}): "),
        Span(verdict, theme.SURVIVAL.get(s.verdict, "")),
    )
    return [head, *(prose(f"  - {safe_line(reason)}") for reason in s.reasons)]


def lifecycle_view(report: LifecycleReport, *, wide: bool, include_all: bool = False) -> View:
    if not report.nodes:
        where = "" if include_all else " with accelerators (use --all for every Karpenter node)"
        return View.sentence(f"No nodes{where}.")
    parts: list[Part] = [nodes_table(report, wide=wide)]
    if report.pods:
        parts += [prose(""), pods_table(report, wide=wide)]
    for pod in report.pods:
        parts += _survival(pod)
    for life in report.nodes:
        parts += [prose((f"note: {life.name}: {safe_line(note)}", theme.MUTED)) for note in life.notes]
    if report.findings:
        parts += [prose(""), *findings_parts(report.findings, title="FINDINGS")]
    return View.of(parts)
