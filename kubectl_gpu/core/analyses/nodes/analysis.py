"""`kubectl gpu nodes`: one row per node that has, or can have, accelerators."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow, node_rows
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, ReportBase

__all__ = ["NodeReport", "analyse"]


class NodeReport(msgspec.Struct, ReportBase, frozen=True):
    """An inventory: it has no findings (node health is the `health` analysis) and always exits 0."""

    kind: ClassVar[str] = "NodeReport"
    default_fail_on: ClassVar[FailOn | None] = None
    rows: tuple[NodeRow, ...]
    now: datetime

    @property
    def findings(self) -> tuple[Finding, ...]:
        return ()

    def body(self) -> dict[str, Any]:
        return {"nodes": [row.to_dict() for row in self.rows]}


def analyse(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    include_all: bool = False,
    prices: PriceBook | None = None,
) -> NodeReport:
    return NodeReport(node_rows(state, catalog, include_all=include_all, prices=prices), now)
