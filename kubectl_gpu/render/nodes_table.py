"""Human table for `kubectl gpu nodes`."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.nodes import NodeReport
from kubectl_gpu.core.fleet.nodes import NodeRow
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.render import theme

__all__ = ["nodes_table", "nodes_view"]


def _n(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _gpu(row: NodeRow) -> str:
    acc = row.accelerator
    if acc is None:
        return "-"
    model = acc.model or "?"
    return f"{model} x{_n(acc.capacity)}"


def _usage(row: NodeRow) -> Text:
    acc = row.accelerator
    if acc is None:
        return Text("-")
    requested, free = acc.known_requested, acc.known_free  # None: the pods could not be listed
    text = f"{_n(acc.allocatable)}/{'?' if requested is None else _n(requested)}/{'?' if free is None else _n(free)}"
    if acc.source != "device-plugin":
        text += f" ({acc.source})"
    if free is None:
        return Text(text, style=theme.WARNING)
    style = theme.GOOD if free > 0 else (theme.WARNING if acc.allocatable > 0 else theme.ERROR)
    return Text(text, style=style)


def _memory(row: NodeRow) -> str:
    acc = row.accelerator
    if acc is None or acc.memory_mib is None:
        return "-"
    return f"{acc.memory_mib / 1024:.0f}Gi"


def _driver(row: NodeRow) -> str:
    if row.driver.version is None:
        return "unknown"
    cuda = f" (CUDA {row.driver.cuda_max})" if row.driver.cuda_max else ""
    return f"{row.driver.version}{cuda}"


def _health(row: NodeRow) -> Text:
    # Name the condition with its value: "AcceleratedHardwareReady" alone would read as healthy.
    problems = [f"{c.type}={c.status}" for c in row.unhealthy if c.type != "Ready"]
    if not row.ready:
        problems.insert(0, "NotReady")
    if row.unschedulable:
        problems.append("Cordoned")
    if problems:
        return Text(",".join(problems), style=theme.ERROR)
    return Text("ok", style=theme.GOOD)


def _resource(row: NodeRow) -> str:
    resources = [a.resource for a in (row.accelerator, *row.other_resources) if a and a.resource]
    return ",".join(resources) or "-"


def _price(row: NodeRow) -> str:
    """Hourly price; `*` marks the catalog's us-east-1 list price (a footnote explains it)."""
    if row.price_per_hour is None:
        return "-"
    return f"{row.price_per_hour:.2f}{'*' if row.price_source == 'list-us-east-1' else ''}"


def nodes_table(report: NodeReport, *, wide: bool) -> Table:
    columns = [
        "NAME",
        "INSTANCE",
        "COMPUTE",
        "NODEPOOL",
        "GPU",
        "ALLOC/REQ/FREE",
        "GPU-MEM",
        "DRIVER",
        "AGE",
        "HEALTH",
    ]
    if wide:
        columns += ["RESOURCE", "CAPACITY", "ZONE", "NODECLAIM", "OS-IMAGE", "INSTANCE-ID", "$/H", "IDLE"]
    table = theme.table(columns)
    for row in report.rows:
        age = format_age(report.now - row.created) if isinstance(row.created, datetime) else "-"
        cells: list[str | Text] = [
            row.name,
            row.instance_type or "-",
            row.compute_type,
            row.node_pool or "-",
            _gpu(row),
            _usage(row),
            _memory(row),
            _driver(row),
            age,
            _health(row),
        ]
        if wide:
            cells += [
                _resource(row),
                row.capacity_type or "-",
                row.zone or "-",
                row.node_claim or "-",
                row.os_image or "-",
                row.instance_id or "-",
                _price(row),
                _n(row.idle_accelerators) if row.idle_accelerators is not None else "-",
            ]
        table.add_row(*cells)
    return table


def nodes_view(
    report: NodeReport, *, wide: bool, include_all: bool = False, price_region: str | None = None
) -> RenderableType:
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        return Text(f"No nodes{where}.")
    parts: list[RenderableType] = [nodes_table(report, wide=wide)]
    if wide and any(r.price_source == "list-us-east-1" for r in report.rows):
        from kubectl_gpu.render.cost_view import list_price_footnote

        parts.append(Text(list_price_footnote(price_region), style=theme.MUTED))
    return Group(*parts)
