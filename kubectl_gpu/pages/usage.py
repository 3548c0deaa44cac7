"""`kubectl gpu usage` and the Usage view (`u`): how busy the held GPUs are, idle spend, $ per 1M tokens."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

PAGE = Page(
    name="usage",
    summary="How busy allocated GPUs are, idle $/h, $ per 1M tokens",
    command="usage",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.usage", selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.usage:UsageReport"),
    view=Ref("kubectl_gpu.render.usage_view:usage_view"),
    columns={
        "usage-workloads": ("workload", "pods", "gpus", "util", "idle-gpus", "held_$_per_h", "idle_$_per_h"),
        "usage-inference": (
            "inference_workload", "server", "tokens_per_s", "$_per_h", "$_per_1m_tokens", "status", "model",
            "prompt-tokens_per_s", "resets",
        ),
        "usage-nodes": (
            "node", "instance", "gpus", "held", "util", "source", "state", "$_per_h", "idle_$_per_h", "memory",
            "power", "nodepool",
        ),
        "usage-pods": (
            "pod", "node", "gpus", "util", "source", "held_$_per_h", "idle", "workload", "attribution", "memory",
        ),
        "usage-gpus": (
            "gpu", "model", "util", "memory", "power", "pods", "source", "field", "samples", "attribution",
        ),
        "findings": FINDINGS,
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.usage:UsageView"), "u", "Usage"),
    aliases=("usage",),
    doc="commands/usage.md",
)
