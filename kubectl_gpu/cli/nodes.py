"""`kubectl gpu nodes`: GPU inventory per node."""

from __future__ import annotations

from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.cost import PriceFileOption, RegionOption, load_price_book, table_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode

__all__ = ["register"]


def nodes(
    ctx: typer.Context,
    include_all: Annotated[bool, typer.Option("--all", help="Include CPU-only nodes.")] = False,
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    *,
    opts: GlobalOptions,
) -> int:
    """GPU nodes: instance type, Auto Mode or not, NodePool, accelerators allocatable/requested/free,
    GPU memory, driver and CUDA ceiling, age and health. -o wide adds the hourly price and idle accelerators."""
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.fleet.nodes import build_node_report
    from kubectl_gpu.core.k8s.state import Note

    loaded = load_state(opts, ["nodes", "pods", "nodeclaims", "resourceslices"], selector_on="nodes")
    catalog = load_catalog()
    prices = load_price_book(catalog, loaded.state, region, price_file)
    report = build_node_report(loaded.state, catalog, loaded.now, include_all=include_all, prices=prices)
    notes = [
        *loaded.state.notes,
        *(Note("PRICES", t) for t in prices.notes(r.instance_type for r in report.rows)),
    ]
    if emit_data(report.to_dict, opts.format, notes):
        return ExitCode.OK
    from kubectl_gpu.render.nodes_table import nodes_table
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(table_notes(notes, shows_prices=opts.format is OutputFormat.wide), no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        console.print(f"No nodes{where}.", markup=False)
        return ExitCode.OK
    wide = opts.format is OutputFormat.wide
    print_table(console, nodes_table(report, wide=wide))
    if wide and any(r.price_source == "list-us-east-1" for r in report.rows):
        from kubectl_gpu.render.cost_view import list_price_footnote

        console.print(list_price_footnote(prices.region), markup=False, style="dim")
    return ExitCode.OK


def register(app: typer.Typer) -> None:
    app.command("nodes")(with_global_options(nodes))
