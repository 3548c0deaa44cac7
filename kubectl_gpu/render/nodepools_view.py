"""The NodePools view as a view model: each Karpenter / Auto Mode NodePool as it constrains GPU capacity
(requirements, taints, limits used of total, consolidation, expiry, the disruption budgets in force now),
and its detail lines. The facts are the NodePool objects, their status (Karpenter's own count of what is
used) and `core.karpenter.budgets`; the node counts are the pools report's (`kubectl gpu pools`). Every text
is made safe here (the view model's constructors), so the TUI draws it as it is."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.quantity import format_quantity
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.safe import safe_line

__all__ = [
    "COLUMNS",
    "budgets_now",
    "budgets_prose",
    "limits_cell",
    "limits_text",
    "nodepool_row",
    "requirement_text",
    "requirements_prose",
]


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


def budgets_now(pool: NodePool, now: datetime, nodes: int) -> str:
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


def nodepool_row(pool: NodePool, nodes: int, now: datetime) -> model.Row[tuple[NodePool, int]]:
    """One NodePool's row; `obj` is (the pool, its node count)."""
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
        model.Cell(budgets_now(pool, now, nodes)),
        model.Cell(taints),
        model.Cell(requirements),
    )
    return model.Row(pool.name, cells, ObjectRef("NodePool", pool.name), None, (pool, nodes))


def requirements_prose(pool: NodePool) -> model.Prose | None:
    """The pool's requirements, one a line (each one line, made safe), for a detail pane."""
    lines = [safe_line(requirement_text(r)) for r in pool.requirements]
    return model.prose("\n  " + "\n  ".join(lines)) if lines else None


def budgets_prose(pool: NodePool, now: datetime) -> model.Prose | None:
    """Each disruption budget as the NodePool writes it, `[active]` when in force at `now`."""
    lines = [
        safe_line(s.spec.describe() + (" [active]" if s.active else ""))
        for s in PoolBudgets(pool.budgets).states(now)
    ]
    return model.prose("\n  " + "\n  ".join(lines)) if lines else None
