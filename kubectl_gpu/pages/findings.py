"""`kubectl gpu diagnose` and the Findings view (`f`): every analysis's findings in one report, worst first."""

from kubectl_gpu.pages.spec import Page, Reads, Ref, TuiFace

PAGE = Page(
    name="findings",
    summary="Every analysis in one report, worst first",
    command="diagnose",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.diagnose"),
    report=Ref("kubectl_gpu.core.analyses.diagnose:DiagnoseReport"),
    view=Ref("kubectl_gpu.render.diagnose_view:diagnose_view"),
    columns={"findings": ("severity", "code", "object", "message")},
    tui=TuiFace(Ref("kubectl_gpu.tui.views.findings:FindingsView"), "f", "Findings", "Finding"),
    aliases=("findings", "diagnose", "fi"),
    doc="commands/diagnose.md",
)
