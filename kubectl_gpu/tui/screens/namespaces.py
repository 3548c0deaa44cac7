"""`:ns` alone (k9s' `:ns`): the namespaces whose pods the latest refresh read, and `all`; `enter` scopes the
views to the one under the cursor (as `:ns NAME`), `esc` goes back. Under a namespace scope the refresh
read one namespace's pods: `all` (or `0`) widens it again."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.render import model, theme
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.views.model_grid import Grid, to_grid
from kubectl_gpu.tui.widgets.grid import GridTable
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["ALL", "NamespaceScreen", "namespace_table"]

#: the row that means every namespace
ALL = "all"
COLUMNS = (
    model.Column("namespace", "NAMESPACE"),
    model.Column("pods", "PODS", model.Kind.COUNT),
    model.Column("accelerator_pods", "ACCELERATOR PODS", model.Kind.COUNT),
)


def namespace_table(state: ClusterState, current: str | None) -> Grid[None]:
    """`all` first, then every namespace with pods read, with how many pods ask for an accelerator."""
    pods = Counter(p.namespace for p in state.pods)
    accelerated = Counter(p.namespace for p in state.pods if accelerator_requests(p.requests))

    def row(name: str, count: int, gpu: int) -> model.Row[None]:
        style = theme.HEADER if name == (current or ALL) else ""
        cells = (model.Cell(name, style=style), model.Cell(str(count), count), model.Cell(str(gpu), gpu))
        return model.Row(name, cells, None, None, None)

    rows = [row(ALL, sum(pods.values()), sum(accelerated.values()))]
    rows += [row(name, pods[name], accelerated[name]) for name in sorted(pods)]
    return to_grid(model.Table("namespaces", COLUMNS, tuple(rows)), empty="No namespaces.")


class NamespaceScreen(Screen[str | None]):
    """Dismissed with the namespace chosen (`all`: every one), or None (`esc`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "back", "Back")]

    def __init__(self, state: ClusterState, current: str | None) -> None:
        super().__init__(classes="detail-screen")
        self.page_title = "Namespaces"
        self.state = state
        self.current = current

    def compose(self) -> ComposeResult:
        title = Text("Namespaces", style=theme.HEADER)
        title.append(f"  now: {self.current or ALL}  enter: scope to it  esc back", style=theme.MUTED)
        yield Static(title, classes="page-title")
        yield GridTable(id="namespace-table")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in TEXTUAL_DEFAULTS

    def on_mount(self) -> None:
        grid = self.query_one(GridTable)
        grid.markable = False
        grid.set_table(namespace_table(self.state, self.current))
        grid.move_to(self.current or ALL)
        grid.focus()

    @on(GridTable.Selected)
    def _selected(self, event: GridTable.Selected) -> None:
        event.stop()
        self.dismiss(event.row.key)

    def action_back(self) -> None:
        self.dismiss(None)
