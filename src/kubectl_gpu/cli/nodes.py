"""`kubectl gpu nodes`: GPU inventory per node."""

from __future__ import annotations

from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.errors import ExitCode

__all__ = ["register"]


def nodes(
    ctx: typer.Context,
    include_all: Annotated[bool, typer.Option("--all", help="Include CPU-only nodes.")] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """GPU nodes: instance type, Auto Mode or not, NodePool, accelerators allocatable/requested/free,
    GPU memory, driver and CUDA ceiling, age and health."""
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.node_report import build_node_report

    loaded = load_state(opts, ["nodes", "pods", "nodeclaims", "resourceslices"], selector_on="nodes")
    report = build_node_report(loaded.state, load_catalog(), loaded.now, include_all=include_all)
    notes = loaded.state.notes
    if emit_data(report.to_dict(), opts.format, notes):
        return ExitCode.OK
    from kubectl_gpu.render.nodes_table import nodes_table
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        console.print(f"No nodes{where}.", markup=False)
        return ExitCode.OK
    print_table(console, nodes_table(report, wide=opts.format is OutputFormat.wide))
    return ExitCode.OK


def register(app: typer.Typer) -> None:
    app.command("nodes")(with_global_options(nodes))
