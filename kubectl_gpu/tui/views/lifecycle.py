"""Lifecycle (`i`): `kubectl gpu lifecycle`: when each GPU node is replaced (its life used up as a bar),
budgets allowed now, and the GPU pods at risk."""

from __future__ import annotations

from rich.console import RenderableType

from kubectl_gpu.core.analyses.lifecycle.report import NodeLifecycle, PodLifecycle
from kubectl_gpu.render import model
from kubectl_gpu.render.lifecycle_view import nodes_table, pods_table
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines, object_detail
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, Shown, to_grid
from kubectl_gpu.tui.widgets.bar import expiry_bar

__all__ = ["LifecycleView"]


def _node_detail(refresh: Refresh, row: model.Row[NodeLifecycle]) -> RenderableType:
    obj = row.obj
    disruptions = "; ".join(f"{d.by}: {d.detail}" for d in obj.disruptions) or None
    head = lines([("Disruptions", disruptions), ("Notes", "; ".join(obj.notes))])
    return object_detail(refresh, row.ref, head)


def _pod_detail(refresh: Refresh, row: model.Row[PodLifecycle]) -> RenderableType:
    obj = row.obj
    detail = "; ".join(f"{d.by}: {d.detail}" for d in obj.disruptions) or None
    head = lines([("Pod", f"{obj.namespace}/{obj.name} on {obj.node}"), ("Disruptions", detail)])
    return object_detail(refresh, row.ref, head)


def _node_fits(table: model.Table[NodeLifecycle], refresh: Refresh) -> list[Fit[NodeLifecycle]]:
    """The model's columns with LIFE (expiry as a bar: full when the node expires) after AGE."""
    now = refresh.now

    def life(row: model.Row[NodeLifecycle]) -> tuple[Shown, object]:
        obj = row.obj
        left = (obj.expires_at - now).total_seconds() if obj.expires_at else None
        return expiry_bar(obj.created, obj.expires_at, now), left

    fits: list[Fit[NodeLifecycle]] = []
    for column in table.columns:
        fits.append(Fit(column.key, flex=column.key == "next"))
        if column.key == "age":
            fits.append(Fit("life", compute=life, header="LIFE", priority=model.Priority.ANSWER))
    return fits


class LifecycleView(TableView, page="lifecycle"):
    SECTIONS = ("Nodes", "Pods", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        report = refresh.lifecycle
        node_table = nodes_table(report, wide=False)
        nodes = to_grid(
            node_table if report.nodes else None,
            fits=_node_fits(node_table, refresh) if report.nodes else None,
            detail=lambda row: _node_detail(refresh, row),
            empty="No nodes with accelerators.",
        )
        pods = to_grid(
            pods_table(report, wide=False) if report.pods else None,
            detail=lambda row: _pod_detail(refresh, row),
            empty="No GPU pods on these nodes.",
        )
        return ViewModel(
            (
                Section("Nodes", nodes),
                Section("Pods", pods),
                Section("Findings", findings_section(report.findings)),
            )
        )
