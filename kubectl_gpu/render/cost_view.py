"""Human views for `kubectl gpu cost` and `kubectl gpu inventory`."""

from __future__ import annotations

from decimal import Decimal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.cost.analysis import CostReport, CostSums, IdleNode
from kubectl_gpu.core.analyses.cost.inventory import Inventory
from kubectl_gpu.core.catalog.pricing import SOURCE_LIST, Price
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_table

__all__ = ["LIST_MARK", "cost_view", "inventory_table", "inventory_view", "list_price_footnote", "price_cell"]

LIST_MARK = "*"


def _n(value: Decimal) -> str:
    value = value.quantize(Decimal("0.001"))
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _usd(value: Decimal | float | None, marked: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}{LIST_MARK if marked else ''}"


def price_cell(price: Price | float | None, source: str | None = None) -> str:
    """A price with the list-price mark when it is the catalog's us-east-1 list price."""
    if isinstance(price, Price):
        return _usd(price.usd_per_hour, price.source == SOURCE_LIST)
    return _usd(price, source == SOURCE_LIST)


def list_price_footnote(region: str | None) -> str:
    where = f"; the cluster is in {region}" if region and region != "us-east-1" else ""
    return (
        f"{LIST_MARK} us-east-1 Linux on-demand list price (Karpenter's pricing table){where}: "
        "pass --price-file for your prices"
    )


def _table(*columns: str) -> Table:
    return theme.table(columns, wrap=("KEPT-BY",))


def _sums_cells(s: CostSums) -> list[str]:
    marked = s.list_priced > 0
    return [
        str(s.nodes),
        str(s.idle_nodes),
        _n(s.capacity),
        _n(s.allocated),
        _n(s.idle),
        _usd(s.price, marked) if s.nodes > s.unpriced else "-",
        _usd(s.idle_cost, marked) if s.nodes > s.unpriced else "-",
    ]


def _pools(report: CostReport) -> Table:
    table = _table(
        "NODEPOOL", "POLICY", "AFTER", "NODES", "IDLE-NODES", "ACCEL", "ALLOC", "IDLE", "$/H", "IDLE $/H"
    )
    for pool in report.pools:
        table.add_row(
            pool.name or "(none)",
            pool.consolidation_policy or "-",
            pool.consolidate_after or "-",
            *_sums_cells(pool.sums),
        )
    table.add_row(Text("TOTAL", style=theme.HEADER), "", "", *_sums_cells(report.totals))
    return table


def _namespaces(report: CostReport) -> Table:
    table = _table("NAMESPACE", "GPU-PODS", "ALLOC", "$/H", "IDLE-SHARE", "IDLE-SHARE $/H")
    marked = report.totals.list_priced > 0
    for ns in report.namespaces:
        table.add_row(
            ns.name,
            str(ns.gpu_pods),
            _n(ns.allocated),
            _usd(ns.cost_per_hour, marked) if ns.priced else "-",
            _n(ns.idle_share),
            _usd(ns.idle_share_cost_per_hour, marked) if ns.priced else "-",
        )
    return table


def _kept(idle: IdleNode) -> str:
    return "; ".join(k.reason for k in idle.kept_by) or "nothing found (see its NodeClaim's events)"


def _idle_nodes(report: CostReport, *, wide: bool) -> Table:
    columns = ["IDLE NODE", "INSTANCE", "NODEPOOL", "ACCEL", "IDLE-FOR", "SINCE", "$/H", "SO-FAR", "KEPT-BY"]
    if wide:
        columns += ["NODECLAIM", "OTHER-PODS"]
    table = _table(*columns)
    for idle in report.idle_nodes:
        row = idle.cost.row
        price = idle.cost.price
        marked = price is not None and price.source == SOURCE_LIST
        cells: list[RenderableType] = [
            row.name,
            row.instance_type or "-",
            row.node_pool or "-",
            _n(idle.cost.capacity),
            format_age(idle.idle_for) if idle.idle_for is not None else "-",
            idle.idle_since_source or "-",
            price_cell(price),
            _usd(idle.idle_cost_so_far, marked),
            Text(_kept(idle), style=theme.WARNING if not idle.only_waiting else ""),
        ]
        if wide:
            cells += [idle.node_claim or "-", ",".join(idle.other_pods) or "-"]
        table.add_row(*cells)
    return table


def cost_view(report: CostReport, *, wide: bool) -> RenderableType:
    if not report.nodes:
        return Text("No nodes with accelerators.")
    parts: list[RenderableType] = [_pools(report)]
    if report.namespaces:
        parts += [Text(""), _namespaces(report)]
    if report.idle_nodes:
        parts += [Text(""), _idle_nodes(report, wide=wide)]
    if report.findings:
        parts += [Text(""), findings_table(report.findings, fix_column=False)]
    if report.totals.list_priced:
        parts += [Text(""), Text(list_price_footnote(report.region), style=theme.MUTED)]
    return Group(*parts)


def inventory_table(inventory: Inventory, *, wide: bool) -> Table:
    columns = ["INSTANCE-ID", "TYPE", "ZONE", "NODEPOOL", "NODECLAIM", "AMI", "LAUNCHED", "COMPUTE"]
    if wide:
        columns += ["NODE", "CAPACITY", "ACCELERATOR", "COUNT", "$/H"]
    table = _table(*columns)
    for inst in inventory.instances:
        cells: list[RenderableType] = [
            inst.instance_id or "-",
            inst.instance_type or "-",
            inst.zone or "-",
            inst.node_pool or "-",
            inst.node_claim or "-",
            inst.ami or "-",
            inst.launch_time.isoformat().replace("+00:00", "Z") if inst.launch_time else "-",
            inst.compute_type,
        ]
        if wide:
            cells += [
                inst.node or "(not registered)",
                inst.capacity_type or "-",
                inst.accelerator or "-",
                _n(inst.accelerator_count) if inst.accelerator_count is not None else "-",
                price_cell(inst.price),
            ]
        table.add_row(*cells)
    return table


def inventory_view(
    inventory: Inventory, *, wide: bool, include_all: bool = False, price_region: str | None = None
) -> RenderableType:
    if not inventory.instances:
        where = "" if include_all else " with accelerators (use --all to list every instance)"
        return Text(f"No instances{where}.")
    parts: list[RenderableType] = [inventory_table(inventory, wide=wide)]
    if wide and any(i.price and i.price.source == "list-us-east-1" for i in inventory.instances):
        parts.append(Text(list_price_footnote(price_region), style=theme.MUTED))
    return Group(*parts)
