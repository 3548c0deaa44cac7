"""`?`: every key, from the bindings themselves (so the list cannot go stale), and the `:` commands."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType

from kubectl_gpu.render import theme
from kubectl_gpu.tui.commands import ALIASES, COMMANDS
from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from kubectl_gpu.tui.screens.pod import PodScreen
from kubectl_gpu.tui.views.base import TableView
from kubectl_gpu.tui.views.pending import PendingView
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.grid import GridTable

__all__ = ["EXTRA", "help_view", "key_table"]

#: what each action does, in words (the bindings' own descriptions are the footer's short labels)
EXTRA: dict[str, str] = {
    "smi": "nvidia-smi on the selected node, or on the marked ones (offline: the stored probe)",
    "shell": "a shell on the selected node in a debug pod (kubectl exec; the pod is deleted after)",
    "yaml": "the selected object's YAML",
    "events": "the selected object's events",
    "command": "command line: :nodes :pending :ctx NAME :ns NAME|all :q (tab completes)",
    "filter": "filter the table: words to keep, !word to drop; esc clears",
    "refresh": "read the cluster again now",
    "go_back": "back: cancel a starting shell, clear the filter, the marks, then the previous view",
    "back": "back",
    "quit": "quit (running debug pods are deleted first)",
    "mark": "mark the node (s runs on every marked node)",
    "select": "open: a pool's nodes, a node's pods, a pod, explain a Pending pod, a Pending group, a finding",
    "history_back": "the page or view before this one (k9s' -), filters and marks kept",
    "logs": "the pod's last 200 log lines (at most 256 KiB; live only)",
    "node": "the pod's node and its pods",
    "node_object": "the node's YAML / events",
    "toggle_group": "open or close the group under the cursor (its pods under it)",
    "sort_next": "sort by the next column",
    "sort_reverse": "reverse the sort",
    "next_section": "next section of the view (Nodes / Workloads / Findings ...)",
    "scroll_detail": "scroll the detail pane under the table",
    "copy": "copy (the fix, the YAML) to the clipboard, through the terminal (OSC 52)",
    "cancel_or_back": "cancel nvidia-smi (pods deleted); back once done",
}


def _rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for binding in bindings:
        if not isinstance(binding, Binding) or binding.system:
            continue
        name = binding.action.partition("(")[0]
        keys = binding.key.replace(",", " ").replace("minus", "-")
        what = EXTRA.get(name) or binding.description
        if name == "view":
            what = f"view: {binding.description}"
        out.append((keys, what))
    return out


def key_table(title: str, bindings: Iterable[BindingType]) -> Table:
    table = theme.table(("KEY", "WHAT"), wrap=("WHAT",), title=title)
    for keys, what in dict.fromkeys(_rows(bindings)):
        table.add_row(Text(keys, style=theme.INFO), what)
    return table


def help_view(app: App[int]) -> RenderableType:
    commands = theme.table(("COMMAND", "WHAT"), wrap=("WHAT",), title=":COMMANDS")
    for name, what in COMMANDS.items():
        commands.add_row(Text(f":{name}", style=theme.INFO), what)
    aliases = ", ".join(f":{a}" for a, v in ALIASES.items() if a != v)
    return Group(
        key_table("EVERYWHERE", app.BINDINGS),
        Text(""),
        key_table("IN A TABLE", [*GridTable.BINDINGS, *TableView.BINDINGS]),
        Text(""),
        key_table(
            "ON A DETAIL PAGE (explain, YAML, events)", [*DetailScreen.BINDINGS, *ExplainScreen.BINDINGS]
        ),
        Text(""),
        key_table("PENDING", PendingView.BINDINGS),
        Text(""),
        key_table("A NODE'S PODS (enter on a node)", NodePodsScreen.BINDINGS),
        Text(""),
        key_table("A POD (enter on a node's pod)", PodScreen.BINDINGS),
        Text(""),
        key_table("NVIDIA-SMI", SmiScreen.BINDINGS),
        Text(""),
        key_table("COMMAND LINE", CommandLine.BINDINGS),
        Text(""),
        commands,
        Text(f"also: {aliases}", style=theme.MUTED),
    )
