"""`kubectl gpu drivers` as a view model: nodes, AMI groups, GPU workloads and findings."""

from __future__ import annotations

from collections.abc import Iterable

from kubectl_gpu.core.analyses.drivers.analysis import (
    MAY_LAND_ON_RULE,
    DriverGroup,
    DriverReport,
    NodeCheck,
    Workload,
)
from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Row, Table, View, prose

__all__ = ["GROUP_COLUMNS", "NODE_COLUMNS", "WORKLOAD_COLUMNS", "drivers_view"]

_COMPAT_RANK = {"no": 0, "minor-compat": 1, "unknown": 2, "driver-unknown": 3, "full": 4}

#: narrow, a node keeps its driver and CUDA ceiling (the page's answer), a workload its CUDA need and verdict
NODE_COLUMNS = (
    Column("name", "NAME", priority=Priority.NAME),
    Column("nodepool", "NODEPOOL"),
    Column("instance", "INSTANCE"),
    Column("ami", "AMI", priority=Priority.EXTRA),
    Column("driver", "DRIVER", priority=Priority.ANSWER),
    Column("source", "SOURCE", Kind.CODE),
    Column("cuda_max", "CUDA-MAX", priority=Priority.ANSWER),
    Column("os_image", "OS-IMAGE", wide=True),
    Column("detail", "DETAIL", wide=True, wrap=True, brief=True),
)
GROUP_COLUMNS = (
    Column("ami", "AMI", priority=Priority.NAME),
    Column("os_image", "OS-IMAGE", priority=Priority.EXTRA),
    Column("nodes", "NODES", Kind.COUNT),
    Column("nodepools", "NODEPOOLS"),
    Column("drivers", "DRIVERS", wrap=True, priority=Priority.ANSWER),
)
WORKLOAD_COLUMNS = (
    Column("namespace", "NAMESPACE", priority=Priority.EXTRA),
    Column("workload", "WORKLOAD", priority=Priority.NAME),
    Column("cuda", "CUDA", priority=Priority.ANSWER),
    Column("confidence", "CONFIDENCE", Kind.CODE),
    Column("runs_on", "RUNS-ON"),
    Column("may_land_on", "MAY-LAND-ON"),
    Column("worst", "WORST", Kind.CODE, priority=Priority.ANSWER),
)


def _verdict(checks: Iterable[NodeCheck]) -> Cell:
    worst = min(checks, key=lambda c: _COMPAT_RANK[c.level], default=None)
    if worst is None:
        return Cell("-", 9)
    return Cell(worst.level, _COMPAT_RANK[worst.level], theme.COMPAT.get(worst.level, ""))


def _cuda(w: Workload) -> str:
    need = w.cuda.need
    if need is None:
        return "redacted" if w.cuda.redacted else "unknown"
    return f"{'>=' if need.at_least else ''}{need.version}"


def _list(items: Iterable[str], limit: int = 3, total: int | None = None) -> str:
    """The first `limit` names and how many more (`total`: all of them, when `items` lists only some)."""
    values = list(items)
    if not values:
        return "-"
    count = len(values) if total is None else total
    extra = f" +{count - min(limit, len(values))}" if count > min(limit, len(values)) else ""
    return ",".join(values[:limit]) + extra


def nodes_table(report: DriverReport, wide: bool) -> Table[NodeDriver]:
    rows = []
    for n in report.nodes:
        cuda = "-" if n.cuda_max is None else f"{n.cuda_max}{'+' if n.open_ended else ''}"
        cells = [
            Cell(n.name),
            Cell(n.node_pool or "-"),
            Cell(n.instance_type or "-"),
            Cell(n.ami or "-"),
            Cell(n.version or "unknown"),
            Cell(n.source, style=theme.WARNING if n.source in ("inferred", "unknown") else ""),
            Cell(cuda),
        ]
        if wide:
            cells += [Cell(n.os_image or "-"), Cell(n.detail or "-")]
        rows.append(Row(n.name, tuple(cells), ObjectRef("Node", n.name), n.name, n))
    columns = tuple(c for c in NODE_COLUMNS if wide or not c.wide)
    return Table("nodes", columns, tuple(rows), title="NODES")


def groups_table(report: DriverReport) -> Table[DriverGroup]:
    rows: list[Row[DriverGroup]] = []
    for index, g in enumerate(report.groups):
        drivers = "; ".join(
            f"{v or 'unknown'}{f' (CUDA {c})' if c else ''} [{s}] x{count}" for v, c, s, count in g.drivers
        )
        cells = (
            Cell(g.ami or "-"),
            Cell(g.os_image or "-"),
            Cell(str(len(g.nodes)), len(g.nodes)),
            Cell(_list(g.node_pools)),
            Cell(drivers),
        )
        rows.append(Row(f"{index}:{g.ami}:{g.os_image}", cells, None, None, g))
    return Table("groups", GROUP_COLUMNS, tuple(rows), title="GROUPS (AMI / OS IMAGE)")


def workloads_table(report: DriverReport, wide: bool) -> Table[Workload]:
    rows: list[Row[Workload]] = []
    for w in report.workloads:
        need = w.cuda.need
        cells = (
            Cell(w.namespace),
            Cell(f"{w.kind.lower()}/{w.name}"),
            Cell(_cuda(w)),
            Cell(str(need.confidence) if need else "-"),
            Cell(_list(w.runs_on, 2 if not wide else 10)),
            Cell(_list(w.may_land_on, 2 if not wide else 10, w.may_land_on_total)),
            _verdict(w.checks),
        )
        ref = ObjectRef(w.kind, w.name, w.namespace)
        rows.append(Row(f"{w.namespace}/{w.kind}/{w.name}", cells, ref, None, w))
    return Table("workloads", WORKLOAD_COLUMNS, tuple(rows), title="GPU WORKLOADS")


def drivers_view(report: DriverReport, *, wide: bool) -> View:
    if not report.nodes and not report.workloads:
        return View.sentence("No NVIDIA GPU nodes or GPU workloads.")
    parts: list[Part] = [nodes_table(report, wide), prose(""), groups_table(report)]
    if report.workloads:
        rule = prose((f"May land on: {MAY_LAND_ON_RULE}.", theme.MUTED))
        parts += [prose(""), workloads_table(report, wide), rule]
    if report.findings:
        parts += [prose(""), *findings_parts(report.findings, title="FINDINGS")]
    return View.of(parts)
