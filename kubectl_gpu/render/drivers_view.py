"""Human view for `kubectl gpu drivers`: nodes, AMI groups, GPU workloads and findings."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.drivers.analysis import MAY_LAND_ON_RULE, DriverReport, NodeCheck, Workload
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_table

__all__ = ["drivers_view"]

_COMPAT_RANK = {"no": 0, "minor-compat": 1, "unknown": 2, "driver-unknown": 3, "full": 4}


def _verdict(checks: Iterable[NodeCheck]) -> Text:
    worst = min(checks, key=lambda c: _COMPAT_RANK[c.level], default=None)
    if worst is None:
        return Text("-")
    return Text(worst.level, style=theme.COMPAT.get(worst.level, ""))


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


def drivers_view(report: DriverReport, *, wide: bool) -> RenderableType:
    if not report.nodes and not report.workloads:
        return Text("No NVIDIA GPU nodes or GPU workloads.")
    parts: list[RenderableType] = []
    nodes = theme.table(
        [
            "NAME",
            "NODEPOOL",
            "INSTANCE",
            "AMI",
            "DRIVER",
            "SOURCE",
            "CUDA-MAX",
            *(["OS-IMAGE", "DETAIL"] if wide else []),
        ],
        wrap=("DETAIL",),
        title="NODES",
    )
    for n in report.nodes:
        cuda = "-" if n.cuda_max is None else f"{n.cuda_max}{'+' if n.open_ended else ''}"
        cells: list[RenderableType] = [
            n.name,
            n.node_pool or "-",
            n.instance_type or "-",
            n.ami or "-",
            n.version or "unknown",
            Text(n.source, style=theme.WARNING if n.source in ("inferred", "unknown") else ""),
            cuda,
        ]
        if wide:
            cells += [n.os_image or "-", n.detail or "-"]
        nodes.add_row(*cells)
    parts.append(nodes)
    groups = theme.table(
        ["AMI", "OS-IMAGE", "NODES", "NODEPOOLS", "DRIVERS"],
        wrap=("DRIVERS",),
        title="GROUPS (AMI / OS IMAGE)",
    )
    for g in report.groups:
        drivers = "; ".join(
            f"{v or 'unknown'}{f' (CUDA {c})' if c else ''} [{s}] x{count}" for v, c, s, count in g.drivers
        )
        groups.add_row(g.ami or "-", g.os_image or "-", str(len(g.nodes)), _list(g.node_pools), drivers)
    parts += [Text(""), groups]
    if report.workloads:
        workloads = theme.table(
            ["NAMESPACE", "WORKLOAD", "CUDA", "CONFIDENCE", "RUNS-ON", "MAY-LAND-ON", "WORST"],
            title="GPU WORKLOADS",
        )
        for w in report.workloads:
            need = w.cuda.need
            workloads.add_row(
                w.namespace,
                f"{w.kind.lower()}/{w.name}",
                _cuda(w),
                str(need.confidence) if need else "-",
                _list(w.runs_on, 2 if not wide else 10),
                _list(w.may_land_on, 2 if not wide else 10, w.may_land_on_total),
                _verdict(w.checks),
            )
        parts += [Text(""), workloads, Text(f"May land on: {MAY_LAND_ON_RULE}.", style=theme.MUTED)]
    if report.findings:
        parts += [Text(""), findings_table(report.findings, title="FINDINGS")]
    return Group(*parts)
