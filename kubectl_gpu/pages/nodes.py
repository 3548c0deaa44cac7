"""`kubectl gpu nodes` and the Nodes view (`n`): GPU nodes, their accelerators, driver, price and health."""

from kubectl_gpu.pages.spec import Page, Reads, Ref, TuiFace

PAGE = Page(
    name="nodes",
    summary="GPU nodes: accelerators free and used, driver, CUDA, health",
    command="nodes",
    fleet=True,
    arguments={"node": "node"},  # nodes NODE
    reads=Reads("kubectl_gpu.core.analyses.nodes", needs=("nodes",), selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.nodes:NodeReport"),
    view=Ref("kubectl_gpu.render.nodes_table:nodes_view"),
    columns={
        "nodes": (
            "name",
            "instance",
            "compute",
            "nodepool",
            "gpu",
            "alloc",
            "gpu_mem",
            "driver",
            "age",
            "health",
            "resource",
            "capacity",
            "zone",
            "nodeclaim",
            "os_image",
            "instance_id",
            "price",
            "idle",
        ),
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.nodes:NodesView"), "n", "Nodes"),
    aliases=("nodes", "node", "no"),
    doc="commands/nodes.md",
)
