"""`kubectl gpu diagnose`: all analyses in one report, worst first, with `--fail-on` for runbooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.report import FailOn

if TYPE_CHECKING:
    import typer

__all__ = ["register"]


def diagnose(
    fail_on: Annotated[
        FailOn,
        typer.Option("--fail-on", help="Exit 1 when a finding is at least this severe: warning or error."),
    ] = FailOn.error,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only", help="Run only these analyses (repeatable or comma-separated); default: all of them."
        ),
    ] = None,
    *,
    opts: GlobalOptions,
) -> Any:
    """Every analysis (node health, Pending pods, drivers, NVMe, lifecycle, NodePool lint, cost) in one
    report, worst first. Exit 1 when any finding reaches --fail-on (default error)."""
    from kubectl_gpu.cli.run import Command
    from kubectl_gpu.core.analyses import diagnose as analysis
    from kubectl_gpu.render.printers import Listing

    if only:  # repeatable, and (as kubectl lists) comma-separated; an older name is the analysis's now
        only = [analysis.RENAMED.get(name.strip(), name.strip()) for item in only for name in item.split(",")]
    unknown = sorted(set(only or ()) - set(analysis.ANALYSES))
    if unknown:
        names = ", ".join(name or "''" for name in unknown)
        raise InvalidInput(f"--only: unknown analysis {names}", f"choose from {', '.join(analysis.ANALYSES)}")

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.diagnose_view import diagnose_view

        return diagnose_view(report, wide=wide)

    return Command.for_page(
        "findings",
        listing=Listing("findings", "findings"),
        kinds=analysis.kinds_for(only),  # --only reads what those analyses read
        analyse=lambda state, catalog, now: analysis.analyse(state, catalog, now, only=only),
        view=draw,
        fail_on=fail_on,
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("diagnose")(with_global_options(diagnose, printing=True, fleet=fleet_face("diagnose")))
