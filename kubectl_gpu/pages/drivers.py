"""`kubectl gpu drivers` and the Drivers view (`d`): NVIDIA driver and CUDA ceiling per node and AMI."""

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

PAGE = Page(
    name="drivers",
    summary="NVIDIA driver and CUDA ceiling per node; workloads needing more",
    command="drivers",
    fleet=True,
    reads=Reads("kubectl_gpu.core.analyses.drivers", selector_on="nodes"),
    report=Ref("kubectl_gpu.core.analyses.drivers:DriverReport"),
    view=Ref("kubectl_gpu.render.drivers_view:drivers_view"),
    columns={
        "nodes": (
            "name",
            "nodepool",
            "instance",
            "ami",
            "driver",
            "source",
            "cuda_max",
            "os_image",
            "detail",
        ),
        "groups": ("ami", "os_image", "nodes", "nodepools", "drivers"),
        "workloads": ("namespace", "workload", "cuda", "confidence", "runs_on", "may_land_on", "worst"),
        "findings": FINDINGS,
    },
    tui=TuiFace(Ref("kubectl_gpu.tui.views.drivers:DriversView"), "d", "Drivers", "Driver"),
    aliases=("drivers", "dr"),
    doc="commands/drivers.md",
)
