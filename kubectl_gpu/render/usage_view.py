"""`kubectl gpu usage` as a view model: workloads, inference $ per 1M tokens, nodes, pods, GPUs, findings.

Every figure says where it comes from (SOURCE: dcgm | smi | allocation-only); an unknown figure is `-`,
never 0. Tables are named (`usage-workloads`, `usage-inference`, `usage-nodes`, `usage-pods`,
`usage-gpus`) so the TUI can pick them; rows carry their report objects (`Row.obj`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TypeVar

import msgspec

from kubectl_gpu.core.analyses.usage.report import (
    GpuUsage,
    GroupUsage,
    NodeUsage,
    PodUsage,
    TokenCost,
    UsageReport,
)
from kubectl_gpu.core.catalog.pricing import SOURCE_LIST
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.core.scheduling.overlay_prices import SOURCE_OVERLAY
from kubectl_gpu.render import theme
from kubectl_gpu.render.cost_view import LIST_MARK, OVERLAY_MARK, list_price_footnote
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Row, Table, View, prose

__all__ = ["UsageTables", "usage_tables", "usage_view"]

T = TypeVar("T")

_NONE = Cell("-", -1)


def _n(value: Decimal) -> str:
    value = value.quantize(Decimal("0.001"))
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _count(value: Decimal | int) -> Cell:
    return Cell(_n(Decimal(value)), float(value))


def _money(value: Decimal | None, marked: bool, overlay: bool = False) -> Cell:
    if value is None:
        return _NONE
    return Cell(f"{value:.2f}{LIST_MARK if marked else ''}{OVERLAY_MARK if overlay else ''}", float(value))


def _pct(value: float | None, idle_below: float | None = None) -> Cell:
    if value is None:
        return _NONE
    style = theme.WARNING if idle_below is not None and value < idle_below else ""
    return Cell(f"{value:.0f}%", value, style=style)


def _mib(used: float | None, total: float | None) -> Cell:
    if used is None:
        return _NONE
    gib = f"{used / 1024:.1f}"
    return Cell(f"{gib}/{total / 1024:.1f}Gi" if total else f"{gib}Gi", used)


def _watts(value: float | None) -> Cell:
    return _NONE if value is None else Cell(f"{value:.0f}W", value)


def _col(
    header: str, kind: Kind = Kind.TEXT, *, wide: bool = False, priority: int = Priority.USEFUL
) -> Column:
    return Column(
        header.lower().replace(" ", "_").replace("/", "_per_"), header, kind, wide=wide, priority=priority
    )


NAME, ANSWER = Priority.NAME, Priority.ANSWER  # narrow: what the row is, how busy it is, what idle costs


WORKLOAD_COLUMNS = (
    _col("WORKLOAD", priority=NAME),
    _col("PODS", Kind.COUNT),
    _col("GPUS", Kind.COUNT),
    _col("UTIL", Kind.QUANTITY, priority=ANSWER),
    _col("IDLE-GPUS", Kind.COUNT, priority=ANSWER),
    _col("HELD $/H", Kind.MONEY),
    _col("IDLE $/H", Kind.MONEY, priority=ANSWER),
)
INFERENCE_COLUMNS = (
    _col("INFERENCE WORKLOAD", priority=NAME),
    _col("SERVER"),
    _col("TOKENS/S", Kind.QUANTITY, priority=ANSWER),
    _col("$/H", Kind.MONEY),
    _col("$/1M TOKENS", Kind.MONEY, priority=ANSWER),
    _col("STATUS", Kind.CODE),
    _col("MODEL", wide=True),
    _col("PROMPT-TOKENS/S", Kind.QUANTITY, wide=True),
    _col("RESETS", Kind.COUNT, wide=True),
)
NODE_COLUMNS = (
    _col("NODE", priority=NAME),
    _col("INSTANCE", priority=Priority.EXTRA),
    _col("GPUS", Kind.COUNT),
    _col("HELD", Kind.COUNT),
    _col("UTIL", Kind.QUANTITY, priority=ANSWER),
    _col("SOURCE", Kind.CODE, priority=Priority.EXTRA),
    _col("STATE", Kind.CODE, priority=ANSWER),
    _col("$/H", Kind.MONEY),
    _col("IDLE $/H", Kind.MONEY, priority=ANSWER),
    _col("MEMORY", Kind.QUANTITY, wide=True),
    _col("POWER", Kind.QUANTITY, wide=True),
    _col("NODEPOOL", wide=True),
)
POD_COLUMNS = (
    _col("POD", priority=NAME),
    _col("NODE"),
    _col("GPUS", Kind.COUNT),
    _col("UTIL", Kind.QUANTITY, priority=ANSWER),
    _col("SOURCE", Kind.CODE, priority=Priority.EXTRA),
    _col("HELD $/H", Kind.MONEY),
    _col("IDLE", Kind.CODE, priority=ANSWER),
    _col("WORKLOAD", wide=True),
    _col("ATTRIBUTION", Kind.CODE, wide=True),
    _col("MEMORY", Kind.QUANTITY, wide=True),
)
GPU_COLUMNS = (
    _col("GPU", priority=NAME),
    _col("MODEL"),
    _col("UTIL", Kind.QUANTITY, priority=ANSWER),
    _col("MEMORY", Kind.QUANTITY),
    _col("POWER", Kind.QUANTITY),
    _col("PODS"),
    _col("SOURCE", Kind.CODE),
    _col("FIELD", wide=True),
    _col("SAMPLES", Kind.COUNT, wide=True),
    _col("ATTRIBUTION", Kind.CODE, wide=True),
)


def _table(name: str, columns: tuple[Column, ...], rows: Sequence[Row[T]], wide: bool) -> Table[T]:
    if wide:
        return Table(name, columns, tuple(rows))
    keep = [i for i, c in enumerate(columns) if not c.wide]
    narrow = tuple(Row(r.key, tuple(r.cells[i] for i in keep), r.ref, r.node, r.obj) for r in rows)
    return Table(name, tuple(columns[i] for i in keep), narrow)


def _workload_row(g: GroupUsage, marked: bool, idle_below: float) -> Row[GroupUsage]:
    w = g.workload
    cells = (
        Cell(g.name),
        _count(g.pods),
        _count(g.held),
        _pct(g.util_percent, idle_below),
        _count(g.idle_gpus),
        _money(g.held_cost_per_hour, marked),
        _money(g.idle_cost_per_hour, marked),
    )
    return Row(g.name, cells, ObjectRef(w.kind, w.name, w.namespace) if w else None, None, g)


def _inference_row(t: TokenCost, marked: bool) -> Row[TokenCost]:
    w = t.workload
    rate = t.output_tokens_per_s
    prompt = t.prompt_tokens_per_s
    cells = (
        Cell(str(w)),
        Cell(t.server or "-"),
        Cell(f"{rate:.1f}", rate) if rate is not None else _NONE,
        _money(t.cost_per_hour, marked),
        _money(t.usd_per_million_output_tokens, marked),
        Cell(t.status, style="" if t.status == "ok" else theme.MUTED),
        Cell(t.model or "-"),
        Cell(f"{prompt:.1f}", prompt) if prompt is not None else _NONE,
        _count(t.resets),
    )
    return Row(str(w), cells, ObjectRef(w.kind, w.name, w.namespace), None, t)


def _node_row(n: NodeUsage, idle_below: float) -> Row[NodeUsage]:
    marked = n.price_source == SOURCE_LIST
    state_style = theme.WARNING if n.state in ("idle", "empty") else ""
    cells = (
        Cell(n.name),
        Cell(n.instance_type or "-"),
        _count(n.gpus),
        _count(n.held) if n.held is not None else _NONE,
        _pct(n.util_percent, idle_below),
        Cell(n.source, style="" if n.source != "allocation-only" else theme.MUTED),
        Cell(n.state, style=state_style),
        _money(n.price_per_hour, marked, n.price_source == SOURCE_OVERLAY),
        _money(n.idle_cost_per_hour, marked),
        _mib(n.memory_used_mib, n.memory_total_mib),
        _watts(n.power_w),
        Cell(n.node_pool or "-"),
    )
    return Row(n.name, cells, ObjectRef("Node", n.name), n.name, n)


def _pod_row(p: PodUsage, marked: bool, idle_below: float) -> Row[PodUsage]:
    idle = "-" if p.idle is None else ("idle" if p.idle else "busy")
    bound = p.attribution == "node-max"
    util = _pct(p.util_percent, idle_below)
    if bound and p.util_percent is not None:
        util = Cell(f"<={p.util_percent:.0f}%", p.util_percent, style=util.style)
    cells = (
        Cell(f"{p.namespace}/{p.name}"),
        Cell(p.node),
        _count(p.held),
        util,
        Cell(p.source, style="" if p.source != "allocation-only" else theme.MUTED),
        _money(p.held_cost_per_hour, marked),
        Cell(idle, style=theme.WARNING if p.idle else ""),
        Cell(str(p.workload)),
        Cell(p.attribution or "-"),
        _mib(p.memory_used_mib, None),
    )
    return Row(f"{p.namespace}/{p.name}", cells, ObjectRef("Pod", p.name, p.namespace), p.node, p)


def _gpu_row(g: GpuUsage, idle_below: float) -> Row[GpuUsage]:
    name = f"{g.node or '?'}/{g.index if g.index is not None else g.uuid or '?'}"
    # A MIG instance by its profile and GPU instance id: two instances of one profile stay two rows apart.
    mig = ", ".join(x for x in (g.mig_profile, f"GI {g.mig_instance}" if g.mig_instance else None) if x)
    if mig:
        name += f" ({mig})"
    cells = (
        Cell(name),
        Cell(g.model or "-"),
        _pct(g.util_percent, idle_below),
        _mib(g.memory_used_mib, g.memory_total_mib),
        _watts(g.power_w),
        Cell(",".join(g.pods) or "-"),
        Cell(g.source),
        Cell(g.util_field or "-"),
        _count(g.samples),
        Cell(g.attribution or "-"),
    )
    return Row(f"{name}:{g.uuid or ''}", cells, ObjectRef("Node", g.node) if g.node else None, g.node, g)


class UsageTables(msgspec.Struct, frozen=True):
    """The usage view's tables, each typed by its rows' object (None: no row); pods and GPUs only wide."""

    workloads: Table[GroupUsage] | None
    inference: Table[TokenCost] | None
    nodes: Table[NodeUsage] | None
    pods: Table[PodUsage] | None
    gpus: Table[GpuUsage] | None

    def all(self) -> list[Table[object]]:
        tables = (self.workloads, self.inference, self.nodes, self.pods, self.gpus)
        return [t for t in tables if t is not None]


def _some(name: str, columns: tuple[Column, ...], rows: Sequence[Row[T]], wide: bool) -> Table[T] | None:
    return _table(name, columns, rows, wide) if rows else None


def usage_tables(report: UsageReport, *, wide: bool) -> UsageTables:
    marked = any(n.price_source == SOURCE_LIST for n in report.nodes)
    below = report.idle_below
    return UsageTables(
        _some(
            "usage-workloads",
            WORKLOAD_COLUMNS,
            [_workload_row(g, marked, below) for g in report.workloads],
            wide,
        ),
        _some(
            "usage-inference", INFERENCE_COLUMNS, [_inference_row(t, marked) for t in report.inference], wide
        ),
        _some("usage-nodes", NODE_COLUMNS, [_node_row(n, below) for n in report.nodes], wide),
        _some("usage-pods", POD_COLUMNS, [_pod_row(p, marked, below) for p in report.pods], wide)
        if wide
        else None,
        _some("usage-gpus", GPU_COLUMNS, [_gpu_row(g, below) for g in report.gpus], wide) if wide else None,
    )


def usage_view(report: UsageReport, *, wide: bool) -> View:
    if not report.nodes:
        return View.sentence("No nodes with accelerators.")
    marked = any(n.price_source == SOURCE_LIST for n in report.nodes)
    parts: list[Part] = []
    for table in usage_tables(report, wide=wide).all():
        parts += [*([prose("")] if parts else []), table]
    if report.findings:
        parts += [prose(""), *findings_parts(report.findings)]
    parts += _footer(report, marked)
    return View.of(parts)


def _footer(report: UsageReport, marked: bool) -> list[Part]:
    t = report.totals
    money: Callable[[Decimal], str] = lambda v: f"${v:.2f}/h"  # noqa: E731
    # Nothing measured: what held GPUs waste is unknown, never $0.
    held = money(t.idle_held_cost) if t.measured else "unknown"
    line = (
        f"window {report.window_s:g}s; GPUs held {_n(t.held)} of {_n(t.gpus)} (utilisation known for "
        f"{_n(t.measured)}); idle: {held} held below {report.idle_below:g}% + "
        f"{money(t.empty_node_cost)} on nodes without GPU pods"
    )
    parts: list[Part] = [prose(""), prose((line, theme.MUTED))]
    if marked:
        parts.append(prose((list_price_footnote(report.region), theme.MUTED)))
    return parts
