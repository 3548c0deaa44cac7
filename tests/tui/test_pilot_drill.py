"""Drill-down (issue 19, item 1): from a NodePool to its nodes, a node to its pods, a pod to its explain page,
events, YAML, last log lines and node, and back (`esc`, `-`); keys counted from the first screen."""

from __future__ import annotations

import html
from typing import Any

from rich.console import Console

from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.kube.snapshot import load_snapshot
from kubectl_gpu.render.draw import rich_prose, rich_table
from kubectl_gpu.render.model import Table
from kubectl_gpu.render.node_pods_view import node_pods_view
from kubectl_gpu.render.pending_view import explain_view, pending_table
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from kubectl_gpu.tui.screens.pod import PodScreen
from tests.tui.conftest import BROKEN_NODE, CHAT_API, DEMO, DEMO_NOW, Live, demo_app, settle

SIZE = (120, 40)
#: on the broken node, the pod holding most GPUs and the one Pending pod bound there (its GPU was lost)
HOLDER = "serving/vllm-qwen32b-5f7c9d8b6-tn4vq"
BOUND_PENDING = "serving/vllm-l40s-1"


def _text(renderable: Any) -> str:
    console = Console(width=200, color_system=None, markup=False, highlight=False)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


def _cells(row: Any) -> str:
    return " ".join(cell.text for cell in row.cells)


