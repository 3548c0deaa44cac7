"""`kubectl gpu pending` and the Pending view (`p`): every Pending pod that wants an accelerator, and the fix."""

from kubectl_gpu.pages.spec import Page, Reads, Ref, TuiFace

PAGE = Page(
    name="pending",
    summary="Pending pods that want an accelerator: verdict and fix",
    command="pending",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.pending", selector_on="pods"),
    report=Ref("kubectl_gpu.core.analyses.pending:PendingReport"),
    view=Ref("kubectl_gpu.render.pending_view:pending_view"),
    columns={"pods": ("namespace", "pod", "request", "verdict", "nearest", "reason", "age")},
    tui=TuiFace(Ref("kubectl_gpu.tui.views.pending:PendingView"), "p", "Pending"),
    aliases=("pending", "pe", "pods", "pod", "po"),
    doc="commands/pending.md",
)
