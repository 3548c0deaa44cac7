"""`kubectl gpu nvme` as a view model: one row per GPU node, then the findings."""

from __future__ import annotations

from kubectl_gpu.core.analyses.nvme.analysis import NvmeReport, NvmeRow, format_bytes
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_parts
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Row, Table, View, prose

__all__ = ["COLUMNS", "nvme_table", "nvme_view"]

#: narrow, a node keeps its NVMe's state (the page's answer)
COLUMNS = (
    Column("name", "NAME", priority=Priority.NAME),
    Column("instance", "INSTANCE", priority=Priority.EXTRA),
    Column("nodepool", "NODEPOOL", priority=Priority.EXTRA),
    Column("nvme", "NVME", priority=Priority.ANSWER),
    Column("state", "STATE", Kind.CODE, priority=Priority.ANSWER),
    Column("devices", "DEVICES"),
    Column("requested", "REQUESTED"),
    Column("ephemeral", "EPHEMERAL-CAP", Kind.QUANTITY),
    Column("nodeclass", "NODECLASS", wide=True),
    Column("evidence", "EVIDENCE", wide=True, wrap=True),
)


def _requested(row: NvmeRow) -> str:
    if row.requested is not None:
        return f"{row.requested}{' (default)' if row.requested_default else ''}"
    if row.instance_store_policy is not None or (row.node_class and row.node_class[0] == "EC2NodeClass"):
        return f"policy={row.instance_store_policy or 'unset'}"
    return "-"


def _row(r: NvmeRow, wide: bool) -> Row[NvmeRow]:
    cells = [
        Cell(r.name),
        Cell(r.instance_type or "-"),
        Cell(r.node_pool or "-"),
        Cell(r.spec.layout if r.spec else "?"),
        Cell(str(r.state), style=theme.NVME_STATE.get(r.state, "")),
        Cell(",".join(r.devices) or "-"),
        Cell(_requested(r)),
        Cell(format_bytes(r.capacity_bytes), float(r.capacity_bytes) if r.capacity_bytes is not None else -1),
    ]
    if wide:
        cells += [
            Cell(f"{r.node_class[0]}/{r.node_class[1]}" if r.node_class else "-"),
            Cell("; ".join(r.evidence) or "-"),
        ]
    return Row(r.name, tuple(cells), ObjectRef("Node", r.name), r.name, r)


def nvme_table(report: NvmeReport, *, wide: bool) -> Table[NvmeRow]:
    columns = tuple(c for c in COLUMNS if wide or not c.wide)
    return Table("nodes", columns, tuple(_row(r, wide) for r in report.rows))


def nvme_view(report: NvmeReport, *, wide: bool, include_all: bool = False) -> View:
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        return View.sentence(f"No nodes{where}.")
    parts: list[Part] = [nvme_table(report, wide=wide)]
    if report.findings:
        parts += [prose(""), *findings_parts(report.findings, title="FINDINGS")]
    return View.of(parts)
