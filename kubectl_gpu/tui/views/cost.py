"""Cost (`$`): `kubectl gpu cost`: accelerators allocated vs idle per NodePool and namespace, the hourly
spend, idle GPU nodes and what keeps them."""

from __future__ import annotations

from rich.console import RenderableType

from kubectl_gpu.core.analyses.cost.analysis import IdleNode
from kubectl_gpu.render import model
from kubectl_gpu.render.cost_view import cost_view
from kubectl_gpu.render.draw import rich_prose
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines, object_detail
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, to_grid

__all__ = ["CostView"]


def _detail(refresh: Refresh, row: model.Row) -> RenderableType:
    head = None
    if isinstance(row.obj, IdleNode):
        head = lines([("Kept by", "; ".join(k.message for k in row.obj.kept_by))])
    return object_detail(refresh, row.ref, head)


def _sections(refresh: Refresh, view: model.View) -> tuple[Section, ...]:
    detail = lambda row: _detail(refresh, row)  # noqa: E731
    idle = view.table("idle")
    idle_fits = [Fit(c.key, flex=c.key == "kept-by") for c in idle.columns] if idle is not None else None
    return (
        Section("NodePools", to_grid(view.table("pools"), detail=detail, empty="None.")),
        Section("Namespaces", to_grid(view.table("namespaces"), detail=detail, empty="None.")),
        Section("Idle nodes", to_grid(idle, fits=idle_fits, detail=detail, empty="No idle GPU nodes.")),
        Section("Findings", findings_section(refresh.cost.findings)),
    )


class CostView(TableView, page="cost"):
    SECTIONS = ("NodePools", "Namespaces", "Idle nodes", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        view = cost_view(refresh.cost, wide=False)  # once: the sections and the footnote
        notes = view.texts()
        summary = rich_prose(notes[-1]) if notes else None
        return ViewModel(_sections(refresh, view), summary=summary)
