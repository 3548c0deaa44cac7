"""Typer's declarations of the options several commands share, and the names the commands' annotations use.

A command module imports typer only when type-checked (`if TYPE_CHECKING`), so that a one-shot command
answered without typer (cli.direct) never imports it; its annotations stay strings until typer builds the
command, and `cli.options.with_global_options` resolves them against `ANNOTATION_NAMES`."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

__all__ = [
    "ANNOTATION_NAMES",
    "ExporterNamespaceOption",
    "PatchTypeOption",
    "PriceFileOption",
    "ReadonlyOption",
    "RegionOption",
    "WatchOption",
]

_PRICES = "Prices"


class PatchTypeOption(StrEnum):
    """--type of `simulate` and `explain --with`: the patches' type, in kubectl patch's names."""

    strategic = "strategic"
    merge = "merge"
    json = "json"


WatchOption = Annotated[
    bool,
    typer.Option("--watch", "-w", help="After the table, print each row that changes (live; Ctrl-C ends)."),
]
RegionOption = Annotated[
    str | None,
    typer.Option(
        "--region",
        help="Region the prices are for (default: the price file's, else the nodes'). Only us-east-1 "
        "list prices are built in: other regions show them marked list-us-east-1.",
        rich_help_panel=_PRICES,
    ),
]
PriceFileOption = Annotated[
    str | None,
    typer.Option(
        "--price-file",
        help="YAML/JSON mapping instance type -> USD per hour (optionally under 'prices:', with "
        "'region:'); types not in it fall back to the us-east-1 list price.",
        rich_help_panel=_PRICES,
    ),
]

ReadonlyOption = Annotated[
    bool,
    typer.Option(
        "--readonly",
        help="Create no pod: refuse --sample (exit 2); also readonly: true in the config file.",
    ),
]
ExporterNamespaceOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exporter-namespace",
        help="Believe the DCGM exporters in this namespace whatever owns them, and over others of a "
        "GPU (repeatable or comma-separated; default: usage.exporterNamespaces in the config file). "
        "Otherwise only exporters owned by a DaemonSet are read.",
    ),
]

#: What a command's string annotations may name beyond its own module's imports.
ANNOTATION_NAMES: dict[str, Any] = {
    "typer": typer,
    "PatchTypeOption": PatchTypeOption,
    "WatchOption": WatchOption,
    "RegionOption": RegionOption,
    "PriceFileOption": PriceFileOption,
    "ReadonlyOption": ReadonlyOption,
    "ExporterNamespaceOption": ExporterNamespaceOption,
}
