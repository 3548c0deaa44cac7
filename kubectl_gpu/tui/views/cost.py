"""Cost (`c`): `kubectl gpu cost`: accelerators allocated vs idle per NodePool and namespace, the hourly
spend, idle GPU nodes and what keeps them."""

from __future__ import annotations

from kubectl_gpu.core.analyses.cost import CostReport
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render.cost_view import cost_view
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.convert import RowMeta, from_rich, tables_of, texts_of
from kubectl_gpu.tui.views.drivers import node_meta
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["CostView"]


def _pool_meta(report: CostReport, index: int) -> RowMeta:
    if index >= len(report.pools):
        return RowMeta("TOTAL")
    name = report.pools[index].name
    return RowMeta(name or "(none)", ObjectRef("NodePool", name) if name else None)


def _sections(snapshot: Snapshot, report: CostReport) -> tuple[Section, ...]:
    tables = tables_of(cost_view(report, wide=False))
    by_first = {t.columns[0].header: t for t in tables if t.columns}
    pools = by_first.get("NODEPOOL")
    namespaces = by_first.get("NAMESPACE")
    idle = by_first.get("IDLE NODE")
    empty = Table((Column("NAME"),), (), empty="None.")
    idle_nodes = report.idle_nodes
    return (
        Section("NodePools", from_rich(pools, lambda i: _pool_meta(report, i)) if pools else empty),
        Section(
            "Namespaces",
            from_rich(namespaces, lambda i: RowMeta(report.namespaces[i].name)) if namespaces else empty,
        ),
        Section(
            "Idle nodes",
            from_rich(
                idle,
                lambda i: node_meta(
                    snapshot,
                    idle_nodes[i].cost.row.name,
                    lines([("Kept by", "; ".join(k.message for k in idle_nodes[i].kept_by))]),
                ),
                flex=("KEPT-BY",),
            )
            if idle
            else Table((Column("IDLE NODE"),), (), empty="No idle GPU nodes."),
        ),
        Section("Findings", findings_section(report.findings)),
    )


class CostView(TableView):
    view_id = "cost"
    title = "Cost"
    key = "c"
    SECTIONS = ("NodePools", "Namespaces", "Idle nodes", "Findings")

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        report = snapshot.cost
        notes = texts_of(cost_view(report, wide=False))
        return ViewModel(_sections(snapshot, report), summary=notes[-1] if notes else None)
