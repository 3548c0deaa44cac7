"""`kubectl gpu explain POD`: one Pending pod, target by target (in the TUI: `enter` on a Pending pod)."""

from kubectl_gpu.pages.spec import Page, Reads, Ref

PAGE = Page(
    name="explain",
    summary="One pod, target by target: what matches, what not, the fix",
    command="explain",
    fleet=True,
    arguments={"pod": "pending-pod"},
    reads=Reads("kubectl_gpu.core.analyses.pending"),
    report=Ref("kubectl_gpu.core.analyses.pending:ExplainReport"),
    view=Ref("kubectl_gpu.render.pending_view:explain_view"),
    doc="commands/pending.md",
)
