"""`kubectl gpu inventory`: every accelerator instance with its EC2 instance ID, as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import sys
from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.cost import PriceFileOption, RegionOption, load_price_book, table_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode

__all__ = ["register", "to_csv"]


def to_csv(columns: tuple[str, ...], records: list[dict[str, object]]) -> str:
    """RFC 4180 CSV: a header row, then one row per record in `columns` order; null is an empty field."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    for record in records:
        writer.writerow(["" if record.get(c) is None else record[c] for c in columns])
    return buffer.getvalue()


def inventory(
    ctx: typer.Context,
    include_all: Annotated[
        bool, typer.Option("--all", help="Every instance, not only accelerated ones.")
    ] = False,
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    *,
    opts: GlobalOptions,
) -> int:
    """Every accelerator instance: EC2 instance ID, type, zone, NodePool, NodeClaim, AMI, launch time and
    compute type (also instances whose node has not registered yet). For cost and compliance tools that no
    longer see Auto Mode's instances in EC2 DescribeInstances. -o csv writes RFC 4180 CSV with a header."""
    from kubectl_gpu.core.analyses.cost.inventory import COLUMNS, build_inventory
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.k8s.state import Note

    loaded = load_state(opts, ["nodes", "nodeclaims", "resourceslices"], selector_on="nodes")
    state = loaded.state
    if opts.selector:
        from kubectl_gpu.core.k8s.selectors import matches_selector, parse_selector

        selector = parse_selector(opts.selector)
        state.nodeclaims = [
            c for c in state.nodeclaims if c.node_name or matches_selector(selector, c.meta.labels)
        ]
    catalog = load_catalog()
    prices = load_price_book(catalog, state, region, price_file)
    result = build_inventory(state, catalog, prices, loaded.now, include_all=include_all)
    notes = [
        *state.notes,
        *(Note("PRICES", t) for t in prices.notes(i.instance_type for i in result.instances)),
    ]
    if opts.format is OutputFormat.csv:
        print_notes(notes, no_color=True)
        sys.stdout.write(to_csv(COLUMNS, [i.to_dict() for i in result.instances]))
        return ExitCode.OK
    if emit_data(result.to_dict, opts.format, notes):
        return ExitCode.OK
    from kubectl_gpu.render.cost_view import inventory_table, list_price_footnote
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(table_notes(notes, shows_prices=opts.format is OutputFormat.wide), no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not result.instances:
        where = "" if include_all else " with accelerators (use --all to list every instance)"
        console.print(f"No instances{where}.", markup=False)
        return ExitCode.OK
    wide = opts.format is OutputFormat.wide
    print_table(console, inventory_table(result, wide=wide))
    if wide and any(i.price and i.price.source == "list-us-east-1" for i in result.instances):
        console.print(list_price_footnote(prices.region), markup=False, style="dim")
    return ExitCode.OK


def register(app: typer.Typer) -> None:
    app.command("inventory")(with_global_options(inventory, csv=True))
