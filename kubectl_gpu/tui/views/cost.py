"""Cost (`$`): `kubectl gpu cost`: accelerators allocated vs idle per NodePool and namespace, the hourly
spend, idle GPU nodes and what keeps them."""

from __future__ import annotations

from rich.console import RenderableType

from kubectl_gpu.core.analyses.cost.analysis import IdleNode
from kubectl_gpu.render import model
from kubectl_gpu.render.cost_view import cost_view, idle_table, namespaces_table, pools_table
from kubectl_gpu.render.draw import rich_prose
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines, object_detail
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, to_grid

__all__ = ["CostView"]


def _idle_detail(refresh: Refresh, row: model.Row[IdleNode]) -> RenderableType:
    head = lines([("Kept by", "; ".join(k.message for k in row.obj.kept_by))])
    return object_detail(refresh, row.ref, head)


def _sections(refresh: Refresh) -> tuple[Section, ...]:
    """Each section the grid of its typed table (`render.cost_view`); the tables the CLI leaves out (no
    node, no namespace, no idle node) are empty grids."""
    report = refresh.cost

    def detail(row: model.Row[object]) -> RenderableType:
        return object_detail(refresh, row.ref)

    pools = pools_table(report) if report.nodes else None
    namespaces = namespaces_table(report) if report.nodes and report.namespaces else None
    idle = idle_table(report, wide=False) if report.nodes and report.idle_nodes else None
    idle_fits = [Fit[IdleNode](c.key, flex=c.key == "kept-by") for c in idle.columns] if idle else None
    return (
        Section("NodePools", to_grid(pools, detail=detail, empty="None.")),
        Section("Namespaces", to_grid(namespaces, detail=detail, empty="None.")),
        Section(
            "Idle nodes",
            to_grid(
                idle,
                fits=idle_fits,
                detail=lambda row: _idle_detail(refresh, row),
                empty="No idle GPU nodes.",
            ),
        ),
        Section("Findings", findings_section(refresh.cost.findings)),
    )


class CostView(TableView, page="cost"):
    SECTIONS = ("NodePools", "Namespaces", "Idle nodes", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        view = cost_view(refresh.cost, wide=False)  # once: the sections and the footnote
        notes = view.texts()
        summary = rich_prose(notes[-1]) if notes else None
        return ViewModel(_sections(refresh), summary=summary)
