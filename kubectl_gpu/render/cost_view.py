"""`kubectl gpu cost` and `kubectl gpu inventory` as view models."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.analyses.cost.analysis import CostReport, CostSums, IdleNode
from kubectl_gpu.core.analyses.cost.inventory import Instance, Inventory
from kubectl_gpu.core.analyses.cost.report import NamespaceCost, PoolCost
from kubectl_gpu.core.catalog.pricing import SOURCE_LIST, Price
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.core.scheduling.overlay_prices import SOURCE_OVERLAY
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Row, Table, View, prose

__all__ = [
    "LIST_MARK",
    "OVERLAY_MARK",
    "cost_view",
    "inventory_table",
    "inventory_view",
    "list_price_footnote",
    "price_cell",
]

LIST_MARK = "*"
OVERLAY_MARK = "+"  # a price a NodeOverlay set (the notes name it)


def _n(value: Decimal) -> str:
    value = value.quantize(Decimal("0.001"))
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _usd(value: Decimal | float | None, marked: bool = False, overlay: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}{LIST_MARK if marked else ''}{OVERLAY_MARK if overlay else ''}"


def price_cell(price: Price | float | None, source: str | None = None) -> str:
    """A price with the list-price mark when it is the catalog's us-east-1 list price, the overlay mark when
    a NodeOverlay set it."""
    if isinstance(price, Price):
        return _usd(price.usd_per_hour, price.source == SOURCE_LIST, price.source == SOURCE_OVERLAY)
    return _usd(price, source == SOURCE_LIST, source == SOURCE_OVERLAY)


def list_price_footnote(region: str | None) -> str:
    where = f"; the cluster is in {region}" if region and region != "us-east-1" else ""
    return (
        f"{LIST_MARK} us-east-1 Linux on-demand list price (Karpenter's pricing table){where}: "
        "pass --price-file for your prices"
    )


#: what a narrow terminal keeps (`Priority`): the row's name (the first column), then the dollars (the
#: page's answer)
_PRIORITY = {
    "$/H": Priority.ANSWER,
    "IDLE $/H": Priority.ANSWER,
    "IDLE-SHARE $/H": Priority.ANSWER,
    "SO-FAR": Priority.ANSWER,
    "IDLE-FOR": Priority.ANSWER,
    "INSTANCE": Priority.EXTRA,
    "NODEPOOL": Priority.EXTRA,  # in the idle nodes (the pools' NODEPOOL names the row)
    "POLICY": Priority.EXTRA,
    "AFTER": Priority.EXTRA,
    "SINCE": Priority.EXTRA,
}


def _columns(*specs: str | tuple[str, Kind]) -> tuple[Column, ...]:
    """Columns named by their headers (the key is the header in lower case); KEPT-BY wraps; the first
    names the row."""
    out: list[Column] = []
    for spec in specs:
        header, kind = spec if isinstance(spec, tuple) else (spec, Kind.TEXT)
        priority = Priority.NAME if not out else _PRIORITY.get(header, Priority.USEFUL)
        key = header.lower().replace(" ", "_")
        out.append(Column(key, header, kind, wrap=header == "KEPT-BY", priority=priority))
    return tuple(out)


def _money(value: Decimal | float | None, marked: bool = False) -> Cell:
    return Cell(_usd(value, marked), float(value) if value is not None else -1)


def _count(value: Decimal | int) -> Cell:
    return Cell(_n(Decimal(value)) if isinstance(value, Decimal) else str(value), float(value))


_SUMS = (
    ("NODES", Kind.COUNT),
    ("IDLE-NODES", Kind.COUNT),
    ("ACCEL", Kind.COUNT),
    ("REQ", Kind.COUNT),
    ("IDLE", Kind.COUNT),
    ("$/H", Kind.MONEY),
    ("IDLE $/H", Kind.MONEY),
)
POOL_COLUMNS = _columns("NODEPOOL", "POLICY", "AFTER", *_SUMS)


def _sums_cells(s: CostSums) -> list[Cell]:
    marked = s.list_priced > 0
    priced = s.nodes > s.unpriced
    return [
        _count(s.nodes),
        _count(s.idle_nodes),
        _count(s.capacity),
        _count(s.allocated),
        _count(s.idle),
        _money(s.price, marked) if priced else Cell("-", -1),
        _money(s.idle_cost, marked) if priced else Cell("-", -1),
    ]


def pools_table(report: CostReport) -> Table[PoolCost | CostSums]:
    rows: list[Row[PoolCost | CostSums]] = []
    for pool in report.pools:
        cells = [Cell(pool.name or "(none)"), Cell(pool.consolidation_policy or "-")]
        cells += [Cell(pool.consolidate_after or "-"), *_sums_cells(pool.sums)]
        ref = ObjectRef("NodePool", pool.name) if pool.name else None
        rows.append(Row(pool.name or "(none)", tuple(cells), ref, None, pool))
    total = [Cell("TOTAL", style=theme.HEADER), Cell(""), Cell(""), *_sums_cells(report.totals)]
    rows.append(Row("TOTAL", tuple(total), None, None, report.totals))
    return Table("pools", POOL_COLUMNS, tuple(rows))


NAMESPACE_COLUMNS = _columns(
    "NAMESPACE",
    ("GPU-PODS", Kind.COUNT),
    ("REQ", Kind.COUNT),
    ("$/H", Kind.MONEY),
    ("IDLE-SHARE", Kind.COUNT),
    ("IDLE-SHARE $/H", Kind.MONEY),
)


def namespaces_table(report: CostReport) -> Table[NamespaceCost]:
    marked = report.totals.list_priced > 0
    rows = []
    for ns in report.namespaces:
        cells = (
            Cell(ns.name),
            _count(ns.gpu_pods),
            _count(ns.allocated),
            _money(ns.cost_per_hour, marked) if ns.priced else Cell("-", -1),
            _count(ns.idle_share),
            _money(ns.idle_share_cost_per_hour, marked) if ns.priced else Cell("-", -1),
        )
        rows.append(Row(ns.name, cells, ObjectRef("Namespace", ns.name), None, ns))
    return Table("namespaces", NAMESPACE_COLUMNS, tuple(rows))


def _kept(idle: IdleNode) -> str:
    return "; ".join(k.reason for k in idle.kept_by) or "nothing found (see its NodeClaim's events)"


IDLE_COLUMNS = _columns(
    "IDLE NODE",
    "INSTANCE",
    "NODEPOOL",
    ("ACCEL", Kind.COUNT),
    ("IDLE-FOR", Kind.AGE),
    "SINCE",
    ("$/H", Kind.MONEY),
    ("SO-FAR", Kind.MONEY),
    "KEPT-BY",
)
IDLE_WIDE_COLUMNS = _columns("NODECLAIM", "OTHER-PODS")


def _idle_row(idle: IdleNode, wide: bool) -> Row[IdleNode]:
    row = idle.cost.row
    price = idle.cost.price
    marked = price is not None and price.source == SOURCE_LIST
    idle_for = idle.idle_for
    cells = [
        Cell(row.name),
        Cell(row.instance_type or "-"),
        Cell(row.node_pool or "-"),
        _count(idle.cost.capacity),
        Cell(format_age(idle_for), idle_for.total_seconds()) if idle_for is not None else Cell("-", -1),
        Cell(idle.idle_since_source or "-"),
        Cell(price_cell(price), float(price.usd_per_hour) if price is not None else -1),
        _money(idle.idle_cost_so_far, marked),
        Cell(_kept(idle), style=theme.WARNING if not idle.only_waiting else ""),
    ]
    if wide:
        cells += [Cell(idle.node_claim or "-"), Cell(",".join(idle.other_pods) or "-")]
    return Row(row.name, tuple(cells), ObjectRef("Node", row.name), row.name, idle)


def idle_table(report: CostReport, *, wide: bool) -> Table[IdleNode]:
    columns = IDLE_COLUMNS + (IDLE_WIDE_COLUMNS if wide else ())
    return Table("idle", columns, tuple(_idle_row(i, wide) for i in report.idle_nodes))


def cost_view(report: CostReport, *, wide: bool) -> View:
    if not report.nodes:
        return View.sentence("No nodes with accelerators.")
    parts: list[Part] = [pools_table(report)]
    if report.namespaces:
        parts += [prose(""), namespaces_table(report)]
    if report.idle_nodes:
        parts += [prose(""), idle_table(report, wide=wide)]
    if report.findings:
        parts += [prose(""), *findings_parts(report.findings, title="FINDINGS")]
    if report.totals.list_priced:
        parts += [prose(""), prose((list_price_footnote(report.region), theme.MUTED))]
    return View.of(parts)


INVENTORY_COLUMNS = _columns(
    "INSTANCE-ID", "TYPE", "ZONE", "NODEPOOL", "NODECLAIM", "AMI", "LAUNCHED", "COMPUTE"
)
INVENTORY_WIDE_COLUMNS = _columns(
    "NODE", "CAPACITY", "ACCELERATOR", ("COUNT", Kind.COUNT), ("$/H", Kind.MONEY)
)


def _instance_row(index: int, inst: Instance, wide: bool) -> Row[Instance]:
    cells = [
        Cell(inst.instance_id or "-"),
        Cell(inst.instance_type or "-"),
        Cell(inst.zone or "-"),
        Cell(inst.node_pool or "-"),
        Cell(inst.node_claim or "-"),
        Cell(inst.ami or "-"),
        Cell(inst.launch_time.isoformat().replace("+00:00", "Z") if inst.launch_time else "-"),
        Cell(inst.compute_type),
    ]
    if wide:
        count = inst.accelerator_count
        cells += [
            Cell(inst.node or "(not registered)"),
            Cell(inst.capacity_type or "-"),
            Cell(inst.accelerator or "-"),
            _count(count) if count is not None else Cell("-", -1),
            Cell(price_cell(inst.price), float(inst.price.usd_per_hour) if inst.price else -1),
        ]
    ref = ObjectRef("Node", inst.node) if inst.node else None
    return Row(inst.instance_id or inst.node_claim or str(index), tuple(cells), ref, inst.node, inst)


def inventory_table(inventory: Inventory, *, wide: bool) -> Table[Instance]:
    columns = INVENTORY_COLUMNS + (INVENTORY_WIDE_COLUMNS if wide else ())
    rows = tuple(_instance_row(i, inst, wide) for i, inst in enumerate(inventory.instances))
    return Table("instances", columns, rows)


def inventory_view(
    inventory: Inventory, *, wide: bool, include_all: bool = False, price_region: str | None = None
) -> View:
    if not inventory.instances:
        where = "" if include_all else " with accelerators (use --all to list every instance)"
        return View.sentence(f"No instances{where}.")
    parts: list[Part] = [inventory_table(inventory, wide=wide)]
    if wide and any(i.price and i.price.source == "list-us-east-1" for i in inventory.instances):
        parts.append(prose((list_price_footnote(price_region), theme.MUTED)))
    return View.of(parts)
