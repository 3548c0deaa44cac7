"""The pods bound to one node (`core.accelerators.node_pods`), as a view model: who holds its accelerators
first (the first incident question), then the others. The TUI draws it when `enter` opens a node;
`kubectl gpu nodes NODE` prints it under the node's row and figures (`node_detail_view`)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import msgspec

from kubectl_gpu.core.accelerators.node_pods import NodePod, node_pods
from kubectl_gpu.core.accelerators.nodes import NodeRow
from kubectl_gpu.core.analyses.nodes import NodeDetailReport, NodeReport
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Row, Table, View, prose
from kubectl_gpu.render.nodes_table import health_problems, nodes_view
from kubectl_gpu.render.pools_view import figures_text
from kubectl_gpu.render.safe import safe_line

__all__ = [
    "COLUMNS",
    "NodeLine",
    "NodePod",
    "node_detail_view",
    "node_line",
    "node_pods",
    "node_pods_table",
    "node_pods_view",
    "owner_text",
    "pods_empty",
]

COLUMNS = (
    Column("namespace", "NAMESPACE"),
    Column("name", "NAME"),
    Column("accelerators", "ACCELERATORS", Kind.QUANTITY),
    Column("phase", "PHASE", Kind.CODE),
    Column("age", "AGE", Kind.AGE),
    Column("owner", "OWNER"),
)

_PHASE_STYLE = {
    "Running": theme.GOOD,
    "Pending": theme.WARNING,
    "Failed": theme.ERROR,
    "Unknown": theme.ERROR,
}


def owner_text(pod: Pod) -> str:
    """`Kind/name` of the controller that owns the pod, `-` for a bare pod."""
    meta = pod.meta
    return f"{meta.owner_kind}/{meta.owner_name}" if meta.owner_kind and meta.owner_name else "-"


def _n(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _accelerators(item: NodePod) -> Cell:
    if not item.accelerators:
        return Cell("-", 0, theme.MUTED)
    text = ",".join(f"{name} {_n(value)}" for name, value in sorted(item.accelerators.items()))
    return Cell(text, float(item.holds), theme.HEADER)


def _age(pod: Pod, now: datetime) -> Cell:
    created = pod.meta.created
    if created is None:
        return Cell("-", -1)
    age = now - created
    return Cell(format_age(age), age.total_seconds())


def _row(item: NodePod, node: str, now: datetime) -> Row[NodePod]:
    pod = item.pod
    phase = item.phase
    cells = (
        Cell(pod.namespace),
        Cell(pod.name),
        _accelerators(item),
        Cell(phase, style=_PHASE_STYLE.get(phase, "")),
        _age(pod, now),
        Cell(owner_text(pod)),
    )
    return Row(f"{pod.namespace}/{pod.name}", cells, ObjectRef("Pod", pod.name, pod.namespace), node, item)


def node_pods_table(state: ClusterState, node: str, now: datetime) -> Table[NodePod]:
    return pods_table(node_pods(state, node), node, now)


def pods_table(pods: tuple[NodePod, ...], node: str, now: datetime) -> Table[NodePod]:
    rows = tuple(_row(item, node, now) for item in pods)
    return Table("pods", COLUMNS, rows, title=f"Pods on node {node}")


def node_pods_view(state: ClusterState, node: str, now: datetime, *, unread: str | None = None) -> View:
    """The node's pods; `unread` (why the pods could not all be listed) says the list may be incomplete."""
    table = node_pods_table(state, node, now)
    if not table.rows:
        why = f" (the pods could not all be read: {unread})" if unread else ""
        return View.sentence(f"No pods on node {node}{why}.", theme.MUTED if not unread else theme.WARNING)
    return View.of([table])


def node_detail_view(report: NodeDetailReport, *, wide: bool, price_region: str | None = None) -> View:
    """`kubectl gpu nodes NODE`: the node's row as `nodes` prints it, its figures in words, its pods."""
    row = report.row
    head = nodes_view(NodeReport((row,), report.now), wide=wide, include_all=True, price_region=price_region)
    parts: list[Part] = [*head.parts, prose("")]
    if row.accelerator is not None:
        parts += [prose(("Accelerators: ", theme.HEADER), figures_text(row.parts)), prose("")]
    table = pods_table(report.pods, row.name, report.now)
    if table.rows:
        parts.append(table)
    else:
        why = f" (the pods could not all be read: {report.unread})" if report.unread else ""
        parts.append(prose((f"No pods on node {row.name}{why}.", theme.WARNING if why else theme.MUTED)))
    return View.of(parts)


class NodeLine(msgspec.Struct, frozen=True):
    """A node at a glance, its texts made safe (the TUI's node page draws them beside its bar)."""

    name: str
    model: (
        str | None
    )  # the accelerator model with its figures (`core.accelerators.parts`); None: no accelerator
    pool: str
    health: str  # "ok", or what is wrong, each named with its value
    healthy: bool


def node_line(row: NodeRow | None, name: str) -> NodeLine:
    """`row` (None: the node is gone) as the node page's first line says it."""
    if row is None:
        return NodeLine(safe_line(name), None, "", "", healthy=True)
    acc = row.accelerator
    figures = f"{safe_line(acc.model or '?')}: {figures_text(row.parts)}" if acc is not None else None
    problems = health_problems(row)
    health = safe_line(",".join(problems)) if problems else "ok"
    return NodeLine(safe_line(name), figures, safe_line(row.node_pool or "-"), health, healthy=not problems)


def pods_empty(node: str, unread: str | None) -> str:
    """The sentence a node page shows without pods (and why some may be missing)."""
    gap = f" (the pods could not all be read: {unread})" if unread else ""
    return safe_line(f"No pods on node {node}.{gap}")
