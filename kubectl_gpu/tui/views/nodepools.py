"""NodePools (`o`): each Karpenter / Auto Mode NodePool as it constrains GPU capacity: requirements, taints,
limits used of total, consolidation, expiry, and the disruption budgets in force now.

No CLI command lists NodePools; the facts are the NodePool objects themselves, their status (Karpenter's
own count of what is used), `core.karpenter.budgets` for the budgets now, and `lint`'s findings.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.quantity import format_quantity
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.convert import RowMeta, make_row
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["NodePoolsView", "limits_text", "requirement_text"]

COLUMNS = (
    Column("NAME", max_width=32),
    Column("NODES", right=True),
    Column("LIMITS USED/TOTAL", max_width=40),
    Column("CONSOLIDATION", max_width=34),
    Column("EXPIRE"),
    Column("BUDGETS NOW", max_width=40),
    Column("TAINTS", max_width=40),
    Column("REQUIREMENTS", flex=True, min_width=20, max_width=240),
)


def _short(resource: str) -> str:
    return resource.rpartition("/")[2] if "/" in resource else resource


def _quantity(resource: str, value: Decimal) -> str:
    return format_quantity(value, binary=resource in ("memory", "ephemeral-storage"))


def limits_text(limits: Mapping[str, Decimal], used: Mapping[str, Decimal]) -> Text:
    """`gpu 8/8, cpu 192/1000`: what the pool has launched of each limit; red where none is left."""
    out = Text()
    for index, (resource, limit) in enumerate(limits.items()):
        taken = used.get(resource, Decimal(0))
        if index:
            out.append(", ")
        style = theme.ERROR if taken >= limit else theme.WARNING if taken >= limit * Decimal("0.8") else ""
        out.append(
            f"{_short(resource)} {_quantity(resource, taken)}/{_quantity(resource, limit)}", style=style
        )
    return out if limits else Text("none", style=theme.MUTED)


def requirement_text(req: Mapping[str, Any]) -> str:
    """`key In [a, b]`, as the NodePool writes it (`minValues` too)."""
    values = req.get("values") or []
    shown = f" [{', '.join(str(v) for v in values)}]" if values else ""
    minimum = f" (minValues {req['minValues']})" if req.get("minValues") is not None else ""
    return f"{req.get('key', '?')} {req.get('operator', '?')}{shown}{minimum}"


def _budgets_now(pool: NodePool, now: datetime, nodes: int) -> str:
    """Each budget's disruptions allowed now (its reasons), as Karpenter counts them for this many nodes."""
    budgets = PoolBudgets(pool.budgets)
    if budgets.errors:
        return "INVALID: " + "; ".join(s.error or "" for s in budgets.errors)
    parts = []
    for state in budgets.states(now):
        reasons = ",".join(state.spec.budget.reasons) or "all"
        if state.active:
            parts.append(f"{reasons} {state.spec.scaled(nodes)}")
        else:
            parts.append(f"{reasons} (inactive)")
    return "; ".join(parts) + (" (default)" if budgets.defaulted else "")


def _detail(snapshot: Snapshot, pool: NodePool, nodes: int) -> RenderableType:
    ref = pool.node_class_ref
    requirements = "\n  ".join(requirement_text(r) for r in pool.requirements)
    budgets = "\n  ".join(
        s.spec.describe() + (" [active]" if s.active else "")
        for s in PoolBudgets(pool.budgets).states(snapshot.now)
    )
    head = lines(
        [
            ("NodePool", Text(pool.name, style=theme.HEADER)),
            ("NodeClass", f"{ref.kind} {ref.name}" if ref else "none"),
            ("Nodes", nodes),
            ("Limits", limits_text(pool.limits, pool.status_resources)),
            ("Requirements", "\n  " + requirements if requirements else None),
            ("Taints", ", ".join(f"{t.key}={t.value}:{t.effect}" for t in pool.taints) or "none"),
            ("Budgets", "\n  " + budgets if budgets else None),
            ("Weight", pool.weight),
        ]
    )
    return findings_detail(head, snapshot.findings_for(ObjectRef("NodePool", pool.name)))


def _row(snapshot: Snapshot, pool: NodePool, nodes: int) -> list[Text | str]:
    policy = pool.consolidation_policy or "-"
    after = f" after {pool.consolidate_after}" if pool.consolidate_after else ""
    taints = ", ".join(f"{t.key}:{t.effect}" for t in pool.taints) or "-"
    requirements = "; ".join(requirement_text(r) for r in pool.requirements) or "-"
    return [
        pool.name,
        str(nodes),
        limits_text(pool.limits, pool.status_resources),
        policy + after,
        pool.expire_after or "-",
        _budgets_now(pool, snapshot.now, nodes),
        taints,
        requirements,
    ]


def build_nodepools(snapshot: Snapshot) -> Table:
    state = snapshot.state
    counts: dict[str, int] = {}
    for node in state.nodes:
        name = node.labels.get("karpenter.sh/nodepool")
        if name:
            counts[name] = counts.get(name, 0) + 1
    gpu = {p.name for p in snapshot.lint.pools if p.gpu}
    rows = []
    for pool in sorted(state.nodepools, key=lambda p: (p.name not in gpu, p.name)):  # GPU pools first
        nodes = counts.get(pool.name, 0)
        meta = RowMeta(
            pool.name, ObjectRef("NodePool", pool.name), None, partial(_detail, snapshot, pool, nodes)
        )
        rows.append(make_row(_row(snapshot, pool, nodes), meta))
    empty = "No NodePools: a static cluster (no Karpenter, no EKS Auto Mode)."
    if "nodepools" in state.absent:
        empty = "No NodePools: the NodePool CRD is not installed (no Karpenter, no EKS Auto Mode)."
    return Table(COLUMNS, tuple(rows), empty=empty)


class NodePoolsView(TableView):
    view_id = "nodepools"
    title = "NodePools"
    key = "o"
    footer = "Pools"
    SECTIONS = ("NodePools",)

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        return ViewModel((Section("NodePools", build_nodepools(snapshot)),))
