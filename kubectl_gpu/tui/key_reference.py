"""Every page's keys, read from the classes' bindings: the key tables of docs/tui.md are generated here
(`python -m kubectl_gpu.tui.key_reference --write`; tests/tui/test_k9s_keys.py fails when the doc differs),
in the words `?` shows (`tui.help.describe`), and the test that no key means two things walks `PAGES`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec
from textual.binding import Binding
from textual.dom import DOMNode

from kubectl_gpu.tui.app import GpuApp, MainScreen
from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from kubectl_gpu.tui.fleet.screen import FleetScreen
from kubectl_gpu.tui.help import describe
from kubectl_gpu.tui.keys import SORT_LETTER, TEXTUAL_DEFAULTS, PageKey
from kubectl_gpu.tui.screens.confirm import ConfirmPod
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.namespaces import NamespaceScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen, NodePodsView
from kubectl_gpu.tui.screens.pod import PodScreen
from kubectl_gpu.tui.screens.try_change import TryScreen
from kubectl_gpu.tui.views import VIEWS
from kubectl_gpu.tui.views.base import TableView
from kubectl_gpu.tui.views.nodepools import NodePoolsView
from kubectl_gpu.tui.views.pending import PendingView
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.grid import GridTable

__all__ = ["DOC", "PAGES", "SECTIONS", "Page", "bindings_of", "chain_bindings", "reference", "write_doc"]

DOC = Path(__file__).resolve().parents[2] / "docs" / "tui.md"
BEGIN = "<!-- keys: generated from the bindings by `python -m kubectl_gpu.tui.key_reference --write` -->"
END = "<!-- /keys -->"


class Page(msgspec.Struct, frozen=True):
    """A page as its keys reach it: the classes from the focused widget up (the first binding of a key
    wins, as in Textual); `modal`: the app's keys do not reach it."""

    name: str
    chain: tuple[type[DOMNode], ...]
    modal: bool = False


def _main(view: type[TableView]) -> Page:
    return Page(f"view {view.view_id}", (GridTable, view, MainScreen, GpuApp))


#: every page and screen of the app, with the chain its keys pass through
PAGES: tuple[Page, ...] = (
    *(_main(view) for view in VIEWS),
    Page("a node's pods", (GridTable, NodePodsView, NodePodsScreen, GpuApp)),
    Page("a pod", (PodScreen, GpuApp)),
    Page("explain", (ExplainScreen, GpuApp)),
    Page("try (`t`: a change's difference)", (TryScreen, GpuApp)),
    Page("a page (YAML, events, a finding, the keys, logs)", (DetailScreen, GpuApp)),
    Page("nvidia-smi", (SmiScreen, GpuApp)),
    Page("the Fleet", (GridTable, FleetScreen, GpuApp)),
    Page("namespaces", (GridTable, NamespaceScreen, GpuApp)),
    Page("the question before a debug pod", (ConfirmPod,), modal=True),
    Page("the command line", (CommandLine,)),
)

#: the doc's tables: a title and the classes whose own keys it lists
SECTIONS: tuple[tuple[str, tuple[type[DOMNode], ...]], ...] = (
    ("Everywhere (the main screen and every page over it; `:` included)", (GpuApp,)),
    ("In a view (the main screen's tables; a node's pods too)", (GridTable, TableView, PendingView)),
    ("NodePools (`o`)", (NodePoolsView,)),
    ("On a page (a finding, explain, YAML, events, logs, the keys)", (DetailScreen,)),
    ("Explain (`enter` on a Pending pod)", (ExplainScreen,)),
    ("A pod (`enter` on a node's pod)", (PodScreen,)),
    ("A node's pods (`enter` on a node)", (NodePodsScreen,)),
    ("nvidia-smi (`s`)", (SmiScreen,)),
    ("The Fleet (`:ctx`)", (FleetScreen,)),
    ("Namespaces (`:ns`)", (NamespaceScreen,)),
    ("The question before a debug pod", (ConfirmPod,)),
    ("The command line (`:`, `/`)", (CommandLine,)),
)


def bindings_of(cls: type[DOMNode], *, inherited: bool = True) -> dict[str, Binding]:
    """key -> binding of the project's own classes (a subclass's binding of a key replaces its base's; the
    keys Textual's own classes bind are turned off on every page: `keys.TEXTUAL_DEFAULTS`)."""
    out: dict[str, Binding] = {}
    classes = reversed(cls.__mro__) if inherited else (cls,)
    for base in classes:
        if not base.__module__.startswith("kubectl_gpu."):
            continue
        for binding in base.__dict__.get("BINDINGS", []):
            if not isinstance(binding, Binding) or binding.action in TEXTUAL_DEFAULTS:
                continue
            for key in binding.key.split(","):
                out[key.strip()] = binding
    return out


def chain_bindings(page: Page) -> dict[str, list[Binding]]:
    """key -> every binding of it along the page's chain, the one that wins first."""
    out: dict[str, list[Binding]] = {}
    for cls in page.chain:
        for key, binding in bindings_of(cls).items():
            out.setdefault(key, []).append(binding)
    return out


def _rows(classes: tuple[type[DOMNode], ...]) -> list[PageKey]:
    """One entry per binding of the classes' own, keys together (`j down`), the sort letters as one."""
    grouped: dict[str, PageKey] = {}
    for cls in classes:
        for key, binding in bindings_of(cls, inherited=False).items():
            action = SORT_LETTER if binding.action.startswith(SORT_LETTER) else binding.action
            found = grouped.get(action)
            keys = (*found.keys, key) if found is not None else (key,)
            grouped[action] = PageKey(keys, action, binding.description, binding.show)
    return list(grouped.values())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reference() -> str:
    """The doc's key tables (markdown), from the bindings, in `?`'s words."""
    out: list[str] = []
    for title, classes in SECTIONS:
        out += [f"**{title}**", "", "| key | what |", "| --- | --- |"]
        for key in _rows(classes):
            label = "⇧letter" if key.action == SORT_LETTER else key.label
            shown = " ".join(f"`{k}`" for k in label.split())
            out.append(f"| {_cell(shown)} | {_cell(describe(key))} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def doc_section(text: str) -> str:
    """What the doc holds between the markers ("" when they are missing)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return ""
    return text[start + len(BEGIN) : end].strip("\n") + "\n"


def write_doc(path: Path = DOC) -> bool:
    """Write the tables between the markers; True when the doc changed."""
    text = path.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} markers")
    new = text[: start + len(BEGIN)] + "\n" + reference() + text[end:]
    if new == text:
        return False
    path.write_text(new)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The TUI's key tables of docs/tui.md, from the bindings.")
    parser.add_argument("--write", action="store_true", help="update docs/tui.md (else print the tables)")
    args = parser.parse_args(argv)
    if args.write:
        print("docs/tui.md updated" if write_doc() else "docs/tui.md already up to date")
    else:
        sys.stdout.write(reference())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
