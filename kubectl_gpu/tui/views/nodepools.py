"""NodePools (`o`): each Karpenter / Auto Mode NodePool as it constrains GPU capacity: requirements, taints,
limits used of total, consolidation, expiry, and the disruption budgets in force now.

The rows and the detail's lines are `render.nodepools_view`'s (made safe there); the findings are lint's,
the node counts the pools report's (`kubectl gpu pools` lists their accelerator figures).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.binding import Binding, BindingType

from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.nodepools_view import (
    COLUMNS,
    budgets_prose,
    limits_text,
    nodepool_row,
    requirements_prose,
)
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.model_grid import Fit, Grid, to_grid

__all__ = ["NodePoolsView"]


def _detail(refresh: Refresh, pool: NodePool, nodes: int) -> RenderableType:
    ref = pool.node_class_ref
    head = lines(
        [
            ("NodePool", (pool.name, theme.HEADER)),
            ("NodeClass", f"{ref.kind} {ref.name}" if ref else "none"),
            ("Nodes", nodes),
            ("Limits", limits_text(pool.limits, pool.status_resources)),
            ("Requirements", requirements_prose(pool)),
            ("Taints", ", ".join(f"{t.key}={t.value}:{t.effect}" for t in pool.taints) or "none"),
            ("Budgets", budgets_prose(pool, refresh.now)),
            ("Weight", pool.weight),
        ]
    )
    return findings_detail(head, refresh.findings_for(ObjectRef("NodePool", pool.name)))


FITS: tuple[Fit[tuple[NodePool, int]], ...] = (
    Fit("name", max_width=32),
    Fit("nodes"),
    Fit("limits", max_width=40),
    Fit("consolidation", max_width=34),
    Fit("expire"),
    Fit("budgets", max_width=40),
    Fit("taints", max_width=40),
    Fit("requirements", flex=True, min_width=20, max_width=240),
)


def build_nodepools(refresh: Refresh) -> Grid[tuple[NodePool, int]]:
    state = refresh.state
    counts = refresh.pools.all_nodes  # the pools report's (`kubectl gpu pools`)
    gpu = {p.name for p in refresh.lint.pools if p.gpu}
    pools = sorted(state.nodepools, key=lambda p: (p.name not in gpu, p.name))  # GPU pools first
    table = model.Table(
        "nodepools", COLUMNS, tuple(nodepool_row(p, counts.get(p.name, 0), refresh.now) for p in pools)
    )
    empty = "No NodePools: a static cluster (no Karpenter, no EKS Auto Mode)."
    if "nodepools" in state.absent:
        empty = "No NodePools: the NodePool CRD is not installed (no Karpenter, no EKS Auto Mode)."
    return to_grid(
        table,
        fits=FITS,
        detail=lambda row: _detail(refresh, *row.obj),
        empty=empty,
    )


class NodePoolsView(TableView, page="nodepools"):
    SECTIONS = ("NodePools",)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("t", "try", "Try")]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "try":  # a NodePool under the cursor
            return bool(self.grids) and self.grid.cursor_row is not None
        return super().check_action(action, parameters)

    def action_try(self) -> None:
        """`t`: edit a copy of the NodePool's YAML in $EDITOR, then see what the edit would do (kubectl
        edit's way: the TUI suspended around the editor; nothing is applied)."""
        from kubectl_gpu.tui.screens.try_change import edit_nodepool

        row = self.grid.cursor_row
        if row is None:
            return
        pool, _ = row.obj
        page = edit_nodepool(self.app, getattr(self.app, "snapshot", None), pool.name)
        if page is not None:
            self.app.push_screen(page)

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        return ViewModel((Section("NodePools", build_nodepools(refresh)),))
