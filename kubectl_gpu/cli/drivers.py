"""`kubectl gpu drivers`: NVIDIA driver and CUDA ceiling per node and AMI; workloads above the ceiling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions

if TYPE_CHECKING:
    import typer

__all__ = ["register"]


def drivers(*, opts: GlobalOptions) -> Any:
    """NVIDIA driver per node and per AMI (source: probe, label, inferred or unknown), its CUDA ceiling, and
    GPU workloads whose CUDA need exceeds the ceiling of a node they run on or may land on. Exit code 1
    when a workload's CUDA need exceeds a driver's ceiling (an error finding)."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses import drivers as analysis
    from kubectl_gpu.render.printers import Listing

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.drivers_view import drivers_view

        return drivers_view(report, wide=wide)

    return Command.for_page(
        "drivers",
        listing=Listing("nodes", "nodes", (("Node", "name"),)),
        analyse=analysis.analyse,
        view=draw,
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("drivers")(with_global_options(drivers, printing=True, fleet=fleet_face("drivers")))
