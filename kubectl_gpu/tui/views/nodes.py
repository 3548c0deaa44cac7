"""Nodes (`n`): `kubectl gpu nodes`, with a per-node allocation bar and the node's expiry from `lifecycle`."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from functools import partial

from rich.console import RenderableType
from rich.text import Text

from kubectl_gpu.core.fleet.nodes import NodeRow
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render.nodes_table import nodes_table
from kubectl_gpu.tui.data import Snapshot, node_parts
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, findings_detail, lines
from kubectl_gpu.tui.views.convert import RowMeta, make_row, rich_rows, tables_of
from kubectl_gpu.tui.widgets.bar import allocation_bar, legend
from kubectl_gpu.tui.widgets.grid import Cell, Column, Table

__all__ = ["NodesView"]

ZERO = Decimal(0)

# Most telling first, so that 80 columns show name, allocation, health and driver.
COLUMNS = (
    Column("NAME", max_width=40),
    Column("ALLOC/REQ/FREE"),  # the allocation bar, then the CLI's numbers
    Column("HEALTH", max_width=40),
    Column("DRIVER"),
    Column("EXPIRES"),
    Column("NODEPOOL"),
    Column("INSTANCE"),
    Column("GPU"),
    Column("GPU-MEM"),
    Column("AGE"),
    Column("COMPUTE"),
)


def _detail(snapshot: Snapshot, row: NodeRow) -> RenderableType:
    acc = row.accelerator
    usage = None
    if acc is not None:
        usage = f"{acc.model or '?'} x{acc.capacity}: allocatable {acc.allocatable}, requested {acc.requested}, free {acc.free}"
    unhealthy = ", ".join(f"{c.type}={c.status} ({c.reason or '-'})" for c in row.unhealthy) or None
    driver = f"{row.driver.version or 'unknown'} (CUDA {row.driver.cuda_max or '?'}; {row.driver.source})"
    head = lines(
        [
            ("Node", Text(row.name, style="bold")),
            ("Accelerators", usage),
            ("Driver", driver),
            ("Pool / claim", f"{row.node_pool or '-'} / {row.node_claim or '-'}"),
            ("Instance", f"{row.instance_type or '-'} {row.capacity_type or ''} {row.zone or ''}".strip()),
            ("Unhealthy", unhealthy),
            ("OS", row.os_image),
            ("Keys", "s nvidia-smi  x shell  y YAML  e events  space mark"),
        ]
    )
    return findings_detail(head, snapshot.findings_for(ObjectRef("Node", row.name)))


def _expiries(snapshot: Snapshot) -> dict[str, str]:
    out: dict[str, str] = {}
    for life in snapshot.lifecycle.nodes:
        if life.expires_at is None:
            continue
        left = life.expires_at - snapshot.now
        out[life.name] = "now" if left.total_seconds() <= 0 else f"in {format_age(left)}"
    return out


def _text(cell: Cell) -> Text:
    return cell if isinstance(cell, Text) else Text(cell)


def build_nodes(snapshot: Snapshot) -> Table:
    report = snapshot.nodes
    idle = {i.cost.row.name for i in snapshot.cost.idle_nodes}
    expiries = _expiries(snapshot)
    cli_rows = rich_rows(tables_of(nodes_table(report, wide=False))[0]) if report.rows else []
    rows = []
    for node, cells in zip(report.rows, cli_rows, strict=True):
        parts = node_parts(node, node.name in idle)
        usage = allocation_bar(*parts, width=8)
        usage.append(" ")
        usage.append_text(_text(cells.get("ALLOC/REQ/FREE", "")))
        extra: dict[str, Cell] = {"ALLOC/REQ/FREE": usage, "EXPIRES": expiries.get(node.name, "-")}
        values = [extra.get(c.label, cells.get(c.label, "")) for c in COLUMNS]
        meta = RowMeta(
            node.name,
            ObjectRef("Node", node.name),
            node.name,
            partial(_detail, snapshot, node),
        )
        row = make_row(values, meta)
        free = node.accelerator.free if node.accelerator else ZERO
        sort = list(row.sort)
        sort[1] = float(free)  # the bar sorts by free accelerators
        rows.append(dataclasses.replace(row, sort=tuple(sort)))
    return Table(COLUMNS, tuple(rows), empty="No nodes with accelerators.")


class NodesView(TableView):
    view_id = "nodes"
    title = "Nodes"
    key = "n"
    SECTIONS = ("Nodes",)

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        return ViewModel((Section("Nodes", build_nodes(snapshot)),), summary=legend())
