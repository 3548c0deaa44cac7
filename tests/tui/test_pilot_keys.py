"""Every page lists only the keys that work there: on each page of the demo, every key its footer or `?`
lists is pressed, and each must do something (another page, view, section, cursor, scroll, filter, mark,
sort, a notice, a copy, a refresh, quitting). Then the key bugs issue 19 names, one by one."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.help import help_view
from kubectl_gpu.tui.keys import PageKey, fit_footer, page_keys, shown_key
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from kubectl_gpu.tui.views import VIEWS, TableView
from kubectl_gpu.tui.widgets.grid import GridTable
from kubectl_gpu.tui.widgets.key_bar import KeyBar
from tests.tui.conftest import demo_app, settle

SIZE = (120, 40)

#: how to reach each page from the first screen (after a reset), on the demo bundle
PAGES: dict[str, tuple[str, ...]] = {
    **{f"view-{v.view_id}": (v.key,) if v.view_id != "overview" else () for v in VIEWS},
    "drivers-workloads": ("d", "tab"),
    "lifecycle-pods": ("i", "tab"),
    "cost-idle-nodes": ("dollar_sign", "tab", "tab"),
    "node-page": ("n", "enter"),
    "node-yaml": ("n", "y"),
    "node-events": ("n", "e"),
    "explain": ("p", "j", "enter"),
    "finding": ("f", "enter"),
    "keys": ("question_mark",),
    "smi": ("n", "G", "s"),
    "pod": ("n", "enter", "enter"),
    "namespaces": ("colon", "n", "s", "enter"),
}


def place(app: GpuApp) -> tuple[Any, ...]:
    """Where the app is and what a person sees of it (without the counters: see `counters`)."""
    screen = app.screen
    out: list[Any] = [
        len(app.screen_stack),
        type(screen).__name__,
        getattr(screen, "page_title", None),
        app.current,
        app.query_one("#command-bar").display,
        tuple(app.history),
    ]
    view = page_view(app)
    grid = view.grid
    out += [view.section, grid.cursor, grid.scroll_x, grid.scroll_y, grid.filter_text]
    out += [frozenset(grid.marks), grid.sort_column, grid.sort_reverse]
    out.append(view.query_one(".detail-pane", VerticalScroll).scroll_y)
    bars = screen.query("#command-bar") if len(app.screen_stack) > 1 else []  # `:` on a page: its own line
    out += [bool(bar.display) for bar in bars]
    own = (
        [g for g in screen.query(GridTable) if not any(isinstance(a, TableView) for a in g.ancestors)]
        if len(app.screen_stack) > 1
        else []
    )
    out += [(g.cursor, g.scroll_y, g.sort_column, g.sort_reverse) for g in own]  # the Fleet's, namespaces'
    pages = list(screen.query(".page")) if len(app.screen_stack) > 1 else []
    out += [p.scroll_y for p in pages if isinstance(p, VerticalScroll)]
    return tuple(out)


def page_view(app: GpuApp) -> TableView:
    """The view of the page shown: a drill-down page's own (the node page's pods), else the app's."""
    own = getattr(app.screen, "view", None)
    return own if isinstance(own, TableView) else app.view


def counters(app: GpuApp) -> tuple[Any, ...]:
    """What a key may add to: a notice, a copy, a refresh, quitting."""
    return (len(app.notices), app.clipboard, app.generation, len(getattr(app, "exits", [])))


async def reset(pilot: Pilot[Any], keys: tuple[str, ...]) -> None:
    """Back to the first screen as it started, then to the page; the cursor on the second row (so that
    both up and down move)."""
    app = pilot.app
    assert isinstance(app, GpuApp)
    await app.workers.wait_for_complete()
    while len(app.screen_stack) > 1:
        app.pop_screen()
    await pilot.pause()
    app._close_line()
    for view in app.views():  # only what differs (each change rebuilds a table)
        if view.filter_text:
            view.set_filter("")
        while view.section:
            view.action_next_section()
        for grid in view.grids:
            grid.marks.clear()
            if grid.sort_column is not None or grid.sort_reverse:
                grid.sort_by(None)
            grid.action_jump(0)
    app.history.clear()
    app._show("overview", remember=False)
    await settle(pilot, *keys)
    view = page_view(app)
    grid = view.grid
    if (len(app.screen_stack) == 1 or view is not app.view) and len(grid.view) > 2 and grid.cursor == 0:
        grid.action_cursor(1)
    await pilot.pause()


