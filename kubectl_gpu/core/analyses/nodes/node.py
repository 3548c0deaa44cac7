"""`kubectl gpu nodes NODE`: one node, its figures and its pods (what the TUI's node page shows)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.accelerators.node_pods import NodePod, node_pods
from kubectl_gpu.core.accelerators.nodes import NodeRow, all_node_rows, pods_unread
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, ReportBase

__all__ = ["NodeDetailReport", "analyse_node"]


class NodeDetailReport(msgspec.Struct, ReportBase, frozen=True):
    """One node (its row as `nodes` lists it, and its figures) and the pods bound to it. `unread`: why the
    pods could not all be listed (the list may then be incomplete). No findings: always exit 0."""

    kind: ClassVar[str] = "NodeDetail"
    default_fail_on: ClassVar[FailOn | None] = None
    row: NodeRow
    pods: tuple[NodePod, ...]
    now: datetime
    unread: str | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return ()

    def body(self) -> dict[str, Any]:
        return {
            "node": self.row.to_dict(),
            "podsComplete": self.unread is None,
            "pods": [p.to_dict() for p in self.pods],
        }


def analyse_node(
    state: ClusterState, catalog: Catalog, now: datetime, name: str, *, prices: PriceBook | None = None
) -> NodeDetailReport:
    """The node called `name` (InvalidInput when the nodes read have none of that name)."""
    row = next((r for r in all_node_rows(state, catalog, prices) if r.name == name), None)
    if row is None:
        raise InvalidInput(f'nodes "{name}" not found', "check the name: kubectl gpu nodes --all lists them")
    return NodeDetailReport(row, node_pods(state, name), now, pods_unread(state))
