"""NVMe (`m`): `kubectl gpu nvme`: is each GPU node's local NVMe its ephemeral storage (RAID0), raw, degraded?"""

from __future__ import annotations

from rich.console import RenderableType

from kubectl_gpu.core.analyses.nvme.analysis import NvmeRow
from kubectl_gpu.render import model
from kubectl_gpu.render.nvme_view import nvme_table
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines, object_detail
from kubectl_gpu.tui.views.findings import findings_section
from kubectl_gpu.tui.views.model_grid import Fit, to_grid

__all__ = ["NvmeView"]

FITS: tuple[Fit[NvmeRow], ...] = tuple(
    Fit(key, flex=key == "devices")
    for key in ("name", "instance", "nodepool", "nvme", "state", "devices", "requested", "ephemeral")
)


def _detail(refresh: Refresh, row: model.Row[NvmeRow]) -> RenderableType:
    head = lines([("Evidence", "; ".join(row.obj.evidence)), ("Why", row.obj.reason)])
    return object_detail(refresh, row.ref, head)


class NvmeView(TableView, page="nvme"):
    SECTIONS = ("Nodes", "Findings")

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        report = refresh.nvme
        nodes = to_grid(
            nvme_table(report, wide=False) if report.rows else None,
            fits=FITS,
            detail=lambda row: _detail(refresh, row),
            empty="No nodes with accelerators.",
        )
        return ViewModel((Section("Nodes", nodes), Section("Findings", findings_section(report.findings))))
