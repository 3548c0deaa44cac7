"""`kubectl gpu simulate`: a change made on a copy of the cluster, and what it does to every analysis."""

from kubectl_gpu.pages.spec import Page, Ref

PAGE = Page(
    name="simulate",
    summary="What a change would do before it is applied: better, worse, drift",
    command="simulate",
    report=Ref("kubectl_gpu.core.analyses.simulate:SimulateReport"),
    view=Ref("kubectl_gpu.render.simulate_view:simulate_view"),
    doc="commands/simulate.md",
)
