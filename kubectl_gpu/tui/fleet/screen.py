"""The fleet overview (`:ctx` alone): one row per kubeconfig context, what it holds and how it answers;
`enter` switches to the context under the cursor, `esc` goes back."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.render import model, theme
from kubectl_gpu.tui.fleet.overview import FleetOverview, FleetRow
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.views.model_grid import Grid, to_grid
from kubectl_gpu.tui.widgets.grid import GridTable
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["COLUMNS", "FleetScreen", "fleet_row", "fleet_table"]

_STATUS = {0: ("clean", theme.GOOD), 1: ("findings", theme.ERROR), 4: ("could not look", theme.WARNING)}
COLUMNS = (
    model.Column("context", "CONTEXT"),
    model.Column("cluster", "CLUSTER"),
    model.Column("mode", "MODE", model.Kind.CODE),
    model.Column("nodes", "NODES", model.Kind.COUNT),
    model.Column("free", "FREE", model.Kind.COUNT),
    model.Column("blocked", "BLOCKED", model.Kind.COUNT),
    model.Column("errors", "ERRORS", model.Kind.COUNT),
    model.Column("warnings", "WARNINGS", model.Kind.COUNT),
    model.Column("exit", "EXIT", model.Kind.CODE),
    model.Column("status", "STATUS", wrap=True),
)


def _n(value: int | None) -> model.Cell:
    return model.Cell("-" if value is None else str(value), -1 if value is None else value)


def fleet_row(row: FleetRow, current: str | None) -> model.Row[FleetRow]:
    """One context as a row of the view model (its texts made safe there)."""
    if row.error is not None:
        status = model.Cell(row.error, style=theme.ERROR)
    else:
        word, style = _STATUS.get(int(row.code), (str(int(row.code)), ""))
        status = model.Cell(word, style=style)
    cells = (
        model.Cell(row.context, style=theme.HEADER if row.context == current else ""),
        model.Cell(row.cluster or "-"),
        model.Cell(row.mode or "-"),
        _n(row.nodes),
        _n(row.free),
        _n(row.blocked),
        _n(row.errors),
        _n(row.warnings),
        model.Cell(str(int(row.code)), int(row.code)),
        status,
    )
    return model.Row(row.context, cells, None, None, row)


def fleet_table(overview: FleetOverview, current: str | None) -> Grid[FleetRow]:
    table = model.Table("contexts", COLUMNS, tuple(fleet_row(r, current) for r in overview.rows))
    return to_grid(table, empty="No contexts.")


class FleetScreen(Screen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("enter", "choose", "Switch to it"),
    ]

    def __init__(self, overview: FleetOverview, current: str | None) -> None:
        super().__init__(classes="detail-screen")
        self.overview = overview
        self.current = current

    def compose(self) -> ComposeResult:
        read = sum(1 for r in self.overview.rows if r.error is None)
        title = Text(f"Fleet: {read} of {len(self.overview.rows)} contexts read", style=theme.HEADER)
        title.append(f"  exit {int(self.overview.code)}  enter switch  esc back", style=theme.MUTED)
        yield Static(title, classes="page-title")
        yield GridTable(id="fleet-table")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in TEXTUAL_DEFAULTS

    def on_mount(self) -> None:
        grid = self.query_one(GridTable)
        grid.set_table(fleet_table(self.overview, self.current))
        if self.current is not None:
            grid.move_to(self.current)
        grid.focus()

    @property
    def chosen(self) -> str | None:
        row = self.query_one(GridTable).cursor_row
        return row.key if row is not None else None

    @on(GridTable.Selected)
    def _selected(self, event: GridTable.Selected) -> None:
        event.stop()
        self.dismiss(event.row.key)

    def action_choose(self) -> None:
        self.dismiss(self.chosen)

    def action_back(self) -> None:
        self.dismiss(None)
