"""Nodes (`n`): `kubectl gpu nodes`, with a per-node allocation bar and the node's expiry from `lifecycle`."""

from __future__ import annotations

from rich.console import RenderableType

from kubectl_gpu.core.accelerators.nodes import NodeRow
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model
from kubectl_gpu.render.nodes_table import nodes_table
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.model_grid import Fit, Grid, Shown, to_grid
from kubectl_gpu.tui.widgets.bar import allocation_bar, legend, unknown_bar

__all__ = ["NodesView"]


def _detail(refresh: Refresh, row: NodeRow) -> RenderableType:
    acc = row.accelerator
    usage = None
    if acc is not None:
        usage = (
            f"{acc.model or '?'} x{acc.capacity}: allocatable {acc.allocatable}, requested {acc.requested}, "
            f"free {acc.free}" + ("" if acc.schedulable else " (cordoned or NotReady: no new pod lands)")
        )
        if not acc.counted:
            usage = f"{acc.model or '?'} x{acc.capacity}: allocatable {acc.allocatable}, requested ?, free ?"
    unhealthy = ", ".join(f"{c.type}={c.status} ({c.reason or '-'})" for c in row.unhealthy) or None
    driver = f"{row.driver.version or 'unknown'} (CUDA {row.driver.cuda_max or '?'}; {row.driver.source})"
    head = lines(
        [
            ("Node", (row.name, "bold")),
            ("Accelerators", usage),
            ("Driver", driver),
            ("Pool / claim", f"{row.node_pool or '-'} / {row.node_claim or '-'}"),
            ("Instance", f"{row.instance_type or '-'} {row.capacity_type or ''} {row.zone or ''}".strip()),
            ("Unhealthy", unhealthy),
            ("OS", row.os_image),
        ]
    )
    return findings_detail(head, refresh.findings_for(ObjectRef("Node", row.name)))


def _expiries(refresh: Refresh) -> dict[str, tuple[str, float]]:
    out: dict[str, tuple[str, float]] = {}
    for life in refresh.lifecycle.nodes:
        if life.expires_at is None:
            continue
        left = life.expires_at - refresh.now
        seconds = left.total_seconds()
        out[life.name] = ("now" if seconds <= 0 else f"in {format_age(left)}", seconds)
    return out


def build_nodes(refresh: Refresh) -> Grid[NodeRow]:
    report = refresh.nodes
    table = nodes_table(report, wide=False)
    expiries = _expiries(refresh)
    alloc = table.index("alloc")

    def usage(row: model.Row[NodeRow]) -> tuple[Shown, object]:
        cell = row.cells[alloc]
        parts = refresh.parts_of(row.obj)
        bar = allocation_bar(*parts.bar, width=8) if parts.known else unknown_bar(width=8)
        bar.append(" ")
        bar.append(cell.text, style=cell.style or None)
        return bar, cell.sort_key

    def expires(row: model.Row[NodeRow]) -> tuple[Shown, object]:
        return expiries.get(row.key, ("-", float("inf")))

    # Most telling first, so that 80 columns show name, allocation, health and driver.
    fits: tuple[Fit[NodeRow], ...] = (
        Fit("name", max_width=40),
        Fit("alloc", compute=usage, header=table.columns[alloc].header),
        Fit("health", max_width=40),
        Fit("driver"),
        Fit("expires", compute=expires, header="EXPIRES"),
        Fit("nodepool"),
        Fit("instance"),
        Fit("gpu"),
        Fit("gpu_mem"),
        Fit("age"),
        Fit("compute"),
    )
    return to_grid(
        table if report.rows else None,
        fits=fits,
        detail=lambda row: _detail(refresh, row.obj),
        empty="No nodes with accelerators.",
    )


class NodesView(TableView, page="nodes"):
    SECTIONS = ("Nodes",)

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        return ViewModel((Section("Nodes", build_nodes(refresh)),), summary=legend())
