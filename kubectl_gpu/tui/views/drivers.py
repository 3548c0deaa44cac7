"""Drivers (`d`): `kubectl gpu drivers`: the driver and CUDA ceiling per node, per AMI, the GPU workloads
whose CUDA need exceeds it, and the findings."""

from __future__ import annotations

from functools import partial

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.drivers import DriverReport
from kubectl_gpu.core.analyses.drivers.analysis import Workload
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render.drivers_view import drivers_view
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.convert import RowMeta, from_rich, table_titled, tables_of
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["DriversView", "node_meta"]


def _node_detail(snapshot: Snapshot, name: str, head: RenderableType | None) -> RenderableType:
    return findings_detail(head, snapshot.findings_for(ObjectRef("Node", name)))


def node_meta(snapshot: Snapshot, name: str, head: RenderableType | None = None) -> RowMeta:
    """A row about a node: `s`/`x` act on it, its findings in the detail pane."""
    return RowMeta(name, ObjectRef("Node", name), name, partial(_node_detail, snapshot, name, head))


def _may_land_on(workload: Workload) -> str:
    more = workload.may_land_on_total - len(workload.may_land_on)
    return ", ".join(workload.may_land_on) + (f" (+{more} more)" if more > 0 else "")


def _workload_meta(snapshot: Snapshot, workload: Workload) -> RowMeta:
    need = workload.cuda.need
    head = lines(
        [
            ("Workload", f"{workload.kind.lower()}/{workload.namespace}/{workload.name}"),
            ("Pods", ", ".join(workload.pods)),
            ("CUDA", f"{need.version} ({need.confidence}: {need.source})" if need else "unknown"),
            ("Runs on", ", ".join(workload.runs_on)),
            ("May land on", _may_land_on(workload)),
        ]
    )
    key = f"{workload.namespace}/{workload.kind}/{workload.name}"
    return RowMeta(
        key, workload.ref, None, partial(findings_detail, head, snapshot.findings_for(workload.ref))
    )


def _empty(label: str, message: str) -> Table:
    return Table((Column(label),), (), empty=message)


def _sections(snapshot: Snapshot, report: DriverReport) -> tuple[Section, ...]:
    tables = tables_of(drivers_view(report, wide=False))
    nodes = table_titled(tables, "NODES")
    groups = table_titled(tables, "GROUPS")
    workloads = table_titled(tables, "GPU WORKLOADS")
    node_table = (
        from_rich(
            nodes,
            lambda i: node_meta(snapshot, report.nodes[i].name, lines([("Detail", report.nodes[i].detail)])),
        )
        if nodes is not None
        else _empty("NAME", "No NVIDIA GPU nodes.")
    )
    group_table = (
        from_rich(groups, lambda i: RowMeta(report.groups[i].ami or f"group-{i}"), flex=("DRIVERS",))
        if groups is not None
        else _empty("AMI", "No AMI groups.")
    )
    workload_table = (
        from_rich(workloads, lambda i: _workload_meta(snapshot, report.workloads[i]))
        if workloads is not None
        else _empty("WORKLOAD", "No GPU workloads.")
    )
    return (
        Section("Nodes", node_table),
        Section("Workloads", workload_table),
        Section("AMIs", group_table),
        Section("Findings", findings_section(report.findings)),
    )


class DriversView(TableView):
    view_id = "drivers"
    title = "Drivers"
    key = "d"
    footer = "Driver"
    SECTIONS = ("Nodes", "Workloads", "AMIs", "Findings")

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        report = snapshot.drivers
        notes = tuple(Text(f"note: {n}", style="dim") for n in report.notes)
        return ViewModel(_sections(snapshot, report), notes=notes)
