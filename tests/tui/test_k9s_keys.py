"""Keys a k9s user already knows (issue 39, item 6): `:` aliases on every page, `0` for every namespace,
Shift+letter sorting by the columns shown, `l` = logs wherever a pod is in focus, one meaning per key, the
doc's key tables generated from the bindings, and AGE on Pending's group rows."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from textual.binding import Binding

from kubectl_gpu.kube.source import open_source
from kubectl_gpu.render.pending_groups import PendingGroup, grouped_rows
from kubectl_gpu.render.pending_view import pending_table
from kubectl_gpu.tui import data
from kubectl_gpu.tui.app import MainScreen
from kubectl_gpu.tui.commands import Command, parse
from kubectl_gpu.tui.help import help_view
from kubectl_gpu.tui.key_reference import DOC, PAGES, chain_bindings, doc_section, reference
from kubectl_gpu.tui.keys import SORT_LETTERS, page_keys
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.namespaces import NamespaceScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from kubectl_gpu.tui.screens.pod import PodScreen
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.key_bar import KeyBar
from tests.tui.conftest import CHAT_API, DEMO_NOW, demo_app, demo_config, settle

#: actions that mean the same to a person, whichever page binds them
SAME: dict[str, str] = {
    "subject('yaml')": "yaml",
    "object('yaml')": "yaml",
    "subject('events')": "events",
    "object('events')": "events",
    "debug('smi')": "smi",
    "debug('shell')": "shell",
    "cursor(1)": "down",
    "scroll(1)": "down",
    "cursor(-1)": "up",
    "scroll(-1)": "up",
    "jump(0)": "top",
    "top": "top",
    "jump(-1)": "bottom",
    "bottom": "bottom",
    # leaving: the page (back), the view's filter or history, the app from the main screen (q)
    "back": "back",
    "go_back": "back",
    "cancel_or_back": "back",
    "history_back": "back",
    "quit": "back",
    "select": "open",
    "choose": "open",
}


def meaning(binding: Binding) -> str:
    action = binding.action
    if action.startswith("sort_letter("):
        return "sort by that column"
    return SAME.get(action, action)


def printable(key: str) -> bool:
    """A key that types a character (`l`, `N`, `0`, `$`), not one that moves or acts on what the page holds
    (`space`, `enter`, `esc`, `tab`, the arrows: a row's mark, a page's scroll, a group's toggle)."""
    return len(key) == 1 or key in ("dollar_sign", "question_mark", "colon", "slash", "minus")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_key_means_two_things_on_a_page(page: Any) -> None:
    """Along the page's chain (focused widget up to the app), a key bound twice is bound to one meaning:
    `l` on a node's pods was its logs there and the Lifecycle view a level up. Pending's `space` opens a
    group where the grid's mark is off: both act on the row under the cursor."""
    twice = {}
    for key, bindings in chain_bindings(page).items():
        meanings = {meaning(b) for b in bindings} - {"mark", "toggle_group"} or {"row"}
        if len(meanings) > 1:
            twice[key] = sorted(meanings)
    assert not twice, f"{page.name}: {twice}"


def test_a_key_that_types_a_character_means_one_thing_on_every_page() -> None:
    """`l` is logs wherever it works (the Lifecycle view is `i`, `t` tries a change), `c` copies (Cost is `$`), `N` sorts by name
    (a pod's node is `enter`, one level down). The question before a debug pod (a modal: only its keys
    work) answers `y` / `n`; the command line is a text field."""
    seen: dict[str, dict[str, str]] = {}
    for page in PAGES:
        if page.modal or page.chain[0] is CommandLine:
            continue
        for key, bindings in chain_bindings(page).items():
            if printable(key):
                seen.setdefault(key, {})[meaning(bindings[0])] = page.name
    twice = {key: pages for key, pages in seen.items() if len(pages) > 1}
    assert not twice, twice
    assert {meaning(b[0]) for p in PAGES for k, b in chain_bindings(p).items() if k == "l"} == {"logs"}
    assert set(SORT_LETTERS) >= {"N", "A", "P", "V", "H", "D"}


def test_the_docs_key_tables_are_the_bindings() -> None:
    """docs/tui.md's key tables are generated (`python -m kubectl_gpu.tui.key_reference --write`)."""
    assert doc_section(DOC.read_text()) == reference(), "run: python -m kubectl_gpu.tui.key_reference --write"
    assert "| `l` | the last 200 log lines of the pod in focus" in reference()
    assert "| `i` `8` | view: Lifecycle |" in reference()


@pytest.mark.parametrize(
    ("typed", "command"),
    [
        ("po", Command("view", "pending")),
        ("pod", Command("view", "pending")),
        ("pods", Command("view", "pending")),
        ("no", Command("view", "nodes")),
        ("node", Command("view", "nodes")),
        ("np", Command("view", "nodepools")),
        ("nodepool", Command("view", "nodepools")),
        ("ns", Command("pick-ns")),
        ("ns ml", Command("ns", "ml")),
        ("ns all", Command("ns", None)),
        ("ctx", Command("ctx")),
        ("contexts", Command("ctx")),
        ("ctx prod", Command("ctx", "prod")),
    ],
)
def test_k9s_aliases(typed: str, command: Command) -> None:
    assert parse(typed) == command


async def type_command(pilot: Any, text: str) -> None:
    await settle(pilot, "colon")
    line = pilot.app.screen.query_one(CommandLine)
    assert line.has_focus
    line.value = text
    await settle(pilot, "enter")


async def test_the_command_line_works_on_every_page() -> None:
    """`:` on a node's pods, a pod, explain: `:po` opens Pending, `:no` Nodes (back on the main screen);
    `esc` closes the line and leaves the page as it was, its table focused."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, "n", "enter")
        assert isinstance(app.screen, NodePodsScreen)
        assert "colon" in {k.press for k in page_keys(app.screen)}
        await settle(pilot, "colon", "escape")
        assert isinstance(app.screen, NodePodsScreen) and app.screen.view.grid.has_focus
        await type_command(pilot, "po")
        assert isinstance(app.screen, MainScreen) and app.current == "pending"
        await settle(pilot, "n", "enter", "enter")
        assert isinstance(app.screen, PodScreen)
        await type_command(pilot, "no")
        assert isinstance(app.screen, MainScreen) and app.current == "nodes"
        await settle(pilot, "p", "j", "enter")
        assert isinstance(app.screen, ExplainScreen)
        await type_command(pilot, "np")
        assert isinstance(app.screen, MainScreen) and app.current == "nodepools"


async def test_ns_alone_picks_a_namespace_and_0_is_every_namespace() -> None:
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "0" not in {k.press for k in page_keys(app.screen)}  # every namespace already
        await type_command(pilot, "ns")
        screen = app.screen
        assert isinstance(screen, NamespaceScreen)
        grid = screen.query_one("GridTable")
        assert [row.key for row in grid.view][:1] == ["all"] and "ml" in {row.key for row in grid.view}
        assert grid.move_to("ml")  # type: ignore[attr-defined]
        await settle(pilot, "enter")
        assert isinstance(app.screen, MainScreen) and app.config.namespace == "ml"
        assert "0" in {k.press for k in page_keys(app.screen)}
        await settle(pilot, "0")
        assert app.config.namespace is None


async def test_shift_letter_sorts_by_the_column_shown() -> None:
    """Shift+N: NAME, again reversed; Shift+A: ALLOC, again reversed, again AGE (both shown at 200 columns);
    one entry in the footer and `?`; a letter no column shown starts with is not listed."""
    app = demo_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot, "n")
        grid = app.view.grid
        labels = [c.label for c in grid.table.columns]
        await settle(pilot, "N")
        assert (labels[grid.sort_column or 0], grid.sort_reverse) == ("NAME", False)
        names = [row.key for row in grid.view]
        assert names == sorted(names)
        await settle(pilot, "N")
        assert (grid.sort_column, grid.sort_reverse) == (labels.index("NAME"), True)
        await settle(pilot, "A")
        assert labels[grid.sort_column or 0].startswith("ALLOC") and not grid.sort_reverse
        await settle(pilot, "A", "A")
        assert (labels[grid.sort_column or 0], grid.sort_reverse) == ("AGE", False)
        sort = next(k for k in page_keys(app.screen) if k.action == "sort_letter")
        assert {"N", "A", "H", "D"} <= set(sort.keys) and "Z" not in sort.keys
        assert "⇧letter Sort" in str(app.screen.query_one(KeyBar).render())
        console = Console(width=200, record=True)
        console.print(help_view(app.screen))
        line = next(line for line in console.export_text().splitlines() if sort.label in line)
        assert "sort by the column shown whose header starts with the letter" in line


async def test_l_is_logs_wherever_a_pod_is_in_focus() -> None:
    """Pending's pod row, its explain page, and not the Lifecycle view (`i`); no `l` on a node's row."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, "n")
        assert "l" not in {k.press for k in page_keys(app.screen)}  # rows are nodes
        await settle(pilot, "p")
        assert app.view.grid.move_to(CHAT_API)
        await settle(pilot, "l")
        assert isinstance(app.screen, DetailScreen) and app.screen.page_title == f"logs pod/{CHAT_API}"
        assert app.current == "pending"
        await settle(pilot, "escape", "enter")
        assert isinstance(app.screen, ExplainScreen)
        assert ("l", "logs") in {(k.press, k.action) for k in page_keys(app.screen)}
        await settle(pilot, "l")
        assert app.screen.page_title == f"logs pod/{CHAT_API}"  # type: ignore[attr-defined]
        await settle(pilot, "escape", "escape", "i")
        assert app.current == "lifecycle"


def test_a_pending_groups_age_is_its_oldest_pods() -> None:
    """A group row's AGE is how long the workload has waited: its oldest pod's (the demo's real rows)."""
    snapshot = data.load(open_source(demo_config().source), now=DEMO_NOW, clock=lambda: DEMO_NOW)
    table = pending_table(snapshot.pending, wide=True)
    age = table.index("age")
    rows = sorted((r for r in table.rows if isinstance(r.cells[age].sort, int | float)), key=lambda r: r.key)
    young, old = min(rows, key=lambda r: r.cells[age].sort), max(rows, key=lambda r: r.cells[age].sort)
    group = PendingGroup("group:two", "two", (young, old))
    (shown,) = grouped_rows(table, [group], set())
    assert shown.cells[age] == old.cells[age] != young.cells[age]
