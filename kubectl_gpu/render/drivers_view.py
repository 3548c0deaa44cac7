"""Human view for `kubectl gpu drivers`: nodes, AMI groups, GPU workloads and findings."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.drivers.analysis import MAY_LAND_ON_RULE, DriverReport, NodeCheck, Workload
from kubectl_gpu.core.report import Finding, Severity

__all__ = ["drivers_view", "findings_table"]

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "dim"}
_COMPAT_RANK = {"no": 0, "minor-compat": 1, "unknown": 2, "driver-unknown": 3, "full": 4}
_COMPAT_STYLE = {
    "no": "bold red",
    "minor-compat": "yellow",
    "unknown": "dim",
    "driver-unknown": "dim",
    "full": "green",
}


def _table(title: str | None, columns: Iterable[str], fold: Iterable[str] = ()) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=None,
        pad_edge=False,
        show_edge=False,
        header_style="bold",
    )
    folded = set(fold)
    for column in columns:
        table.add_column(column, no_wrap=column not in folded, overflow="fold")
    return table


def findings_table(findings: Iterable[Finding]) -> Table:
    """The shared findings table: severity, code, object, message, fix."""
    table = _table("FINDINGS", ["SEVERITY", "CODE", "OBJECT", "MESSAGE", "FIX"], fold=("MESSAGE", "FIX"))
    for f in findings:
        table.add_row(
            Text(str(f.severity), style=_SEVERITY_STYLE[f.severity]),
            f.code,
            str(f.object),
            f.message,
            f.fix or "-",
        )
    return table


def _verdict(checks: Iterable[NodeCheck]) -> Text:
    worst = min(checks, key=lambda c: _COMPAT_RANK[c.level], default=None)
    if worst is None:
        return Text("-")
    return Text(worst.level, style=_COMPAT_STYLE[worst.level])


def _cuda(w: Workload) -> str:
    need = w.cuda.need
    if need is None:
        return "redacted" if w.cuda.redacted else "unknown"
    return f"{'>=' if need.at_least else ''}{need.version}"


def _list(items: Iterable[str], limit: int = 3) -> str:
    values = list(items)
    if not values:
        return "-"
    extra = f" +{len(values) - limit}" if len(values) > limit else ""
    return ",".join(values[:limit]) + extra


def drivers_view(report: DriverReport, *, wide: bool) -> RenderableType:
    if not report.nodes and not report.workloads:
        return Text("No NVIDIA GPU nodes or GPU workloads.")
    parts: list[RenderableType] = []
    nodes = _table(
        "NODES",
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
        fold=("DETAIL",),
    )
    for n in report.nodes:
        cuda = "-" if n.cuda_max is None else f"{n.cuda_max}{'+' if n.open_ended else ''}"
        cells: list[RenderableType] = [
            n.name,
            n.node_pool or "-",
            n.instance_type or "-",
            n.ami or "-",
            n.version or "unknown",
            Text(n.source, style="yellow" if n.source in ("inferred", "unknown") else ""),
            cuda,
        ]
        if wide:
            cells += [n.os_image or "-", n.detail or "-"]
        nodes.add_row(*cells)
    parts.append(nodes)
    groups = _table(
        "GROUPS (AMI / OS IMAGE)", ["AMI", "OS-IMAGE", "NODES", "NODEPOOLS", "DRIVERS"], fold=("DRIVERS",)
    )
    for g in report.groups:
        drivers = "; ".join(
            f"{v or 'unknown'}{f' (CUDA {c})' if c else ''} [{s}] x{count}" for v, c, s, count in g.drivers
        )
        groups.add_row(g.ami or "-", g.os_image or "-", str(len(g.nodes)), _list(g.node_pools), drivers)
    parts += [Text(""), groups]
    if report.workloads:
        workloads = _table(
            "GPU WORKLOADS",
            ["NAMESPACE", "WORKLOAD", "CUDA", "CONFIDENCE", "RUNS-ON", "MAY-LAND-ON", "WORST"],
        )
        for w in report.workloads:
            need = w.cuda.need
            workloads.add_row(
                w.namespace,
                f"{w.kind.lower()}/{w.name}",
                _cuda(w),
                str(need.confidence) if need else "-",
                _list(w.runs_on, 2 if not wide else 10),
                _list(w.may_land_on, 2 if not wide else 10),
                _verdict(w.checks),
            )
        parts += [Text(""), workloads, Text(f"May land on: {MAY_LAND_ON_RULE}.", style="dim")]
    if report.findings:
        parts += [Text(""), findings_table(report.findings)]
    return Group(*parts)
