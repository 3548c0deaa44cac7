"""`kubectl gpu nvme` and the NVMe view (`m`): is each GPU node's local NVMe used, and why not."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

PAGE = Page(
    name="nvme",
    summary="Local NVMe per GPU node: instance store, RAID, ephemeral storage",
    command="nvme",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.nvme", selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.nvme:NvmeReport"),
    view=Ref("kubectl_gpu.render.nvme_view:nvme_view"),
    columns={
        "nodes": (
            "name",
            "instance",
            "nodepool",
            "nvme",
            "state",
            "devices",
            "requested",
            "ephemeral",
            "nodeclass",
            "evidence",
        ),
        "findings": FINDINGS,
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.nvme:NvmeView"), "m", "NVMe"),
    aliases=("nvme",),
    doc="commands/nvme.md",
)
