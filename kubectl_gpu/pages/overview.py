"""Overview (`v`, the TUI's first screen) and `kubectl gpu pools`: per NodePool, the accelerators requested,
free and idle, the Pending pods nearest to it and its worst finding, with the cluster's total."""

from kubectl_gpu.pages.spec import Page, Reads, Ref, TuiFace

PAGE = Page(
    name="overview",
    summary="GPUs per NodePool: requested, free, idle; Pending; worst finding",
    command="pools",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.diagnose"),
    report=Ref("kubectl_gpu.core.analyses.diagnose.pools:PoolsReport"),
    view=Ref("kubectl_gpu.render.pools_view:pools_view"),
    columns={
        "pools": (
            "nodepool",
            "nodes",
            "capacity",
            "allocatable",
            "requested",
            "free",
            "idle",
            "unavailable",
            "pending",
            "worst",
            "findings",
            "message",
        ),
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.overview:OverviewView"), "v", "Overview"),
    aliases=("overview", "ov"),
    doc="commands/pools.md",
)
