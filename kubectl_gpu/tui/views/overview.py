"""Overview (`v`, the first screen): the fleet at a glance, one row per NodePool: a bar of requested / free /
unavailable accelerators with the numbers requested/free/idle, its nodes, its Pending pods and its worst
finding; `enter` lists the pool's nodes.

The rows are the pools report of the refresh (`core.analyses.diagnose.pools`, `kubectl gpu pools`): this
view draws them and counts nothing itself.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.analyses.diagnose.pools import ALL, NO_POOL, PoolSummary
from kubectl_gpu.core.report import Finding
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.pools_view import figures_text
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.model_grid import Fit, Grid, to_grid
from kubectl_gpu.tui.widgets.bar import allocation_bar, legend, unknown_bar

__all__ = ["ALL", "NO_POOL", "OverviewView", "PoolSummary", "pool_summaries"]


def pool_summaries(refresh: Refresh) -> tuple[PoolSummary, ...]:
    """The refresh's NodePool rows, without the total (`Refresh.pools`)."""
    return refresh.pools.pools


def _worst(finding: Finding | None) -> Text:
    if finding is None:
        return Text("ok", style=theme.GOOD)
    item = model.finding_item(finding)
    out = Text(item.code, style=theme.severity(item.severity))  # the code whole, its colour the severity
    out.append(f" {item.object}")
    return out


def _detail(summary: PoolSummary, name: str) -> RenderableType:
    head = lines(
        [
            ("NodePool", (name, theme.HEADER)),
            ("Accelerators", figures_text(summary.parts)),
            ("Nodes", summary.nodes),
            ("Pending pods", summary.pending),
            ("Keys", "enter: this pool's nodes"),
        ]
    )
    return findings_detail(head, summary.findings, limit=8)


def _accelerators(row: model.Row[PoolSummary]) -> tuple[Text, object]:
    parts: AcceleratorParts = row.obj.parts
    if not parts.known:  # pods could not be listed (or DRA devices claimed): requested, free, idle unknown
        accelerators = unknown_bar(width=10)
        accelerators.append(" ?/?/?", style=theme.WARNING)
        return accelerators, -1.0
    accelerators = allocation_bar(*parts.bar, width=10)
    accelerators.append(f" {figures_text(parts, short=True)}")
    return accelerators, float(parts.free)


def _worst_cell(row: model.Row[PoolSummary]) -> tuple[Text, object]:
    worst = row.obj.worst
    return _worst(worst), -worst.severity.rank if worst else 1


_COLUMNS = (
    model.Column("nodepool", "NODEPOOL"),
    model.Column("nodes", "NODES", model.Kind.COUNT),
    model.Column("pending", "PENDING", model.Kind.COUNT),
)

# The answer at 80 columns: the pool, its bar with requested/free/idle (the header words of `kubectl gpu
# pools`), its Pending pods and its worst finding's code, whole, in its severity's colour (the object is cut
# where the room ends); NODES goes first (the detail pane has it, and the worst finding whole).
_FITS: tuple[Fit[PoolSummary], ...] = (
    Fit("nodepool", max_width=24, priority=model.Priority.NAME),
    Fit("nodes", priority=model.Priority.EXTRA),
    Fit("accelerators", compute=_accelerators, header="ACCELERATORS", priority=model.Priority.ANSWER),
    Fit("pending", priority=model.Priority.ANSWER),
    Fit(
        "worst",
        flex=True,
        min_width=31,
        max_width=200,
        compute=_worst_cell,
        header="WORST FINDING",
        priority=model.Priority.ANSWER,
        names=True,
    ),
)


def _row(summary: PoolSummary) -> model.Row[PoolSummary]:
    name = summary.name
    cells = (
        model.Cell(name, style=theme.HEADER if name == ALL else ""),
        model.Cell(str(summary.nodes), summary.nodes),
        model.Cell(str(summary.pending), summary.pending, theme.ERROR if summary.pending else ""),
    )
    return model.Row(name, cells, summary.ref, None, summary)


def build_overview(refresh: Refresh) -> Grid[PoolSummary]:
    table = model.Table("pools", _COLUMNS, tuple(_row(s) for s in refresh.pools.rows))
    return to_grid(
        table,
        fits=_FITS,
        detail=lambda row: _detail(row.obj, row.key),
        empty="No accelerator nodes and no NodePool that can launch one.",
    )


class OverviewView(TableView, page="overview"):
    SECTIONS = ("NodePools",)

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        return ViewModel((Section("NodePools", build_overview(refresh)),), summary=legend(numbers=True))
