"""Drivers (`d`): `kubectl gpu drivers`: the driver and CUDA ceiling per node, per AMI, the GPU workloads
whose CUDA need exceeds it, and the findings."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.drivers.analysis import Workload
from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model
from kubectl_gpu.render.drivers_view import drivers_view
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


def _detail(refresh: Refresh, row: model.Row) -> RenderableType:
    if isinstance(row.obj, Workload):
        return _workload_detail(refresh, row.obj)
    if isinstance(row.obj, NodeDriver):
        return _node_detail(refresh, row.obj, row.ref)
    return object_detail(refresh, row.ref)


def _sections(refresh: Refresh) -> tuple[Section, ...]:
    report = refresh.drivers
    view = drivers_view(report, wide=False)
    detail = lambda row: _detail(refresh, row)  # noqa: E731
    return (
        Section("Nodes", to_grid(view.table("nodes"), detail=detail, empty="No NVIDIA GPU nodes.")),
        Section("Workloads", to_grid(view.table("workloads"), detail=detail, empty="No GPU workloads.")),
        Section(
            "AMIs",
            to_grid(
                view.table("groups"),
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
