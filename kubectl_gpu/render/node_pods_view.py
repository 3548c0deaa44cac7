"""The pods bound to one node, as a view model: who holds its accelerators first (the first incident
question), then the others. The TUI draws it when `enter` opens a node; the CLI could print it as it is."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import msgspec

from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Row, Table, View

__all__ = ["COLUMNS", "NodePod", "node_pods", "node_pods_table", "node_pods_view", "owner_text"]

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


class NodePod(msgspec.Struct, frozen=True):
    """A pod on the node and the accelerators it holds (none once it has terminated)."""

    pod: Pod
    accelerators: dict[str, Decimal]

    @property
    def holds(self) -> Decimal:
        return sum(self.accelerators.values(), Decimal(0))


def node_pods(state: ClusterState, node: str) -> list[NodePod]:
    """The pods bound to `node`: those holding accelerators first (most first), then by namespace and name."""
    out = [
        NodePod(pod, {} if pod.terminated else accelerator_requests(pod.requests))
        for pod in state.pods_by_node.get(node, [])
    ]
    out.sort(key=lambda p: (-p.holds, p.pod.namespace, p.pod.name))
    return out


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


def _row(item: NodePod, node: str, now: datetime) -> Row:
    pod = item.pod
    phase = "Terminating" if pod.meta.deleting else pod.phase or "-"
    cells = (
        Cell(pod.namespace),
        Cell(pod.name),
        _accelerators(item),
        Cell(phase, style=_PHASE_STYLE.get(phase, "")),
        _age(pod, now),
        Cell(owner_text(pod)),
    )
    return Row(f"{pod.namespace}/{pod.name}", cells, ObjectRef("Pod", pod.name, pod.namespace), node, item)


def node_pods_table(state: ClusterState, node: str, now: datetime) -> Table:
    rows = tuple(_row(item, node, now) for item in node_pods(state, node))
    return Table("pods", COLUMNS, rows, title=f"Pods on node {node}")


def node_pods_view(state: ClusterState, node: str, now: datetime, *, unread: str | None = None) -> View:
    """The node's pods; `unread` (why the pods could not all be listed) says the list may be incomplete."""
    table = node_pods_table(state, node, now)
    if not table.rows:
        why = f" (the pods could not all be read: {unread})" if unread else ""
        return View.sentence(f"No pods on node {node}{why}.", theme.MUTED if not unread else theme.WARNING)
    return View.of([table])
