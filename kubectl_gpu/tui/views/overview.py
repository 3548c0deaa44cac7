"""Overview (`v`, the first screen): the fleet at a glance, one row per NodePool: a bar of allocated / free /
idle accelerators, its nodes, its Pending pods and its worst finding; `enter` lists the pool's nodes.

Everything is summed from the reports of the refresh: the nodes report's accelerators, the cost report's
idle nodes, the pending report's nearest NodePool per pod and diagnose's findings.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

import msgspec
from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.report import Finding, ObjectRef
from kubectl_gpu.render import model, theme
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.model_grid import Fit, to_grid
from kubectl_gpu.tui.widgets.bar import allocation_bar, count_text, legend, unknown_bar
from kubectl_gpu.tui.widgets.grid import Table

__all__ = ["ALL", "OverviewView", "PoolSummary", "pool_summaries"]

ZERO = Decimal(0)
ALL = "ALL"  # the key of the totals row
NO_POOL = "(no NodePool)"


class PoolSummary(msgspec.Struct, dict=True):
    name: str
    nodes: int = 0
    parts: AcceleratorParts = msgspec.field(default_factory=AcceleratorParts)
    pending: int = 0
    findings: list[Finding] = msgspec.field(default_factory=list)

    @property
    def worst(self) -> Finding | None:
        return min(self.findings, key=Finding.sort_key, default=None)


def _pod_pools(snapshot: Refresh, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(namespace, name) -> pool, for the pods findings are about: pending ones by their nearest NodePool
    (or node), the others by the node they run on."""
    out: dict[tuple[str, str], str] = {}
    pools = snapshot.pool_of_node
    for diag in snapshot.pending.pods:
        near = diag.nearest
        pool = None
        if near is not None:
            pool = near.name if near.kind == "NodePool" else pools.get(near.name)
        out[(diag.namespace, diag.name)] = pool or NO_POOL
    missing = wanted - out.keys()
    if missing:
        for pod in snapshot.state.pods:
            key = (pod.namespace, pod.name)
            if key in missing and pod.node_name and (pool := pools.get(pod.node_name)):
                out[key] = pool
    return out


def _pool_of(snapshot: Refresh, ref: ObjectRef, pods: dict[tuple[str, str], str]) -> list[str]:
    if ref.kind == "NodePool":
        return [ref.name]
    if ref.kind == "Node":
        pool = snapshot.pool_of_node.get(ref.name)
        return [pool] if pool else []
    if ref.kind == "Pod":
        pool = pods.get((ref.namespace or "", ref.name))
        return [pool] if pool else []
    if ref.kind in ("NodeClass", "EC2NodeClass"):
        return [
            p.name
            for p in snapshot.state.nodepools
            if p.node_class_ref is not None and p.node_class_ref.name == ref.name
        ]
    return []


def _add_findings(snapshot: Refresh, summaries: dict[str, PoolSummary]) -> None:
    findings = snapshot.diagnose.findings
    wanted = {(f.object.namespace or "", f.object.name) for f in findings if f.object.kind == "Pod"}
    pods = _pod_pools(snapshot, wanted)
    for finding in findings:
        for pool in _pool_of(snapshot, finding.object, pods):
            if pool in summaries:
                summaries[pool].findings.append(finding)


def pool_summaries(snapshot: Refresh) -> list[PoolSummary]:
    """One summary per NodePool with accelerator nodes, a GPU NodePool (lint) or Pending pods, by name; nodes
    outside Karpenter under "(no NodePool)"."""
    gpu_pools = {p.name for p in snapshot.lint.pools if p.gpu}
    summaries: dict[str, PoolSummary] = defaultdict(lambda: PoolSummary(""))
    for row in snapshot.nodes.rows:
        summary = summaries[row.node_pool or NO_POOL]
        summary.nodes += 1
        summary.parts = summary.parts + snapshot.parts_of(row)
    for pool in _pod_pools(snapshot, set()).values():
        summaries[pool].pending += 1
    for name in gpu_pools:
        summaries[name]
    out = dict(summaries)
    for name, summary in out.items():
        summary.name = name
    _add_findings(snapshot, out)
    return sorted(out.values(), key=lambda s: (s.name == NO_POOL, s.name))


def _worst(finding: Finding | None) -> Text:
    if finding is None:
        return Text("ok", style=theme.GOOD)
    item = model.finding_item(finding)
    out = Text(f"{item.severity.upper()} ", style=theme.severity(item.severity))
    out.append(f"{item.code} ", style=theme.HEADER)
    out.append(item.object)
    return out


