"""An open drill-down page follows the app's refreshes (issue 19 leftovers): the node page and the pod page
show the same object with the new figures after a refresh, and say so when it is gone; never the old
numbers silently. The bundle is the demo, rewritten by the test between refreshes (the fixture itself is
not touched)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import Static

from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.keys import page_keys
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from kubectl_gpu.tui.screens.pod import PodScreen
from tests.tui.conftest import BROKEN_NODE, CHAT_API, DEMO, DEMO_NOW, settle
from tests.tui.test_pilot_drill import HOLDER, _text

SIZE = (120, 40)
Objects = list[dict[str, Any]]


class Bundle:
    """A copy of the demo bundle whose objects a test changes between refreshes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = json.loads(DEMO.read_text())
        self._write()

    def change(self, edit: Callable[[Objects], Objects]) -> None:
        self.data["objects"] = edit(self.data["objects"])
        self._write()

    def _write(self) -> None:
        self.path.write_text(json.dumps(self.data))


def _is(obj: dict[str, Any], kind: str, key: str) -> bool:
    meta = obj["metadata"]
    name = f"{meta['namespace']}/{meta['name']}" if "namespace" in meta else meta["name"]
    return bool(obj["kind"] == kind and name == key)


def _restarts(count: int) -> Callable[[Objects], Objects]:
    def edit(objects: Objects) -> Objects:
        for obj in objects:
            if _is(obj, "Pod", HOLDER):
                obj["status"]["containerStatuses"][0]["restartCount"] = count
        return objects

    return edit


def _without(kind: str, key: str) -> Callable[[Objects], Objects]:
    return lambda objects: [o for o in objects if not _is(o, kind, key)]


def _app(bundle: Bundle) -> GpuApp:
    return GpuApp(
        TuiConfig(SourceOptions(snapshot=(str(bundle.path),)), refresh=None), clock=lambda: DEMO_NOW
    )


def _summary(page: NodePodsScreen) -> str:
    return _text(page.query_one(".view-summary", Static).render())


def _pods(page: NodePodsScreen) -> list[str]:
    return [row.key for row in page.view.grid.view]


async def test_the_node_and_pod_pages_follow_a_refresh(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path / "bundle.json")
    app = _app(bundle)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter")
        node_page = app.screen
        assert isinstance(node_page, NodePodsScreen) and node_page.node == BROKEN_NODE
        assert "4 requested" in _summary(node_page) and _pods(node_page)[0] == HOLDER
        reranker = _pods(node_page)[1]
        await settle(pilot, "enter")
        pod_page = app.screen
        assert isinstance(pod_page, PodScreen) and "vllm running, 0 restarts" in _text(pod_page.body)

        bundle.change(_restarts(7))
        await settle(pilot, "r")
        assert app.screen is pod_page and "vllm running, 7 restarts" in _text(pod_page.body)
        assert {"y", "e", "l", "enter"} <= {k.press for k in page_keys(pod_page)}

        bundle.change(_without("Pod", HOLDER))
        await settle(pilot, "r")
        body = _text(pod_page.body)
        assert "gone: not in the latest refresh" in body and "restarts" not in body
        offered = {k.press for k in page_keys(pod_page)}
        assert {"e", "l"} <= offered and not {"y", "enter"} & offered  # its events may remain; l is still logs
        assert "Life" not in {k.description for k in page_keys(pod_page) if "l" in k.keys}
        await settle(pilot, "escape")
        assert app.screen is node_page
        assert HOLDER not in _pods(node_page)  # its 2 GPUs: no longer requested (2 of the 4; not "2.0")
        assert "2 requested, 1 free, 2 idle (1 of them unavailable)" in _summary(node_page)
        assert node_page.view.grid.cursor_row is not None
        node_page.view.grid.move_to(reranker)

        bundle.change(_without("Node", BROKEN_NODE))
        await settle(pilot, "r")
        assert "gone: not in the latest refresh" in _summary(node_page)
        assert "requested" not in _summary(node_page)


async def test_the_explain_page_says_when_the_pod_is_no_longer_pending(tmp_path: Path) -> None:
    bundle = Bundle(tmp_path / "bundle.json")
    app = _app(bundle)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", "j", "enter")
        page = app.screen
        assert isinstance(page, ExplainScreen) and page.diag.key == CHAT_API and page.copy_text
        bundle.change(_without("Pod", CHAT_API))
        await settle(pilot, "r")
        assert "no longer Pending" in _text(page.body) and page.copy_text is None
