"""The fleet overview (`:ctx` alone): one row per kubeconfig context, what it holds and how it answers;
`enter` switches to the context under the cursor, `esc` goes back."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from kubectl_gpu.render import theme
from kubectl_gpu.tui.fleet import FleetOverview, FleetRow

__all__ = ["COLUMNS", "FleetScreen", "cells"]

COLUMNS = ("CONTEXT", "CLUSTER", "MODE", "NODES", "FREE", "BLOCKED", "ERRORS", "WARNINGS", "EXIT", "STATUS")
_STATUS = {0: ("clean", theme.GOOD), 1: ("findings", theme.ERROR), 4: ("could not look", theme.WARNING)}


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


def cells(row: FleetRow, current: str | None) -> tuple[str | Text, ...]:
    name = Text(row.context, style=theme.HEADER if row.context == current else "")
    if row.error is not None:
        status = Text(row.error, style=theme.ERROR)
    else:
        word, style = _STATUS.get(int(row.code), (str(int(row.code)), ""))
        status = Text(word, style=style)
    return (
        name,
        row.cluster or "-",
        row.mode or "-",
        _n(row.nodes),
        _n(row.free),
        _n(row.blocked),
        _n(row.errors),
        _n(row.warnings),
        str(int(row.code)),
        status,
    )


class FleetScreen(Screen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("enter", "choose", "Switch to it"),
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
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
        table: DataTable[str | Text] = DataTable(cursor_type="row", id="fleet-table")
        table.add_columns(*COLUMNS)
        for row in self.overview.rows:
            table.add_row(*cells(row, self.current), key=row.context)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        names = [r.context for r in self.overview.rows]
        if self.current in names:
            table.move_cursor(row=names.index(self.current))
        table.focus()

    @property
    def chosen(self) -> str | None:
        table = self.query_one(DataTable)
        rows = self.overview.rows
        return rows[table.cursor_row].context if 0 <= table.cursor_row < len(rows) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(self.chosen)

    def action_choose(self) -> None:
        self.dismiss(self.chosen)

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.cursor_row + step)

    def action_back(self) -> None:
        self.dismiss(None)
