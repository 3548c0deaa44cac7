"""`kubectl gpu drivers`: NVIDIA driver and CUDA ceiling per node and AMI; workloads above the ceiling."""

from __future__ import annotations

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode

__all__ = ["register"]

_KINDS = ["nodes", "pods", "nodepools", "nodeclaims"]


def drivers(ctx: typer.Context, *, opts: GlobalOptions) -> int:
    """NVIDIA driver per node and per AMI (source: probe, label, inferred or unknown), its CUDA ceiling, and
    GPU workloads whose CUDA need exceeds the ceiling of a node they run on or may land on. Exit code 1
    when a workload's CUDA need exceeds a driver's ceiling (an error finding)."""
    from kubectl_gpu.core.analyses.drivers.analysis import build_driver_report
    from kubectl_gpu.core.catalog import load_catalog

    loaded = load_state(opts, _KINDS, selector_on="nodes")
    report = build_driver_report(loaded.state, load_catalog(), loaded.now)
    code = ExitCode.FINDINGS if report.has_errors else ExitCode.OK
    if emit_data(report.to_dict, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.drivers_view import drivers_view
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(loaded.state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.nodes and not report.workloads:
        console.print("No NVIDIA GPU nodes or GPU workloads.", markup=False)
        return code
    print_table(console, drivers_view(report, wide=opts.format is OutputFormat.wide))
    return code


def register(app: typer.Typer) -> None:
    app.command("drivers")(with_global_options(drivers))
