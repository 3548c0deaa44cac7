"""`kubectl gpu nodes`: GPU inventory per node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from kubectl_gpu.cli.cost import price_notes, read_prices, table_notes
from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions, OutputFormat

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.option_declarations import PriceFileOption, RegionOption, WatchOption
    from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["register"]


def nodes(
    node: Annotated[
        str | None,
        typer.Argument(help="One node: its figures and the pods bound to it (JSON: the node and its pods)."),
    ] = None,
    include_all: Annotated[bool, typer.Option("--all", help="Include CPU-only nodes.")] = False,
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    watch: WatchOption = False,
    *,
    opts: GlobalOptions,
) -> Any:
    """GPU nodes: instance type, Auto Mode or not, NodePool, accelerators allocatable/requested/free,
    GPU memory, driver and CUDA ceiling, age and health. -o wide adds the hourly price and idle accelerators.
    With NODE: that node's figures and its pods, those holding its accelerators first."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import nodes as analysis
    from kubectl_gpu.core.errors import InvalidInput
    from kubectl_gpu.render.printers import Listing

    if node is not None and watch:
        raise InvalidInput("--watch follows every node: NODE cannot be watched", "drop NODE, or drop --watch")
    if node is not None:
        return node_command(opts, node, region, price_file)

    prices = read_prices(region, price_file)

    def prepare(state: ClusterState) -> Prepared[Any]:
        book = prices.book(state)

        def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
            from kubectl_gpu.render.nodes_table import nodes_view

            return nodes_view(report, wide=wide, include_all=include_all, price_region=book.region)

        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse(
                state, catalog, now, include_all=include_all, prices=book
            ),
            view=draw,
            notes=lambda report: price_notes(book, (r.instance_type for r in report.rows)),
        )

    command = Command.for_page(
        "nodes",
        listing=Listing("nodes", "nodes", (("Node", "name"),)),
        prepare=prepare,
        table_notes=lambda notes: table_notes(notes, shows_prices=opts.format is OutputFormat.wide),
    )
    if watch:
        from kubectl_gpu.cli.watch import watch as watching

        return watching(opts, "nodes", command)
    return command


def node_command(opts: GlobalOptions, name: str, region: str | None, price_file: Any) -> Any:
    """`nodes NODE`: the node's row and figures, then its pods (`core.analyses.nodes.node`)."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import nodes as analysis
    from kubectl_gpu.render.printers import Listing

    prices = read_prices(region, price_file)

    def prepare(state: ClusterState) -> Prepared[Any]:
        book = prices.book(state)

        def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
            from kubectl_gpu.render.node_pods_view import node_detail_view

            return node_detail_view(report, wide=wide, price_region=book.region)

        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse_node(state, catalog, now, name, prices=book),
            view=draw,
            notes=lambda report: price_notes(book, (report.row.instance_type,)),
        )

    return Command.for_page(
        "nodes",
        listing=Listing("pods", "pods", (("Pod", "name"),)),
        prepare=prepare,
        table_notes=lambda notes: table_notes(notes, shows_prices=opts.format is OutputFormat.wide),
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("nodes")(with_global_options(nodes, printing=True, fleet=fleet_face("nodes")))
