"""Lifecycle (`l`): `kubectl gpu lifecycle`: when each GPU node is replaced (its life used up as a bar),
budgets allowed now, and the GPU pods at risk."""

from __future__ import annotations

import dataclasses
from functools import partial

from rich.console import RenderableType

from kubectl_gpu.core.analyses.lifecycle import LifecycleReport
from kubectl_gpu.core.analyses.lifecycle.report import NodeLifecycle, PodLifecycle
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render.lifecycle_view import nodes_table, pods_table
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.convert import RowMeta, from_rich
from kubectl_gpu.tui.views.drivers import node_meta
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.widgets.bar import expiry_bar
from kubectl_gpu.tui.widgets.grid import Column, Row, Table

__all__ = ["LifecycleView"]


def _node_head(life: NodeLifecycle) -> RenderableType:
    disruptions = "; ".join(f"{d.by}: {d.detail}" for d in life.disruptions) or None
    return lines([("Disruptions", disruptions), ("Notes", "; ".join(life.notes))])


def _with_life_bar(table: Table, report: LifecycleReport) -> Table:
    """The nodes table with LIFE (expiry as a bar: full when the node expires) after AGE."""
    at = next((i for i, c in enumerate(table.columns) if c.label == "AGE"), len(table.columns) - 1) + 1
    columns = (*table.columns[:at], Column("LIFE"), *table.columns[at:])
    rows: list[Row] = []
    for life, row in zip(report.nodes, table.rows, strict=True):
        bar = expiry_bar(life.created, life.expires_at, report.now)
        left = (life.expires_at - report.now).total_seconds() if life.expires_at else None
        rows.append(
            dataclasses.replace(
                row,
                cells=(*row.cells[:at], bar, *row.cells[at:]),
                sort=(*row.sort[:at], left, *row.sort[at:]),
            )
        )
    return Table(columns, tuple(rows), empty=table.empty)


def _pod_meta(snapshot: Snapshot, pod: PodLifecycle) -> RowMeta:
    ref = ObjectRef("Pod", pod.name, pod.namespace)
    detail = "; ".join(f"{d.by}: {d.detail}" for d in pod.disruptions) or None
    head = lines([("Pod", f"{pod.namespace}/{pod.name} on {pod.node}"), ("Disruptions", detail)])
    return RowMeta(
        f"{pod.namespace}/{pod.name}",
        ref,
        pod.node,
        partial(findings_detail, head, snapshot.findings_for(ref)),
    )


class LifecycleView(TableView):
    view_id = "lifecycle"
    title = "Lifecycle"
    key = "l"
    footer = "Life"
    SECTIONS = ("Nodes", "Pods", "Findings")

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        report = snapshot.lifecycle
        nodes = Table((Column("NODE"),), (), empty="No nodes with accelerators.")
        if report.nodes:
            converted = from_rich(
                nodes_table(report, wide=False),
                lambda i: node_meta(snapshot, report.nodes[i].name, _node_head(report.nodes[i])),
                flex=("NEXT DISRUPTION",),
            )
            nodes = _with_life_bar(converted, report)
        pods = Table((Column("POD"),), (), empty="No GPU pods on these nodes.")
        if report.pods:
            pods = from_rich(pods_table(report, wide=False), lambda i: _pod_meta(snapshot, report.pods[i]))
        return ViewModel(
            (
                Section("Nodes", nodes),
                Section("Pods", pods),
                Section("Findings", findings_section(report.findings)),
            )
        )
