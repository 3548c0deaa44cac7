"""`kubectl gpu lint`: NodePool and NodeClass mistakes, live or in manifests (`-f`), with the fix."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref

PAGE = Page(
    name="lint",
    summary="GPU NodePool and NodeClass mistakes, with the fix",
    command="lint",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.lint"),
    report=Ref("kubectl_gpu.core.analyses.lint:LintReport"),
    view=Ref("kubectl_gpu.render.lint_view:lint_view"),
    columns={"findings": FINDINGS},
    doc="commands/lint.md",
)
