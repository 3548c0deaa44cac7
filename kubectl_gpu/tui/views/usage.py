"""Usage (`u`): `kubectl gpu usage`: per GPU a utilisation bar, memory used of total, power, the pod that
holds it, its share of the node's $/h and whether it is idle; the workloads' held and idle $/h, $ per 1M
output tokens per inference workload, the nodes, the findings. Built from the same view model the CLI prints
(`render.usage_view`), over the window `tui.usage_window` keeps (live: refreshed each refresh)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual import work

from kubectl_gpu.core.catalog.pricing import SOURCE_LIST
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.cost_view import LIST_MARK
from kubectl_gpu.render.page_lines import usage_summary_lines
from kubectl_gpu.tui.background import ShowsWorkerFailures
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, Grid, Shown, to_grid

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.usage.report import (
        GpuUsage,
        GroupUsage,
        NodeUsage,
        TokenCost,
        UsageReport,
    )

__all__ = ["UsageView", "utilisation_bar"]

BAR_WIDTH = 10
NOT_READ = "usage not read"
T = TypeVar("T")
COMPUTING = "computing usage from the window read"


def utilisation_bar(percent: float | None, idle_below: float, *, width: int = BAR_WIDTH) -> Text:
    """`width` cells, filled in proportion to `percent` (yellow below the idle threshold, else green), then
    the figure; unknown is a run of `·` and `-`, never an empty (0 %) bar."""
    if percent is None:
        return Text("·" * width + "    -", style=theme.MUTED)
    share = min(max(percent, 0.0), 100.0) / 100
    cells = min(width, round(share * width))
    style = theme.WARNING if percent < idle_below else theme.GOOD
    bar = Text("█" * cells, style=style)
    bar.append("░" * (width - cells), style=theme.MUTED)
    bar.append(f" {percent:3.0f}%", style=style)
    return bar


def _gpu_fits(report: UsageReport) -> list[Fit[GpuUsage]]:
    """The GPUs table: its own UTIL (a bar), HELD $/H (the node's $/h over its GPUs) and IDLE columns."""
    nodes: dict[str, NodeUsage] = {n.name: n for n in report.nodes}
    idle_pods = {f"{p.namespace}/{p.name}": p.idle for p in report.pods}
    below = report.idle_below

    def util(row: model.Row[GpuUsage]) -> tuple[Shown, object]:
        value = row.obj.util_percent
        return utilisation_bar(value, below), -1.0 if value is None else value

    def held(row: model.Row[GpuUsage]) -> tuple[Shown, object]:
        gpu = row.obj
        node = nodes.get(gpu.node or "")
        if not gpu.pods or node is None or node.price_per_hour is None or node.gpus <= 0:
            return "-", -1.0
        share = node.price_per_hour / node.gpus
        mark = LIST_MARK if node.price_source == SOURCE_LIST else ""
        return f"{share:.2f}{mark}", float(share)

    def idle(row: model.Row[GpuUsage]) -> tuple[Shown, object]:
        gpu = row.obj
        node = nodes.get(gpu.node or "")
        if not gpu.pods:
            empty = node is not None and node.state == "empty"
            return (Text("idle", style=theme.WARNING), "idle") if empty else ("-", "")
        states = [idle_pods.get(p) for p in gpu.pods]
        if any(states):
            return Text("idle", style=theme.WARNING), "idle"
        return ("busy", "busy") if states and all(s is False for s in states) else ("-", "")

    return [
        # narrow, what the view is for stays (how busy, idle or not, what it costs); power goes first
        Fit("gpu", max_width=32, priority=0),
        Fit("util", compute=util, header="UTIL", min_width=BAR_WIDTH + 5, priority=1),
        Fit("memory", min_width=11, priority=4),
        Fit("power", min_width=5, priority=8),
        Fit("held", compute=held, header="HELD $/H", min_width=8, priority=3),
        Fit("idle", compute=idle, header="IDLE", min_width=6, priority=2),
        Fit("pods", flex=True, min_width=20, max_width=80, priority=5),
        Fit("model", min_width=10, priority=6),
        Fit("source", min_width=6, priority=7),
    ]


def _detail(
    refresh: Refresh,
    report: UsageReport,
    row: model.Row[object],
    head: RenderableType | None = None,
    refs: frozenset[ObjectRef] = frozenset(),
) -> RenderableType:
    """`head` (the row's figures), then the usage findings about the row's object and `refs`, then
    diagnose's about the row's object."""
    about = {row.ref, *refs} if row.ref is not None else set(refs)
    usage = [f for f in report.findings if f.object in about]
    cluster = refresh.findings_for(row.ref) if row.ref is not None else ()
    return findings_detail(head, [*usage, *cluster])


def _gpu_detail(refresh: Refresh, report: UsageReport, row: model.Row[GpuUsage]) -> RenderableType:
    """A GPU's figures; the findings about the pods holding it too."""
    gpu = row.obj
    head = lines(
        [
            ("GPU", f"{gpu.node or '?'} index {gpu.index or '?'} ({gpu.uuid or 'no UUID'})"),
            ("Held by", ", ".join(gpu.pods) or "no pod"),
            ("Figures", f"{gpu.source}: {gpu.util_field or 'no utilisation field'}, {gpu.samples} sample(s)"),
        ]
    )
    pods = frozenset(ObjectRef("Pod", *reversed(p.split("/", 1))) for p in gpu.pods if "/" in p)
    return _detail(refresh, report, row, head, pods)


def _workload_detail(refresh: Refresh, report: UsageReport, row: model.Row[GroupUsage]) -> RenderableType:
    unpriced = row.obj.unpriced_pods
    return _detail(refresh, report, row, lines([("Unpriced pods", unpriced)]) if unpriced else None)


def _inference_detail(refresh: Refresh, report: UsageReport, row: model.Row[TokenCost]) -> RenderableType:
    t = row.obj
    return _detail(
        refresh, report, row, lines([("Model", t.model), ("Status", t.status), ("Server", t.server)])
    )


def _summary(report: UsageReport, sampling: bool) -> Text:
    """One line (the view's summary is one line high), most telling first: what could not be looked at,
    sampling or why utilisation is unknown, then the window's totals."""
    notes = [n for n in report.notes if not (sampling and n.startswith("utilisation unknown"))]
    parts = usage_summary_lines(report.could_not_look, notes)
    t = report.totals
    held_idle = f"${t.idle_held_cost:.2f}/h" if report.measured else "unknown"  # never $0 for unknown
    totals = (
        f"window {report.window_s:g}s  GPUs held {_n(t.held)} of {_n(t.gpus)} ({_n(t.measured)} measured)  "
        f"idle: {held_idle} held below {report.idle_below:g}% + ${t.empty_node_cost:.2f}/h on nodes without GPU pods"
    )
    if any(n.price_source == SOURCE_LIST for n in report.nodes):
        totals += f"  {LIST_MARK} list price"
    parts.append((totals, theme.MUTED))
    out = Text()
    for index, (text, style) in enumerate(parts):
        out.append(("  " if index else "") + text, style=style)
    return out


def _n(value: Decimal) -> str:
    return f"{value.normalize():f}"


#: the money first, so that 80 columns show what is idle and what a million tokens cost
WORKLOAD_FITS: tuple[Fit[GroupUsage], ...] = tuple(
    Fit(key, max_width=40 if key == "workload" else 12)
    for key in ("workload", "idle_$_per_h", "held_$_per_h", "util", "idle-gpus", "gpus", "pods")
)
_INFERENCE_KEYS = ("inference_workload", "$_per_1m_tokens", "tokens_per_s", "$_per_h", "server", "status")
INFERENCE_FITS: tuple[Fit[TokenCost], ...] = tuple(
    Fit(key, max_width=40 if key == "inference_workload" else 28, min_width=8)
    for key in (*_INFERENCE_KEYS, "model", "prompt-tokens_per_s", "resets")
)


def _grid(
    table: model.Table[T] | None,
    fits: Sequence[Fit[T]],
    detail: Callable[[model.Row[T]], RenderableType],
    empty: str,
) -> Grid[T]:
    return to_grid(table, fits=fits if table is not None else fits[:1], detail=detail, empty=empty)


def _model(refresh: Refresh, report: UsageReport) -> ViewModel:
    """Each section the grid of its typed table (`render.usage_view.usage_tables`, as `-o wide` shows
    them; none without a node: the CLI says one sentence)."""
    from kubectl_gpu.render.usage_view import UsageTables, usage_tables

    tables = usage_tables(report, wide=True) if report.nodes else UsageTables(None, None, None, None, None)
    gpu_grid = to_grid(
        tables.gpus,
        fits=_gpu_fits(report) if tables.gpus is not None else [Fit("gpu")],
        detail=lambda row: _gpu_detail(refresh, report, row),
        empty="No GPU measured (see the line above).",
    )
    workloads = _grid(
        tables.workloads, WORKLOAD_FITS, lambda row: _workload_detail(refresh, report, row), "No GPU pods."
    )
    inference = _grid(
        tables.inference,
        INFERENCE_FITS,
        lambda row: _inference_detail(refresh, report, row),
        "No inference servers.",
    )
    nodes = to_grid(
        tables.nodes, detail=lambda row: _detail(refresh, report, row), empty="No nodes with accelerators."
    )
    sections = (
        Section("GPUs", gpu_grid),
        Section("Workloads", workloads),
        Section("Inference", inference),
        Section("Nodes", nodes),
        Section("Findings", findings_section(report.findings)),
    )
    sampling = refresh.usage is not None and refresh.usage.sampling
    return ViewModel(sections, summary=_summary(report, sampling))


class PendingModel(ViewModel, frozen=True, dict=True):
    """A placeholder, until `compute` (the usage report and its rows) has run in the view's worker."""

    compute: Callable[[], ViewModel] | None = None


def _placeholder(text: str, compute: Callable[[], ViewModel] | None = None) -> ViewModel:
    empty = tuple(Section(name, to_grid(None, empty=f"{text}.")) for name in UsageView.SECTIONS)
    return PendingModel(empty, summary=Text(text, style=theme.MUTED), compute=compute)


class UsageView(TableView, ShowsWorkerFailures, page="usage"):
    """The report is computed when the view is shown (parsing a window's /metrics texts takes a while):
    never before the first screen, never for a view nobody opens."""

    #: the placeholder whose report the worker computes (its failure is said in its place)
    computing: PendingModel | None = None
    SECTIONS = ("GPUs", "Workloads", "Inference", "Nodes", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        usage = refresh.usage
        if usage is None:
            return _placeholder(NOT_READ)
        if usage.ready:
            return _model(refresh, usage.report())
        return _placeholder(COMPUTING, lambda: _model(refresh, usage.report()))

    def show(self, model: ViewModel) -> None:
        super().show(model)
        if isinstance(model, PendingModel) and model.compute is not None and self.display:
            self._compute(model)

    def on_show(self) -> None:
        if isinstance(self.model, PendingModel) and self.model.compute is not None:
            self._compute(self.model)

    @work(thread=True, group="usage-view", exit_on_error=False)
    def _compute(self, pending: PendingModel) -> None:
        assert pending.compute is not None
        self.computing = pending  # what fails is said in the view (`show_failure`), never crashes the app
        self.app.call_from_thread(self._computed, pending, pending.compute())

    def show_failure(self, group: str, line: str) -> str:
        said = f"usage could not be computed: {line}"
        if self.computing is not None:
            self._computed(self.computing, _placeholder(said))
        return said

    def _computed(self, pending: PendingModel, built: ViewModel) -> None:
        if self.model is pending:  # else a newer refresh's model replaced it meanwhile
            super().show(built)
