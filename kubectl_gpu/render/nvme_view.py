"""Human view for `kubectl gpu nvme`: one row per GPU node, then the findings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kubectl_gpu.core.analyses.nvme.analysis import NvmeReport, NvmeRow, NvmeState, format_bytes
from kubectl_gpu.render.drivers_view import findings_table

__all__ = ["nvme_view"]

_STYLE = {
    NvmeState.ACTIVE: "green",
    NvmeState.LIKELY_ACTIVE: "green",
    NvmeState.DEGRADED: "bold red",
    NvmeState.NOT_USED: "yellow",
    NvmeState.NO_NVME: "dim",
    NvmeState.UNKNOWN: "dim",
}


def _requested(row: NvmeRow) -> str:
    if row.requested is not None:
        return f"{row.requested}{' (default)' if row.requested_default else ''}"
    if row.instance_store_policy is not None or (row.node_class and row.node_class[0] == "EC2NodeClass"):
        return f"policy={row.instance_store_policy or 'unset'}"
    return "-"


def nvme_view(report: NvmeReport, *, wide: bool, include_all: bool = False) -> RenderableType:
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        return Text(f"No nodes{where}.")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    columns = ["NAME", "INSTANCE", "NODEPOOL", "NVME", "STATE", "DEVICES", "REQUESTED", "EPHEMERAL-CAP"]
    if wide:
        columns += ["NODECLASS", "EVIDENCE"]
    for column in columns:
        table.add_column(column, no_wrap=column != "EVIDENCE", overflow="fold")
    for r in report.rows:
        cells: list[RenderableType] = [
            r.name,
            r.instance_type or "-",
            r.node_pool or "-",
            r.spec.layout if r.spec else "?",
            Text(str(r.state), style=_STYLE[r.state]),
            ",".join(r.devices) or "-",
            _requested(r),
            format_bytes(r.capacity_bytes),
        ]
        if wide:
            cells += [
                f"{r.node_class[0]}/{r.node_class[1]}" if r.node_class else "-",
                "; ".join(r.evidence) or "-",
            ]
        table.add_row(*cells)
    parts: list[RenderableType] = [table]
    if report.findings:
        parts += [Text(""), findings_table(report.findings)]
    return Group(*parts)
