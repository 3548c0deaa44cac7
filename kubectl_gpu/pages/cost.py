"""`kubectl gpu cost` and the Cost view (`$`): accelerators requested vs idle, the idle spend, idle GPU nodes."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

PAGE = Page(
    name="cost",
    summary="Accelerators requested vs idle, idle spend, what keeps idle nodes",
    command="cost",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.cost", needs=("nodes",), selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.cost:CostReport"),
    view=Ref("kubectl_gpu.render.cost_view:cost_view"),
    columns={
        "pools": (
            "nodepool",
            "policy",
            "after",
            "nodes",
            "idle-nodes",
            "accel",
            "req",
            "idle",
            "$/h",
            "idle_$/h",
        ),
        "namespaces": ("namespace", "gpu-pods", "req", "$/h", "idle-share", "idle-share_$/h"),
        "idle": (
            "idle_node",
            "instance",
            "nodepool",
            "accel",
            "idle-for",
            "since",
            "$/h",
            "so-far",
            "kept-by",
            "nodeclaim",
            "other-pods",
        ),
        "findings": FINDINGS,
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.cost:CostView"), "dollar_sign", "Cost"),
    aliases=("cost",),
    doc="commands/cost.md",
)
