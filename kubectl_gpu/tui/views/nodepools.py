"""NodePools (`o`): each Karpenter / Auto Mode NodePool as it constrains GPU capacity: requirements, taints,
limits used of total, consolidation, expiry, and the disruption budgets in force now.

The facts are the NodePool objects themselves, their status (Karpenter's own count of what is used),
`core.karpenter.budgets` for the budgets now, `lint`'s findings, and the pools report for the nodes each
has launched (`kubectl gpu pools` lists their accelerator figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from rich.console import RenderableType

from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.quantity import format_quantity
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.safe import safe_line
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.model_grid import Fit, to_grid
from kubectl_gpu.tui.widgets.grid import Table

__all__ = ["NodePoolsView", "limits_text", "requirement_text"]


def _short(resource: str) -> str:
    return resource.rpartition("/")[2] if "/" in resource else resource


def _quantity(resource: str, value: Decimal) -> str:
    return format_quantity(value, binary=resource in ("memory", "ephemeral-storage"))


def _limits(limits: Mapping[str, Decimal], used: Mapping[str, Decimal]) -> list[tuple[str, str]]:
    """(text, style) per limit: what the pool has launched of it; red where none is left."""
    out = []
    for resource, limit in limits.items():
        taken = used.get(resource, Decimal(0))
        style = theme.ERROR if taken >= limit else theme.WARNING if taken >= limit * Decimal("0.8") else ""
        out.append((f"{_short(resource)} {_quantity(resource, taken)}/{_quantity(resource, limit)}", style))
    return out


def limits_text(limits: Mapping[str, Decimal], used: Mapping[str, Decimal]) -> model.Prose:
    """`gpu 8/8, cpu 192/1000`, each limit in its colour."""
    parts = _limits(limits, used)
    if not parts:
        return model.prose(("none", theme.MUTED))
    spans: list[str | tuple[str, str]] = []
    for index, part in enumerate(parts):
        spans += [", "] if index else []
        spans.append(part)
    return model.prose(*spans)


def limits_cell(limits: Mapping[str, Decimal], used: Mapping[str, Decimal]) -> model.Cell:
    """The limits as one cell, red when any is used up (a cell has one style)."""
    parts = _limits(limits, used)
    if not parts:
        return model.Cell("none", style=theme.MUTED)
    worst = next((s for s in (theme.ERROR, theme.WARNING) if any(p[1] == s for p in parts)), "")
    return model.Cell(", ".join(p[0] for p in parts), style=worst)


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


def _detail(snapshot: Refresh, pool: NodePool, nodes: int) -> RenderableType:
    ref = pool.node_class_ref
    requirements = "\n  ".join(safe_line(requirement_text(r)) for r in pool.requirements)
    budgets = "\n  ".join(
        safe_line(s.spec.describe() + (" [active]" if s.active else ""))
        for s in PoolBudgets(pool.budgets).states(snapshot.now)
    )
    head = lines(
        [
            ("NodePool", (pool.name, theme.HEADER)),
            ("NodeClass", f"{ref.kind} {ref.name}" if ref else "none"),
            ("Nodes", nodes),
            ("Limits", limits_text(pool.limits, pool.status_resources)),
            ("Requirements", model.prose("\n  " + requirements) if requirements else None),
            ("Taints", ", ".join(f"{t.key}={t.value}:{t.effect}" for t in pool.taints) or "none"),
            ("Budgets", model.prose("\n  " + budgets) if budgets else None),
            ("Weight", pool.weight),
        ]
    )
    return findings_detail(head, snapshot.findings_for(ObjectRef("NodePool", pool.name)))


COLUMNS = (
    model.Column("name", "NAME"),
    model.Column("nodes", "NODES", model.Kind.COUNT),
    model.Column("limits", "LIMITS USED/TOTAL", model.Kind.QUANTITY),
    model.Column("consolidation", "CONSOLIDATION"),
    model.Column("expire", "EXPIRE"),
    model.Column("budgets", "BUDGETS NOW"),
    model.Column("taints", "TAINTS"),
    model.Column("requirements", "REQUIREMENTS", wrap=True),
)
FITS = (
    Fit("name", max_width=32),
    Fit("nodes"),
    Fit("limits", max_width=40),
    Fit("consolidation", max_width=34),
    Fit("expire"),
    Fit("budgets", max_width=40),
    Fit("taints", max_width=40),
    Fit("requirements", flex=True, min_width=20, max_width=240),
)


def _row(snapshot: Refresh, pool: NodePool, nodes: int) -> model.Row:
    policy = pool.consolidation_policy or "-"
    after = f" after {pool.consolidate_after}" if pool.consolidate_after else ""
    taints = ", ".join(f"{t.key}:{t.effect}" for t in pool.taints) or "-"
    requirements = "; ".join(requirement_text(r) for r in pool.requirements) or "-"
    cells = (
        model.Cell(pool.name),
        model.Cell(str(nodes), nodes),
        limits_cell(pool.limits, pool.status_resources),
        model.Cell(policy + after),
        model.Cell(pool.expire_after or "-"),
        model.Cell(_budgets_now(pool, snapshot.now, nodes)),
        model.Cell(taints),
        model.Cell(requirements),
    )
    return model.Row(pool.name, cells, ObjectRef("NodePool", pool.name), None, (pool, nodes))


def build_nodepools(snapshot: Refresh) -> Table:
    state = snapshot.state
    counts = snapshot.pools.all_nodes  # the pools report's (`kubectl gpu pools`)
    gpu = {p.name for p in snapshot.lint.pools if p.gpu}
    pools = sorted(state.nodepools, key=lambda p: (p.name not in gpu, p.name))  # GPU pools first
    by_name = {p.name: p for p in pools}
    table = model.Table("nodepools", COLUMNS, tuple(_row(snapshot, p, counts.get(p.name, 0)) for p in pools))
    empty = "No NodePools: a static cluster (no Karpenter, no EKS Auto Mode)."
    if "nodepools" in state.absent:
        empty = "No NodePools: the NodePool CRD is not installed (no Karpenter, no EKS Auto Mode)."
    return to_grid(
        table,
        fits=FITS,
        detail=lambda row: _detail(snapshot, by_name[row.key], counts.get(row.key, 0)),
        empty=empty,
    )


class NodePoolsView(TableView):
    view_id = "nodepools"
    title = "NodePools"
    key = "o"
    footer = "Pools"
    SECTIONS = ("NodePools",)

    @staticmethod
    def build(snapshot: Refresh) -> ViewModel:
        return ViewModel((Section("NodePools", build_nodepools(snapshot)),))
