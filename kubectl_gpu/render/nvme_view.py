"""Human view for `kubectl gpu nvme`: one row per GPU node, then the findings."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.analyses.nvme.analysis import NvmeReport, NvmeRow, format_bytes
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_table

__all__ = ["nvme_view"]


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
    columns = ["NAME", "INSTANCE", "NODEPOOL", "NVME", "STATE", "DEVICES", "REQUESTED", "EPHEMERAL-CAP"]
    if wide:
        columns += ["NODECLASS", "EVIDENCE"]
    table = theme.table(columns, wrap=("EVIDENCE",))
    for r in report.rows:
        cells: list[RenderableType] = [
            r.name,
            r.instance_type or "-",
            r.node_pool or "-",
            r.spec.layout if r.spec else "?",
            Text(str(r.state), style=theme.NVME_STATE.get(r.state, "")),
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
        parts += [Text(""), findings_table(report.findings, title="FINDINGS")]
    return Group(*parts)
