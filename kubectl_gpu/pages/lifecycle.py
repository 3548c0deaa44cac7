"""`kubectl gpu lifecycle` and the Lifecycle view (`i`): when GPU nodes expire or may be disrupted."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

PAGE = Page(
    name="lifecycle",
    summary="When GPU nodes expire or may be disrupted; risk to GPU pods",
    command="lifecycle",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.lifecycle", needs=("nodes",), selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.lifecycle:LifecycleReport"),
    view=Ref("kubectl_gpu.render.lifecycle_view:lifecycle_view"),
    columns={
        "nodes": (
            "node",
            "nodepool",
            "type",
            "age",
            "expires",
            "drifted",
            "allowed",
            "dnd",
            "next",
            "tgp",
            "consolidation",
            "budgets",
            "created",
        ),
        "pods": ("namespace", "pod", "node", "gpus", "running", "dnd", "next", "risk", "detail"),
        "findings": FINDINGS,
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.lifecycle:LifecycleView"), "i", "Lifecycle", "Life"),
    aliases=("lifecycle", "lc"),
    doc="commands/lifecycle.md",
)