async def undo(pilot: Pilot[Any], start: tuple[Any, ...], section: int, cursor: int) -> None:
    """Undo what a key changed on the page itself (cursor, sort, marks, section, scroll), cheaply; nothing
    when the key left the page (another view or page: `start` says where it was), the caller resets."""
    app = pilot.app
    assert isinstance(app, GpuApp)
    if place(app)[:4] != start[:4]:  # another screen or view: its sections are not the page's
        return
    view = page_view(app)
    while view.section != section:
        view.action_next_section()
    grid = view.grid
    grid.marks.clear()
    grid.sort_by(None)
    grid._set_cursor(cursor)
    grid.scroll_to(x=0, animate=False, immediate=True)
    view.query_one(".detail-pane", VerticalScroll).scroll_home(animate=False, immediate=True)
    for page in app.screen.query(".page") if len(app.screen_stack) > 1 else []:
        if isinstance(page, VerticalScroll):
            page.scroll_home(animate=False, immediate=True)
    await pilot.pause()


def listed(app: GpuApp) -> list[PageKey]:
    """What the page offers: its footer, and its `?` page (the same bindings, all of them)."""
    keys = page_keys(app.screen)
    footer = app.screen.query_one(KeyBar).footer_keys
    assert {k.action for k in footer} <= {k.action for k in keys}
    return keys


async def press(pilot: Pilot[Any], key: str) -> None:
    await pilot.press(key)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.slow
@pytest.mark.parametrize("page", list(PAGES))
async def test_every_listed_key_does_something(page: str) -> None:
    app = demo_app()
    exits: list[object] = []
    app.exits = exits  # type: ignore[attr-defined]
    app.action_quit = lambda: exits.append(1)  # type: ignore[method-assign,assignment]  # q: seen, not done
    async with app.run_test(size=(80, 24)) as pilot:
        await reset(pilot, PAGES[page])
        keys = listed(app)
        assert keys, page
        start = place(app)
        section, cursor = page_view(app).section, page_view(app).grid.cursor
        dead = []
        for key in keys:
            if place(app) != start:
                await undo(pilot, start, section, cursor)
            if place(app) != start:  # it left the page: go back to it
                await reset(pilot, PAGES[page])
            assert place(app) == start, key
            before = counters(app)
            await press(pilot, key.press)
            if place(app) == start and counters(app) == before:
                dead.append(f"{key.label} ({key.action})")
        assert not dead, f"{page}: keys listed that do nothing: {dead}"


async def test_footer_keeps_the_important_keys_at_80_columns() -> None:
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, "n")
        shown = [shown_key(k.press) for k in app.screen.query_one(KeyBar).footer_keys]
        for key in ("s", ":", "/", "r", "q", "?"):
            assert key in shown, shown
        text = str(app.screen.query_one(KeyBar).render())
        assert len(text) <= 80


