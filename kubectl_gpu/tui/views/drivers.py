"""Drivers (`d`): `kubectl gpu drivers`: the driver and CUDA ceiling per node, per AMI, the GPU workloads
whose CUDA need exceeds it, and the findings."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.drivers.analysis import Workload
from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model
from kubectl_gpu.render.drivers_view import groups_table, nodes_table, workloads_table
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines, object_detail
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, to_grid

__all__ = ["DriversView"]


def _may_land_on(workload: Workload) -> str:
    more = workload.may_land_on_total - len(workload.may_land_on)
    return ", ".join(workload.may_land_on) + (f" (+{more} more)" if more > 0 else "")


def _workload_detail(refresh: Refresh, workload: Workload) -> RenderableType:
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
    return object_detail(refresh, workload.ref, head)


def _ceiling(node: NodeDriver) -> str | None:
    """The CUDA ceiling as a sentence's end: `12.8`, `13.0 or newer` (the newest driver the table knows)."""
    if node.cuda_max is None:
        return "unknown" if node.version is None else None
    ceiling = f"{node.cuda_max} or newer" if node.open_ended else node.cuda_max
    return (
        f"{ceiling}; {node.minor_compat} through minor-version compatibility"
        if node.minor_compat
        else ceiling
    )


def _node_detail(refresh: Refresh, node: NodeDriver, ref: ObjectRef | None) -> RenderableType:
    """The page's answer first (docs/tui.md: driver and CUDA ceiling), whatever columns a narrow terminal
    left out, then where the driver was read and the node's findings."""
    head = lines(
        [
            ("Driver", f"{node.version or 'unknown'} ({node.source})"),
            ("CUDA ceiling", _ceiling(node)),
            ("AMI", node.ami),
            ("OS image", node.os_image),
            ("Detail", node.detail),
        ]
    )
    return object_detail(refresh, ref, head)


def _sections(refresh: Refresh) -> tuple[Section, ...]:
    """Each section the grid of its typed table (`render.drivers_view`), with the detail of its object."""
    report = refresh.drivers
    some = bool(report.nodes or report.workloads)  # else the CLI says one sentence: no tables
    nodes = to_grid(
        nodes_table(report, wide=False) if some else None,
        detail=lambda row: _node_detail(refresh, row.obj, row.ref),
        empty="No NVIDIA GPU nodes.",
    )
    workloads = to_grid(
        workloads_table(report, wide=False) if report.workloads else None,
        detail=lambda row: _workload_detail(refresh, row.obj),
        empty="No GPU workloads.",
    )
    return (
        Section("Nodes", nodes),
        Section("Workloads", workloads),
        Section(
            "AMIs",
            to_grid(
                groups_table(report) if some else None,
                fits=(Fit("ami"), Fit("os_image"), Fit("nodes"), Fit("nodepools"), Fit("drivers", flex=True)),
                empty="No AMI groups.",
            ),
        ),
        Section("Findings", findings_section(report.findings)),
    )


class DriversView(TableView, page="drivers"):
    SECTIONS = ("Nodes", "Workloads", "AMIs", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        notes = tuple(Text(line.plain, style="dim") for line in _notes(refresh))
        return ViewModel(_sections(refresh), notes=notes)


def _notes(refresh: Refresh) -> list[model.Prose]:
    return [model.prose(f"note: {n}") for n in refresh.drivers.notes]