def _screen(app: Any) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def test_a_nodes_gpu_pods_are_two_keys_from_the_first_screen() -> None:
    """`enter` on the first pool lists its nodes, `enter` on the first node lists its pods, holders first."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        keys = ("enter", "enter")
        await settle(pilot, *keys)
        screen = app.screen
        assert isinstance(screen, NodePodsScreen) and screen.node == BROKEN_NODE and len(keys) <= 3
        rows = [r.key for r in screen.view.grid.view]
        assert rows[0] == HOLDER and BOUND_PENDING in rows
        state = load_snapshot((str(DEMO),))
        expected = node_pods_view(state, BROKEN_NODE, DEMO_NOW).table("pods")
        assert expected is not None and rows == [r.key for r in expected.rows]  # the render view's rows
        shown = _screen(app)
        assert "nvidia.com/gpu 2" in shown and "ReplicaSet/vllm-qwen32b-5f7c9d8b6" in shown
        assert "3 allocatable, 4 requested, 0 free, 0 idle" in shown  # one GPU withdrawn, still requested


async def test_from_the_nodes_view_enter_opens_the_nodes_pods() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "j", "enter")
        assert isinstance(app.screen, NodePodsScreen) and app.screen.node == "i-06cc6be1805fdf179"
        shown = _screen(app)  # the cordoned node's GPU is idle (billed) and unavailable, never free
        assert "0 requested, 0 free, 1 idle (1 of them unavailable)" in shown


async def test_a_pod_page_has_explain_events_yaml_logs_and_its_node() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter")
        screen = app.screen
        assert isinstance(screen, NodePodsScreen)
        screen.view.grid.move_to(BOUND_PENDING)
        await settle(pilot, "enter")
        pod = app.screen
        assert isinstance(pod, PodScreen) and pod.diag is not None and pod.diag.key == BOUND_PENDING
        body = _text(pod.body)
        for part in explain_view(pod.diag).parts:  # explain's own text, from the same view model
            drawn = _text(rich_table(part) if isinstance(part, Table) else rich_prose(part))
            for line in drawn.splitlines()[:3]:
                assert line.startswith("Fix:") or line.strip() in body  # the page says "Fix (c copies it):"
        await settle(pilot, "e")
        assert isinstance(app.screen, DetailScreen) and app.screen.page_title.startswith("events pod/serving")
        await settle(pilot, "escape", "y")
        assert app.screen.page_title == f"YAML pod/{BOUND_PENDING}"  # type: ignore[attr-defined]
        await settle(pilot, "escape", "l")
        assert "logs are not in a snapshot" in _text(app.screen.body)  # type: ignore[attr-defined]
        await settle(pilot, "escape", "enter")  # one level down: its node
        assert isinstance(app.screen, NodePodsScreen) and app.screen.node == BROKEN_NODE
        # back: `-` a page at a time, then the views' history; `esc` too
        await settle(pilot, "minus")
        assert isinstance(app.screen, PodScreen)
        await settle(pilot, "backspace", "escape")
        assert len(app.screen_stack) == 1 and app.current == "nodes"
        await settle(pilot, "minus")
        assert app.current == "overview"


async def test_a_pending_pods_fix_is_still_three_keys_away() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        keys = ("p", "j", "enter")
        await settle(pilot, *keys)
        assert isinstance(app.screen, ExplainScreen) and app.screen.diag.key == CHAT_API
        assert app.screen.diag.fix and len(keys) <= 3


async def test_pending_pods_of_one_owner_are_one_row_that_opens() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", "G")
        view = app.view
        group = "group:StatefulSet serving/vllm-l40s"
        assert view.grid.cursor_row is not None and view.grid.cursor_row.key == group
        assert "StatefulSet serving/vllm-l40s (2 pods)" in _cells(view.grid.cursor_row)
        title = str(view.query_one(".view-title").render())
        assert (
            "Pending  8  rows, 9 pods" in title
        )  # the header's Pending 9 counts pods: the title says so too
        detail = _text(view.grid.table.describe(view.grid.cursor_row))
        assert "2 Pending: 1 SCHEDULED_NOT_STARTED, 1 PROVISIONING" in detail  # its verdicts, counted
        await settle(pilot, "enter")
        keys = [r.key for r in view.grid.view]
        assert keys[-3:] == [group, "serving/vllm-l40s-1", "serving/vllm-l40s-2"]
        await settle(pilot, "j", "enter")
        assert isinstance(app.screen, ExplainScreen) and app.screen.diag.key == "serving/vllm-l40s-1"
        await settle(pilot, "escape", "k", "space")
        assert [r.key for r in view.grid.view][-1] == group and not view.grid.marks  # closed, nothing marked


async def test_logs_are_read_live_bounded(live: Live) -> None:
    lines = "".join(f"line {n}\n" for n in range(1000))
    live.api.pod_logs[("serving", "vllm-qwen32b-5f7c9d8b6-tn4vq")] = lines
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter", "enter", "l")
        page = app.screen
        assert isinstance(page, DetailScreen) and page.page_title.startswith("logs pod/serving/vllm-qwen32b")
        text = _text(page.body)
        assert "line 999" in text and "line 799" not in text and "line 800" in text
        asked = [r for r in live.api.requests if r.path.endswith("/log")]
        assert asked and asked[-1].query["tailLines"] == "200" and asked[-1].query["limitBytes"] == "262144"
        assert asked[-1].query["container"]  # the container that asks for the GPU


async def test_logs_forbidden_say_so(live: Live) -> None:
    live.api.fault(path=r"/log$", status=403)
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter", "enter", "l")
        assert "could not look: pods/log forbidden" in _text(app.screen.body)  # type: ignore[attr-defined]


async def test_with_pods_forbidden_the_bars_are_unknown_too(live: Live) -> None:
    """The header and Overview say `?` (issue 20): the nodes' bars and a node's page do not sum a guess."""
    live.api.fault(path=r"^/api/v1/pods$", status=403)
    app = live.app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot, "n")
        grid = app.view.grid.table  # as drawn: the view's own columns (the bars) too
        drawn = (grid.shown(grid.index_of(row)) for row in app.view.grid.view)
        shown = " ".join(getattr(cell, "plain", cell) for cells in drawn for cell in cells)
        assert shown.count("????????") == 4 and "█" not in shown
        await settle(pilot, "enter")
        assert "requested, free and idle unknown" in _screen(app)


async def test_a_pending_pods_detail_says_since_when() -> None:
    """The Pending detail pane has the pod's AGE (the view model's, as the AGE column and `kubectl get pods`
    show it) and the time it was created, for a pod and for a pod of an opened group."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", "j")
        snapshot = app.snapshot
        assert snapshot is not None
        table = pending_table(snapshot.pending, wide=True)
        view = app.view
        for key in (CHAT_API, "serving/vllm-l40s-2"):
            if key not in [r.key for r in view.grid.view]:
                await settle(pilot, "G", "enter")  # the group it is in, opened
            view.grid.move_to(key)
            await settle(pilot)
            row = next(r for r in table.rows if r.key == key)
            diag = next(d for d in snapshot.pending.pods if d.key == key)
            age = table.cell(row, "age").text
            assert diag.created is not None and age != "-"
            detail = _text(view.grid.table.describe(view.grid.cursor_row))
            assert f"Age: {age} (created {timestamp(diag.created)})" in detail, detail
