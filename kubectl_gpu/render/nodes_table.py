"""`kubectl gpu nodes` as a view model: one row per node."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from kubectl_gpu.core.accelerators.nodes import NodeRow
from kubectl_gpu.core.analyses.nodes import NodeReport
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Row, Table, View, prose

__all__ = ["COLUMNS", "health_problems", "nodes_table", "nodes_view"]

COLUMNS = (
    Column("name", "NAME"),
    Column("instance", "INSTANCE"),
    Column("compute", "COMPUTE", Kind.CODE),
    Column("nodepool", "NODEPOOL"),
    Column("gpu", "GPU"),
    Column("alloc", "ALLOCATABLE/REQ/FREE", Kind.QUANTITY),
    Column("gpu_mem", "GPU-MEM", Kind.QUANTITY),
    Column("driver", "DRIVER"),
    Column("age", "AGE", Kind.AGE),
    Column("health", "HEALTH", Kind.CODE),
    Column("resource", "RESOURCE", wide=True),
    Column("capacity", "CAPACITY", Kind.CODE, wide=True),
    Column("zone", "ZONE", wide=True),
    Column("nodeclaim", "NODECLAIM", wide=True),
    Column("os_image", "OS-IMAGE", wide=True),
    Column("instance_id", "INSTANCE-ID", wide=True),
    Column("price", "$/H", Kind.MONEY, wide=True),
    Column("idle", "IDLE", Kind.COUNT, wide=True),
)


def _n(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _text(value: str | None) -> Cell:
    return Cell(value or "-")


def _gpu(row: NodeRow) -> Cell:
    acc = row.accelerator
    if acc is None:
        return Cell("-")
    return Cell(f"{acc.model or '?'} x{_n(acc.capacity)}", float(acc.capacity))


def _usage(row: NodeRow) -> Cell:
    """allocatable/requested/free (`core.accelerators.parts`, docs/vocabulary.md), `?` where the pods'
    requests are not known; sorts by free."""
    acc = row.accelerator
    if acc is None:
        return Cell("-", -1)
    parts = row.parts
    known = parts.known
    requested = _n(parts.requested) if known else "?"
    free = _n(parts.free) if known else "?"
    text = f"{_n(parts.allocatable)}/{requested}/{free}"
    if acc.source != "device-plugin":
        text += f" ({acc.source})"
    if not known:
        return Cell(text, -1, theme.WARNING)
    style = theme.GOOD if parts.free > 0 else (theme.WARNING if parts.allocatable > 0 else theme.ERROR)
    return Cell(text, float(parts.free), style)


def _memory(row: NodeRow) -> Cell:
    acc = row.accelerator
    if acc is None or acc.memory_mib is None:
        return Cell("-", -1)
    return Cell(f"{acc.memory_mib / 1024:.0f}Gi", acc.memory_mib)


def _driver(row: NodeRow) -> Cell:
    if row.accelerator is None:  # a CPU-only node (`--all`): no driver to know
        return Cell("-")
    if row.driver.version is None:
        return Cell("unknown")
    cuda = f" (CUDA {row.driver.cuda_max})" if row.driver.cuda_max else ""
    return Cell(f"{row.driver.version}{cuda}")


def health_problems(row: NodeRow) -> list[str]:
    """What is wrong with a node, each named with its value ("AcceleratedHardwareReady" alone would read
    as healthy); empty when nothing is."""
    problems = [f"{c.type}={c.status}" for c in row.unhealthy if c.type != "Ready"]
    if not row.ready:
        problems.insert(0, "NotReady")
    if row.unschedulable:
        problems.append("Cordoned")
    return problems


def _health(row: NodeRow) -> Cell:
    problems = health_problems(row)
    if problems:
        return Cell(",".join(problems), style=theme.ERROR)
    return Cell("ok", style=theme.GOOD)


def _resource(row: NodeRow) -> Cell:
    resources = [a.resource for a in (row.accelerator, *row.other_resources) if a and a.resource]
    return Cell(",".join(resources) or "-")


def _price(row: NodeRow) -> Cell:
    """Hourly price; `*` marks the catalog's us-east-1 list price (a footnote explains it)."""
    if row.price_per_hour is None:
        return Cell("-", -1)
    mark = "*" if row.price_source == "list-us-east-1" else ""
    return Cell(f"{row.price_per_hour:.2f}{mark}", float(row.price_per_hour))


def _age(report: NodeReport, row: NodeRow) -> Cell:
    if not isinstance(row.created, datetime):
        return Cell("-", -1)
    age = report.now - row.created
    return Cell(format_age(age), age.total_seconds())


def _row(report: NodeReport, row: NodeRow, wide: bool) -> Row[NodeRow]:
    cells = [
        Cell(row.name),
        _text(row.instance_type),
        Cell(row.compute_type),
        _text(row.node_pool),
        _gpu(row),
        _usage(row),
        _memory(row),
        _driver(row),
        _age(report, row),
        _health(row),
    ]
    if wide:
        parts = row.parts
        idle = parts.idle if row.accelerator is not None and parts.known else None
        cells += [
            _resource(row),
            _text(row.capacity_type),
            _text(row.zone),
            _text(row.node_claim),
            _text(row.os_image),
            _text(row.instance_id),
            _price(row),
            Cell(_n(idle), float(idle)) if idle is not None else Cell("-", -1),
        ]
    return Row(row.name, tuple(cells), ObjectRef("Node", row.name), row.name, row)


def nodes_table(report: NodeReport, *, wide: bool) -> Table[NodeRow]:
    columns = tuple(c for c in COLUMNS if wide or not c.wide)
    return Table("nodes", columns, tuple(_row(report, r, wide) for r in report.rows))


def nodes_view(
    report: NodeReport, *, wide: bool, include_all: bool = False, price_region: str | None = None
) -> View:
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        return View.sentence(f"No nodes{where}.")
    parts: list[Part] = [nodes_table(report, wide=wide)]
    if wide and any(r.price_source == "list-us-east-1" for r in report.rows):
        from kubectl_gpu.render.cost_view import list_price_footnote

        parts.append(prose((list_price_footnote(price_region), theme.MUTED)))
    return View.of(parts)