def _parts_line(parts: AcceleratorParts) -> str:
    """The detail pane's numbers: `?` for what the pods left unknown; the unavailable ones by why."""
    if parts.known:
        head = f"{count_text(parts.allocated)} allocated, {count_text(parts.free)} free, {count_text(parts.idle)} idle"
    else:
        head = "? allocated, ? free, ? idle (the pods could not all be read)"
    return f"{head}, {count_text(parts.unhealthy)} unhealthy, {count_text(parts.cordoned)} on cordoned or NotReady nodes"


def _detail(summary: PoolSummary, name: str) -> RenderableType:
    head = lines(
        [
            ("NodePool", (name, theme.HEADER)),
            ("Accelerators", _parts_line(summary.parts)),
            ("Nodes", summary.nodes),
            ("Pending pods", summary.pending),
            ("Keys", "enter: this pool's nodes"),
        ]
    )
    return findings_detail(head, sorted(summary.findings, key=Finding.sort_key), limit=8)


def _summary(row: model.Row) -> PoolSummary:
    if not isinstance(row.obj, PoolSummary):
        raise TypeError(f"row {row.key} shows a {type(row.obj).__name__}, not a NodePool summary")
    return row.obj


def _accelerators(row: model.Row, counted: bool) -> tuple[Text, object]:
    summary = _summary(row)
    allocated, free, idle, _ = summary.parts.bar
    if not counted or not summary.parts.known:  # pods could not be listed: allocated, free, idle unknown
        accelerators = unknown_bar(width=10)
        accelerators.append(" ?/?/?", style=theme.WARNING)
        return accelerators, -1.0
    accelerators = allocation_bar(*summary.parts.bar, width=10)
    accelerators.append(f" {count_text(allocated)}/{count_text(free)}/")
    accelerators.append(count_text(idle), style=theme.WARNING if idle else "")
    return accelerators, float(free + idle)


def _worst_cell(row: model.Row) -> tuple[Text, object]:
    worst = _summary(row).worst
    return _worst(worst), -worst.severity.rank if worst else 1


_COLUMNS = (
    model.Column("nodepool", "NODEPOOL"),
    model.Column("nodes", "NODES", model.Kind.COUNT),
    model.Column("pending", "PENDING", model.Kind.COUNT),
)


# 80 columns show all but the end of the worst finding (the detail pane shows it whole). ACCELERATORS is the
# bar, then allocated/free/idle.
def _fits(counted: bool) -> tuple[Fit, ...]:
    return (
        Fit("nodepool", max_width=24),
        Fit("nodes"),
        Fit("accelerators", compute=lambda row: _accelerators(row, counted), header="ACCELERATORS"),
        Fit("pending"),
        Fit("worst", flex=True, min_width=16, max_width=200, compute=_worst_cell, header="WORST FINDING"),
    )


def _row(summary: PoolSummary) -> model.Row:
    name = summary.name
    cells = (
        model.Cell(name, style=theme.HEADER if name == ALL else ""),
        model.Cell(str(summary.nodes), summary.nodes),
        model.Cell(str(summary.pending), summary.pending, theme.ERROR if summary.pending else ""),
    )
    ref = ObjectRef("NodePool", name) if name not in (ALL, NO_POOL) else None
    return model.Row(name, cells, ref, None, summary)


def build_overview(snapshot: Refresh) -> Table:
    summaries = pool_summaries(snapshot)
    total = PoolSummary(ALL, findings=list(snapshot.diagnose.findings))
    for s in summaries:
        total.nodes += s.nodes
        total.pending += s.pending
        total.parts = total.parts + s.parts
    table = model.Table("pools", _COLUMNS, tuple(_row(s) for s in [*summaries, total]))
    return to_grid(
        table,
        fits=_fits(snapshot.pods_counted),
        detail=lambda row: _detail(_summary(row), row.key),
        empty="No accelerator nodes and no NodePool that can launch one.",
    )


class OverviewView(TableView):
    view_id = "overview"
    title = "Overview"
    key = "v"
    SECTIONS = ("NodePools",)

    @staticmethod
    def build(snapshot: Refresh) -> ViewModel:
        return ViewModel((Section("NodePools", build_overview(snapshot)),), summary=legend(numbers=True))
