"""`kubectl gpu inventory`: every accelerator instance with its EC2 instance ID (table, JSON or CSV)."""

from kubectl_gpu.pages.spec import Page, Reads, Ref

PAGE = Page(
    name="inventory",
    summary="Every accelerator instance: instance ID, type, zone, NodePool",
    command="inventory",
    fleet=True,
    reads=Reads(
        "kubectl_gpu.core.analyses.cost",
        "INVENTORY_KINDS",
        needs=("nodes", "nodeclaims"),
        selector_on="nodes",
    ),
    report=Ref("kubectl_gpu.core.analyses.cost:Inventory"),
    view=Ref("kubectl_gpu.render.cost_view:inventory_view"),
    columns={
        "instances": (
            "instance-id",
            "type",
            "zone",
            "nodepool",
            "nodeclaim",
            "ami",
            "launched",
            "compute",
            "node",
            "capacity",
            "accelerator",
            "count",
            "$/h",
        ),
    },
    doc="commands/cost.md",
)
