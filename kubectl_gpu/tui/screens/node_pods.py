"""`enter` on a node: the node in one line, then its pods (`render.node_pods_view`), those holding its
accelerators first; `enter` opens a pod, `y` / `e` / `l` its YAML, events and last log lines, `esc` or `-`
goes back."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.core.accelerators.node_pods import NodePod
from kubectl_gpu.core.accelerators.nodes import NodeRow, pods_unread
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Row as ModelRow
from kubectl_gpu.render.node_pods_view import node_line as summary_line
from kubectl_gpu.render.node_pods_view import node_pods_table, pods_empty
from kubectl_gpu.render.page_lines import page_title
from kubectl_gpu.tui.drill import GONE, Drill
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.messages import DebugNode, ShowObject
from kubectl_gpu.tui.screens.pod import PodScreen, find_pod, show_logs
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, object_detail
from kubectl_gpu.tui.views.model_grid import Fit, Grid, to_grid
from kubectl_gpu.tui.widgets.bar import allocation_bar, unknown_bar
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["NodePodsScreen", "NodePodsView", "node_line", "pods_grid"]

FITS: tuple[Fit[NodePod], ...] = (
    Fit("namespace", max_width=24),
    Fit("name", max_width=48),
    Fit("accelerators", max_width=30),
    Fit("phase"),
    Fit("age"),
    Fit("owner", flex=True, min_width=12, max_width=80),
)


def node_line(drill: Drill, row: NodeRow | None, name: str) -> Text:
    """The node at a glance: its bar and its figures (`core.accelerators.parts`, as `kubectl gpu nodes NODE`
    words them), model, pool, health (`render.node_pods_view.node_line`: its texts made safe)."""
    line = summary_line(row, name)
    out = Text(line.name, style=theme.HEADER)
    if row is None:
        out.append(f"  {GONE}", style=theme.WARNING)
        return out
    parts = row.parts
    out.append("  ")
    out.append_text(allocation_bar(*parts.bar, width=8) if parts.known else unknown_bar(width=8))
    if line.model is not None:
        out.append(f" {line.model}")
    out.append(f"  {line.pool}  ")
    out.append(line.health, style=theme.GOOD if line.healthy else theme.ERROR)
    return out


def _pod_detail(drill: Drill, row: ModelRow[NodePod]) -> RenderableType:
    """The pod under the cursor: its name, what enter opens, and the diagnose findings about it."""
    head = Text()
    head.append(page_title(f"{row.obj.pod.namespace}/{row.obj.pod.name}"), style=theme.HEADER)
    head.append("  enter: the pod (explain, events, YAML, logs, its node)", style=theme.MUTED)
    return object_detail(drill.snapshot, row.ref, head)


def pods_grid(drill: Drill, node: str) -> Grid[NodePod]:
    table = node_pods_table(drill.snapshot.state, node, drill.snapshot.now)
    return to_grid(
        table if table.rows else None,
        fits=FITS,
        detail=lambda row: _pod_detail(drill, row),
        empty=pods_empty(node, pods_unread(drill.snapshot.state)),
    )


class NodePodsView(TableView):
    view_id = "node-pods"
    title = "Pods"
    SECTIONS = ("Pods",)

    def on_mount(self) -> None:
        for grid in self.grids:  # pods are not marked: s / x act on the page's node
            grid.markable = False


class NodePodsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,minus,backspace", "back", "Back"),
        Binding("y", "object('yaml')", "YAML"),
        Binding("e", "object('events')", "Events"),
        Binding("l", "logs", "Logs"),
        Binding("Y", "node_object('yaml')", "Node YAML"),
        Binding("E", "node_object('events')", "Node events"),
        Binding("s", "debug('smi')", "smi"),
        Binding("x", "debug('shell')", "Shell"),
    ]

    def __init__(self, drill: Drill, node: str) -> None:
        super().__init__(classes="detail-screen")
        self.node = node
        self._read(drill)

    def _read(self, drill: Drill) -> None:
        self.drill = drill
        self.row = next((r for r in drill.snapshot.nodes.rows if r.name == self.node), None)

    def follow(self, drill: Drill) -> None:
        """A refresh: the same node and its pods as they are now (the cursor stays on its pod), or gone."""
        self._read(drill)
        if self.is_mounted:
            self.query_one(".view-summary", Static).update(node_line(drill, self.row, self.node))
            self._show_pods()

    def _show_pods(self) -> None:
        self.view.show(ViewModel((Section("Pods", pods_grid(self.drill, self.node)),)))

    def compose(self) -> ComposeResult:
        title = Text(page_title(f"Node {self.node}: its pods"), style=theme.HEADER, no_wrap=True)
        title.append("  enter: a pod  esc back", style=theme.MUTED)  # the footer and ? list the rest
        yield Static(title, classes="page-title")
        yield Static(node_line(self.drill, self.row, self.node), classes="view-summary")
        yield NodePodsView()
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_pods()
        self.view.focus_table()

    @property
    def view(self) -> NodePodsView:
        return self.query_one(NodePodsView)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that act here: a pod's keys need a pod under the cursor; s / x the app's leave
        (not read-only; x live only), as on any node page."""
        if action in TEXTUAL_DEFAULTS:
            return False
        if action in ("object", "logs"):
            row = self.view.grid.cursor_row if self.is_mounted else None
            return row is not None and row.ref is not None
        if action == "debug":
            allowed = getattr(self.app, "debug_allowed", None)
            return callable(allowed) and bool(allowed(str(parameters[0])))
        return True

    def action_back(self) -> None:
        self.dismiss(None)

    def action_debug(self, what: str) -> None:
        self.app.post_message(DebugNode(self.node, what))

    def action_object(self, what: str) -> None:
        row = self.view.grid.cursor_row
        if row is None or row.ref is None:
            self.notify("no pod under the cursor", severity="warning", timeout=3)
            return
        self.app.post_message(ShowObject(row.ref, "yaml" if what == "yaml" else "events"))

    def action_logs(self) -> None:
        """`l`: the last log lines of the pod under the cursor (as on its page, and as in k9s)."""
        row = self.view.grid.cursor_row
        if row is None or row.ref is None:
            return
        show_logs(self, self.drill, row.ref, find_pod(self.drill, row.ref))

    def action_node_object(self, what: str) -> None:
        self.app.post_message(
            ShowObject(ObjectRef("Node", self.node), "yaml" if what == "yaml" else "events")
        )

    @on(TableView.Open)
    def _open(self, message: TableView.Open) -> None:
        message.stop()
        ref = message.row.ref
        if ref is None:
            return
        self.app.push_screen(PodScreen(self.drill, ref, lambda node: NodePodsScreen(self.drill, node)))
