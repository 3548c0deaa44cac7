"""`?`: the keys of the page it was pressed on, from that page's enabled bindings (so the list cannot go
stale, and lists no key that does nothing there), and on the main screen the `:` commands."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.screen import Screen

from kubectl_gpu.render import theme
from kubectl_gpu.tui.commands import ALIASES, COMMANDS
from kubectl_gpu.tui.keys import PageKey, page_keys
from kubectl_gpu.tui.views import VIEWS

__all__ = ["EXTRA", "describe", "help_view", "key_table"]

#: what each action does, in words (the bindings' own descriptions are the footer's short labels); the
#: full action (with its argument) first, then its name
EXTRA: dict[str, str] = {
    "smi": "nvidia-smi on the selected node, or on the marked ones (asks first; offline: the stored probe)",
    "shell": "a shell on the selected node in a debug pod (asks first; kubectl exec; the pod is deleted after)",
    "debug('smi')": "nvidia-smi on this node (asks first; offline: the stored probe)",
    "debug('shell')": "a shell on this node in a debug pod (asks first)",
    "yaml": "the selected object's YAML",
    "events": "the selected object's events",
    "subject('yaml')": "this object's YAML",
    "subject('events')": "this object's events",
    "command": "command line, on every page (k9s' aliases): :nodes :no :po :np :ns [NAME|all] :ctx [NAME] :q "
    "(tab completes)",
    "filter": "filter the table: words to keep, !word to drop; esc clears",
    "refresh": "read the cluster again now",
    "go_back": "back: cancel a starting shell, clear the filter, the marks, then the previous view",
    "back": "back",
    "quit": "quit (running debug pods are deleted first)",
    "mark": "mark the node (s runs on every marked node)",
    "select": "open: a pool's nodes, a node's pods, a pod, explain a Pending pod, a Pending group, a finding",
    "history_back": "the page or view before this one (k9s' -), filters and marks kept",
    "logs": "the last 200 log lines of the pod in focus (the row's, the page's; at most 256 KiB; live only)",
    "node": "one level down: the pod's node and its pods",
    "all_namespaces": "every namespace (k9s' 0; as :ns all)",
    "sort_letter": "sort by the column shown whose header starts with the letter (k9s' Shift+N name, "
    "Shift+A age); again: reversed",
    "node_object": "the node's YAML / events",
    "toggle_group": "on Pending: open or close the group under the cursor (its pods under it)",
    "try": "try it on a copy of the cluster and see what it does cluster-wide (simulate): a pod's fix "
    "(Pending, explain), or an edit of the NodePool in $EDITOR (NodePools); nothing is applied",
    "scroll_cells(-8)": "scroll a table wider than the screen left",
    "scroll_cells(8)": "scroll a table wider than the screen right",
    "help": "every key of this page (on the main screen, the : commands too)",
    "sort_next": "sort by the next column",
    "sort_reverse": "reverse the sort",
    "next_section": "next section of the view (Nodes / Workloads / Findings ...)",
    "next_section(-1)": "previous section of the view",
    "scroll_detail(1)": "scroll the detail pane under the table down",
    "scroll_detail(-1)": "scroll the detail pane up",
    "copy": "copy (the fix, the YAML) to the clipboard, through the terminal (OSC 52)",
    "cancel_or_back": "cancel nvidia-smi (pods deleted); back once done",
    "answer(True)": "yes: create the pod",
    "answer(False)": "no: create nothing",
    "choose": "switch to the context under the cursor",
    "node_object('yaml')": "the node's YAML",
    "node_object('events')": "the node's events",
    "object('yaml')": "the pod's YAML (under the cursor, or the page's)",
    "object('events')": "the pod's events (under the cursor, or the page's)",
    "cursor(1)": "down a row",
    "cursor(-1)": "up a row",
    "page(1)": "a page down",
    "page(-1)": "a page up",
    "jump(0)": "the first row",
    "jump(-1)": "the last row",
    "scroll(1)": "scroll down",
    "scroll(-1)": "scroll up",
    "top": "the top",
    "bottom": "the bottom",
    "submit": "run the command / keep the filter",
    "cancel": "close the line (a filter is cleared)",
    "complete": "take the completion",
}


def describe(key: PageKey) -> str:
    name, _, argument = key.action.partition("(")
    if name == "view":
        view_id = argument.strip("')")
        title = next((v.title for v in VIEWS if v.view_id == view_id), key.description)
        return f"view: {title}"
    return EXTRA.get(key.action) or EXTRA.get(name) or key.description


def key_table(title: str, keys: list[PageKey]) -> RenderableType:
    table = theme.table(("KEY", "WHAT"), wrap=("WHAT",), title=title)
    for key in keys:
        table.add_row(Text(key.label, style=theme.INFO), describe(key))
    return table


def help_view(page: Screen[object]) -> RenderableType:
    """The page's keys (every one works there); the commands of the `:` line on the main screen."""
    keys = page_keys(page)
    parts: list[RenderableType] = [key_table("KEYS HERE", keys)]
    if any(k.action == "command" for k in keys):
        commands = theme.table(("COMMAND", "WHAT"), wrap=("WHAT",), title=":COMMANDS")
        for name, what in COMMANDS.items():
            commands.add_row(Text(f":{name}", style=theme.INFO), what)
        aliases = ", ".join(f":{a}" for a, v in ALIASES.items() if a != v)
        parts += [Text(""), commands, Text(f"also: {aliases}", style=theme.MUTED)]
    return Group(*parts)