async def test_a_drill_pages_own_keys_stay_in_the_footer_at_80_columns() -> None:
    """The node's pods page offered `l Life` (the Lifecycle view) where k9s' `l` is a pod's logs, and the pod
    page at 80x24 listed the views, not its own keys. On both, `l` is the pod's logs, and a page's own keys
    are kept before the views."""
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, "n", "enter")
        node_page = {(shown_key(k.press), k.description) for k in app.screen.query_one(KeyBar).footer_keys}
        assert {("y", "YAML"), ("e", "Events"), ("l", "Logs"), ("s", "smi")} <= node_page, node_page
        assert "Life" not in {k.description for k in page_keys(app.screen) if "l" in k.keys}
        await settle(pilot, "l")  # the pod under the cursor's (a snapshot has none: the page says so)
        assert app.screen.page_title == "logs pod/serving/vllm-qwen32b-5f7c9d8b6-tn4vq"  # type: ignore[attr-defined]
        await settle(pilot, "escape", "enter")
        footer = {(shown_key(k.press), k.description) for k in app.screen.query_one(KeyBar).footer_keys}
        assert {("y", "YAML"), ("e", "Events"), ("l", "Logs"), ("enter", "Node")} <= footer, footer
        assert "Life" not in str(app.screen.query_one(KeyBar).render())
        await settle(pilot, "l")
        assert app.screen.page_title.startswith("logs pod/")  # type: ignore[attr-defined]


def test_footer_chooses_by_priority_and_keeps_its_order() -> None:
    keys = [
        PageKey(("question_mark",), "help", "Keys", True),
        PageKey(("v",), "view('overview')", "Overview", True),
        PageKey(("n",), "view('nodes')", "Nodes", True),
        PageKey(("s",), "smi", "smi", True),
        PageKey(("q",), "quit", "Quit", True),
        PageKey(("j",), "cursor(1)", "Down", False),
    ]
    assert [k.press for k in fit_footer(keys, 200)] == ["question_mark", "v", "n", "s", "q"]
    assert [k.press for k in fit_footer(keys, 20)] == ["question_mark", "s", "q"]
    logs = PageKey(("l",), "logs", "Logs", True)  # a page's own key: before the views
    assert [k.press for k in fit_footer([*keys, logs], 28)] == ["question_mark", "l", "s", "q"]


async def test_node_page_keys_act_on_its_node() -> None:
    """Issue 19: the node page listed `s x y e space` and none worked. The node page (enter on a node: the
    node at a glance and its pods) offers s on the node (x live only), y/e on the pod under the cursor and
    Y/E on the node; its YAML and events pages take y/e about the node."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter")
        page = app.screen
        assert isinstance(page, NodePodsScreen) and page.node
        offered = {k.press for k in page_keys(page)}
        assert {"y", "e", "Y", "E", "s"} <= offered and not {"x", "space"} & offered
        await settle(pilot, "E")
        assert isinstance(app.screen, DetailScreen) and app.screen.page_title.startswith("events node/")
        assert "e" not in {k.press for k in page_keys(app.screen)}  # not its own page again
        await settle(pilot, "y")  # e is dead on the YAML page no more, and y on events opens the YAML
        assert app.screen.page_title.startswith("YAML node/")
        await settle(pilot, "e")
        assert app.screen.page_title.startswith("events node/")


async def test_marks_count_every_marked_row() -> None:
    """Issue 19: `n j space j j space` showed `1 marked` beside two marked rows."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "j", "space", "j", "j", "space")
        grid = app.view.grid
        assert len(grid.marks) == 2
        assert "2 marked" in str(app.view.query_one(".view-title").render())


async def test_help_lists_the_pages_keys_and_names_shift_tab_previous() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "d")
        keys = {k.action: k for k in page_keys(app.screen)}
        text = _plain(help_view(app.screen))
        assert "previous section" in text and "shift+tab" in text
        assert "next_section(-1)" in keys
        await settle(pilot, "p")  # one section: no tab
        assert "shift+tab" not in _plain(help_view(app.screen))


def _plain(renderable: object) -> str:
    from rich.console import Console

    console = Console(width=160, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


async def test_one_name_per_view() -> None:
    """The first view is the Overview everywhere; the Fleet (every context) is `:ctx` or `:fleet`."""
    from kubectl_gpu.tui.commands import ALIASES, parse

    assert "fleet" not in ALIASES
    assert parse("fleet").kind == "ctx" and parse("fleet").arg is None
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        footer = {k.description for k in app.screen.query_one(KeyBar).footer_keys}
        assert "Overview" in footer and "Fleet" not in footer
        await settle(pilot, "v")
        assert "Overview" in str(app.view.query_one(".view-title").render())
