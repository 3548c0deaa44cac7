"""`kubectl gpu inventory`: every accelerator instance with its EC2 instance ID, as a table, JSON or CSV."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.cost import price_notes, read_prices, table_notes
from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.option_declarations import PriceFileOption, RegionOption
    from kubectl_gpu.cli.run import CsvTable
    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["csv_table", "register"]


def csv_table(columns: tuple[str, ...], records: list[dict[str, object]]) -> CsvTable:
    """The records as CSV data: a header row, then one row per record in `columns` order."""
    return columns, [[record.get(c) for c in columns] for record in records]


def inventory(
    include_all: Annotated[
        bool, typer.Option("--all", help="Every instance, not only accelerated ones.")
    ] = False,
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    *,
    opts: GlobalOptions,
) -> Any:
    """Every accelerator instance: EC2 instance ID, type, zone, NodePool, NodeClaim, AMI, launch time and
    compute type (also instances whose node has not registered yet). For cost and compliance tools that no
    longer see Auto Mode's instances in EC2 DescribeInstances. -o csv writes RFC 4180 CSV with a header."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import cost as analysis
    from kubectl_gpu.core.analyses.cost.inventory import COLUMNS
    from kubectl_gpu.render.printers import Listing

    prices = read_prices(region, price_file)

    def prepare(state: ClusterState) -> Prepared[Any]:
        book = prices.book(state)

        def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
            from kubectl_gpu.render.cost_view import inventory_view

            return inventory_view(report, wide=wide, include_all=include_all, price_region=book.region)

        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse_inventory(
                state, catalog, now, prices=book, include_all=include_all
            ),
            view=draw,
            notes=lambda report: price_notes(book, (i.instance_type for i in report.instances)),
        )

    return Command.for_page(
        "inventory",
        listing=Listing("instances", "instances", (("NodeClaim", "nodeClaim"), ("Node", "node"))),
        prepare=prepare,
        table_notes=lambda notes: table_notes(notes, shows_prices=opts.format is OutputFormat.wide),
        csv=lambda report: csv_table(COLUMNS, [i.to_dict() for i in report.instances]),
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("inventory")(
        with_global_options(inventory, printing=True, csv=True, fleet=fleet_face("inventory"))
    )
