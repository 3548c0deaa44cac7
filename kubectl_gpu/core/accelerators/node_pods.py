"""The pods bound to one node, those holding its accelerators first (the first incident question): what
`kubectl gpu nodes NODE` lists and the TUI's node page shows."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.parts import count_value
from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["NodePod", "node_pods"]

ZERO = Decimal(0)


class NodePod(msgspec.Struct, frozen=True):
    """A pod on the node and the accelerators it requests (none once it has terminated: it holds none)."""

    pod: Pod
    accelerators: dict[str, Decimal]

    @property
    def holds(self) -> Decimal:
        return sum(self.accelerators.values(), ZERO)

    @property
    def phase(self) -> str:
        """Its phase, `Terminating` once it is being deleted (as kubectl get pods says)."""
        return "Terminating" if self.pod.meta.deleting else self.pod.phase or "-"

    @property
    def owner(self) -> tuple[str, str] | None:
        """(kind, name) of the controller that owns it; None for a bare pod."""
        meta = self.pod.meta
        return (meta.owner_kind, meta.owner_name) if meta.owner_kind and meta.owner_name else None

    def to_dict(self) -> dict[str, Any]:
        owner = self.owner
        created = self.pod.meta.created
        return {
            "namespace": self.pod.namespace,
            "name": self.pod.name,
            "phase": self.phase,
            "requested": {name: count_value(value) for name, value in sorted(self.accelerators.items())},
            "owner": {"kind": owner[0], "name": owner[1]} if owner else None,
            "createdAt": created.isoformat().replace("+00:00", "Z")
            if isinstance(created, datetime)
            else None,
        }


def node_pods(state: ClusterState, node: str) -> tuple[NodePod, ...]:
    """The pods bound to `node`: those holding accelerators first (most first), then by namespace and name."""
    out = [
        NodePod(pod, {} if pod.terminated else accelerator_requests(pod.requests))
        for pod in state.pods_by_node.get(node, [])
    ]
    out.sort(key=lambda p: (-p.holds, p.pod.namespace, p.pod.name))
    return tuple(out)
