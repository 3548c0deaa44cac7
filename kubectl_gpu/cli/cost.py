"""`kubectl gpu cost`: accelerators allocated vs idle per NodePool and namespace, the hourly spend on idle
accelerators, idle GPU nodes and what keeps them. Also the price options shared with `nodes` and
`inventory` (`--region`, `--price-file`)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from kubectl_gpu.cli.fleet_entry import fleet_face
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Iterable

    import typer

    from kubectl_gpu.cli.option_declarations import PriceFileOption, RegionOption
    from kubectl_gpu.core.catalog import Catalog
    from kubectl_gpu.core.catalog.pricing import PriceBook, PriceFile
    from kubectl_gpu.core.k8s.state import ClusterState, Note

__all__ = [
    "Prices",
    "price_notes",
    "read_prices",
    "register",
    "table_notes",
]


def read_price_file(path: str) -> object:
    """The parsed content of a price file (YAML, of which JSON is a subset); InvalidInput on failure."""
    import yaml

    from kubectl_gpu.kube.yaml_input import DUPLICATE_HINT, DuplicateKeyError, safe_load

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(
            f"--price-file {path}: cannot read it ({exc.strerror or exc})", "check the path"
        ) from None
    except UnicodeDecodeError:
        raise InvalidInput(f"--price-file {path}: not a text file", "write YAML or JSON") from None
    try:
        return safe_load(text)
    except DuplicateKeyError as exc:  # two prices for one type: which one is meant?
        raise InvalidInput(f"--price-file {path}: {exc.detail}", DUPLICATE_HINT) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise InvalidInput(
            f"--price-file {path}: not valid YAML or JSON{where}: {problem}", "fix the file"
        ) from None


class Prices(msgspec.Struct, frozen=True):
    """--region and --price-file, read and checked before the cluster is (bad input is exit 2 first);
    `book(state)` settles the region from the cluster's nodes: a pure function of the loaded state."""

    catalog: Catalog
    region: str | None
    file: PriceFile | None
    path: str | None  # --price-file as given (the reports say where prices came from)

    def book(self, state: ClusterState) -> PriceBook:
        from kubectl_gpu.core.catalog.pricing import PriceFileError, cluster_regions, price_book

        detected = cluster_regions((n.labels for n in state.nodes), state.context)
        try:
            return price_book(self.catalog, price_file=self.file, region=self.region, detected=detected)
        except PriceFileError as exc:  # checked in read_prices: the cluster's regions cannot cause it
            raise InvalidInput(str(exc)) from None


def read_prices(region: str | None, price_file: str | None) -> Prices:
    """Read --price-file and check it and --region against each other (exit 2 on bad input), before the
    cluster is read."""
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.core.catalog.pricing import PriceFileError, parse_price_file, price_book

    catalog = load_catalog()
    try:
        parsed = parse_price_file(read_price_file(price_file), price_file) if price_file else None
        price_book(catalog, price_file=parsed, region=region)  # a malformed or contradicted --region
    except PriceFileError as exc:
        raise InvalidInput(str(exc)) from None
    return Prices(catalog, region, parsed, price_file)


def price_notes(prices: PriceBook, instance_types: Iterable[str | None]) -> list[Note]:
    """What the user must know about the prices of these instance types (region, unpriced types)."""
    from kubectl_gpu.core.k8s.state import Note

    return [Note("PRICES", text) for text in prices.notes(instance_types)]


def table_notes(notes: Iterable[Note], *, shows_prices: bool) -> list[Note]:
    """Notes for a human table: no price notes when it shows no prices; none about the list price's region
    when it does (the table's footnote says it)."""
    out = []
    for note in notes:
        if note.code == "PRICES" and (not shows_prices or "cluster is in" in note.message):
            continue
        out.append(note)
    return out


def _min_idle(text: str) -> timedelta:
    from kubectl_gpu.core.k8s.times import TimeError, parse_duration

    try:
        return parse_duration(text)
    except TimeError:
        raise InvalidInput(f"--min-idle: not a duration: {text!r}", "use forms like 15m, 1h, 0s") from None
    except OverflowError:  # beyond timedelta's range
        raise InvalidInput(f"--min-idle: {text!r} is too long", "use forms like 15m, 1h, 0s") from None


def cost(
    region: RegionOption = None,
    price_file: PriceFileOption = None,
    min_idle: Annotated[
        str,
        typer.Option(
            "--min-idle", help="Report GPU nodes idle at least this long as IDLE_GPU_NODE (e.g. 15m, 1h)."
        ),
    ] = "15m",
    *,
    opts: GlobalOptions,
) -> Any:
    """Accelerators allocated vs idle per NodePool and namespace, the hourly spend on idle accelerators,
    GPU nodes without GPU pods (since when) and what keeps them (consolidation policy, consolidateAfter,
    do-not-disrupt, budgets). Always exit code 0: findings are information."""
    from kubectl_gpu.cli.run import Command, Prepared
    from kubectl_gpu.core.analyses import cost as analysis
    from kubectl_gpu.core.k8s.state import Note
    from kubectl_gpu.render.printers import Listing

    wait = _min_idle(min_idle)
    prices = read_prices(region, price_file)

    def draw(report: Any, wide: bool) -> Any:  # imported for a table only: `-o json` loads no console
        from kubectl_gpu.render.cost_view import cost_view

        return cost_view(report, wide=wide)

    def prepare(state: ClusterState) -> Prepared[Any]:
        book = prices.book(state)
        namespace = state.scope.namespace  # node figures count every pod; -n narrows the namespace rows only
        return Prepared(
            analyse=lambda state, catalog, now: analysis.analyse(
                state, catalog, now, prices=book, min_idle=wait, namespace=namespace, price_file=price_file
            ),
            view=draw,
            notes=lambda report: [Note("PRICES", text) for text in report.price_notes],
        )

    return Command.for_page(
        "cost",
        listing=Listing("nodePools", "pools", (("NodePool", "name"),)),
        prepare=prepare,
        table_notes=lambda notes: table_notes(notes, shows_prices=True),
    )


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("cost")(with_global_options(cost, printing=True, fleet=fleet_face("cost")))
