"""`kubectl gpu pools`: per NodePool, its nodes' accelerator figures, its Pending pods and its worst
finding, with the total: the TUI's Overview, for a runbook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions

if TYPE_CHECKING:
    import typer

__all__ = ["register"]


def pools(*, opts: GlobalOptions) -> Any:
    """NodePools: nodes, accelerators (ACCEL in all, ALLOCATABLE, REQ requested, FREE, IDLE, UNAVAILABLE),
    Pending pods nearest to each, and its worst finding; a TOTAL row for the cluster. The figures are those
    of `nodes` and `cost` (docs/vocabulary.md). -o wide adds the findings' counts and the worst one's message."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses.diagnose import pools as analysis
    from kubectl_gpu.render.printers import Listing

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.pools_view import pools_view

        return pools_view(report, wide=wide)

    return Command.for_page(
        "overview",
        listing=Listing("nodePools", "pools", (("NodePool", "name"),)),
        analyse=analysis.analyse,
        view=draw,
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("pools")(with_global_options(pools, printing=True, fleet=fleet_face("pools")))
