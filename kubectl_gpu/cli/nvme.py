"""`kubectl gpu nvme`: is each GPU node's local NVMe used for kubelet/containerd storage, and why not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions

if TYPE_CHECKING:
    import typer

__all__ = ["register"]


def nvme(
    include_all: Annotated[bool, typer.Option("--all", help="Include CPU-only nodes.")] = False,
    *,
    opts: GlobalOptions,
) -> Any:
    """Local NVMe per GPU node: instance store (catalog and instance-local-nvme label), the NodeClass's
    ephemeralStorage.size or instanceStorePolicy, the node's ephemeral-storage capacity, and the state
    (ACTIVE, DEGRADED, LIKELY_ACTIVE, NOT_USED, NO_NVME, UNKNOWN). Exit code 1 when a RAID is degraded."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses import nvme as analysis
    from kubectl_gpu.render.printers import Listing

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.nvme_view import nvme_view

        return nvme_view(report, wide=wide, include_all=include_all)

    return Command.for_page(
        "nvme",
        listing=Listing("nodes", "nodes", (("Node", "name"),)),
        analyse=lambda state, catalog, now: analysis.analyse(state, catalog, now, include_all=include_all),
        view=draw,
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("nvme")(with_global_options(nvme, printing=True, fleet=fleet_face("nvme")))
