"""NVMe (`m`): `kubectl gpu nvme`: is each GPU node's local NVMe its ephemeral storage (RAID0), raw, degraded?"""

from __future__ import annotations

from kubectl_gpu.render.nvme_view import nvme_view
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.convert import RowMeta, from_rich, tables_of
from kubectl_gpu.tui.views.drivers import node_meta
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["NvmeView"]


class NvmeView(TableView):
    view_id = "nvme"
    title = "NVMe"
    key = "m"
    SECTIONS = ("Nodes", "Findings")

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        report = snapshot.nvme
        tables = tables_of(nvme_view(report, wide=False))
        rows = report.rows

        def meta(i: int) -> RowMeta:
            row = rows[i]
            head = lines([("Evidence", "; ".join(row.evidence)), ("Why", row.reason)])
            return node_meta(snapshot, row.name, head)

        nodes = (
            from_rich(tables[0], meta, flex=("DEVICES",))
            if rows and tables
            else Table((Column("NAME"),), (), empty="No nodes with accelerators.")
        )
        return ViewModel((Section("Nodes", nodes), Section("Findings", findings_section(report.findings))))
