"""Pages at the API's size limits (issue 36): a node with a ~250 KiB annotation (the API allows 256 KiB in
all), a pod with long log lines. The YAML, events and log pages open at once and are built in a worker
thread; their keys work while it runs (`esc` goes back, `ctrl+c` quits); what they show is bounded, with a
visible mark where it was cut, and `c` still copies the whole text. A failing build says so on the page.

Nothing here is timed: each test waits on the app's workers and on what the page holds."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.render.documents import dump_yaml
from kubectl_gpu.tui import objects
from kubectl_gpu.tui.app import GpuApp, MainScreen
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.keys import page_keys
from kubectl_gpu.tui.page_text import LINE_CHARS, PAGE_CHARS, bounded, log_text, yaml_text
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.pod import PodScreen
from tests.tui.conftest import BROKEN_NODE, DEMO, DEMO_NOW, Live, settle

SIZE = (120, 40)
#: one value of 250,000 characters with no space, and a JSON annotation (spaces: YAML would fold it)
BIG = "x" * 250_000
JSON_VALUE = json.dumps({f"key{i}": "value " * 3 for i in range(6_000)})
#: the gate a test holds a page's build behind (released at the end in any case)
Gate = Callable[[], None]


def _text(renderable: Any) -> str:
    console = Console(width=200, color_system=None, markup=False, highlight=False)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


def _big_bundle(path: Path) -> Path:
    bundle = json.loads(DEMO.read_text())
    for obj in bundle["objects"]:
        if obj["kind"] == "Node" and obj["metadata"]["name"] == BROKEN_NODE:
            annotations = obj["metadata"].setdefault("annotations", {})
            annotations["example.com/big"] = BIG
            annotations["example.com/json"] = JSON_VALUE
    path.write_text(json.dumps(bundle))
    return path


def _app(bundle: Path) -> GpuApp:
    return GpuApp(TuiConfig(SourceOptions(snapshot=(str(bundle),)), refresh=None), clock=lambda: DEMO_NOW)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Hold every YAML page's build until the test sets the event (it is set at the end in any case)."""
    release = threading.Event()
    real = objects.yaml_view

    def held(state: Any, ref: Any) -> Any:
        release.wait(120)  # a bound for a broken test, never reached by a passing one
        return real(state, ref)

    monkeypatch.setattr(objects, "yaml_view", held)
    yield release
    release.set()


def test_a_long_line_is_cut_with_a_mark_and_the_page_is_bounded() -> None:
    shown = bounded(f"a: 1\nb: {BIG}\nc: 3", "the whole YAML")
    lines = shown.text.split("\n")
    assert lines[0] == "a: 1" and lines[2] == "c: 3"
    assert lines[1].startswith("b: xxx") and lines[1].endswith(
        f"… [{250_003 - LINE_CHARS:,} more characters not shown: c copies the whole YAML]"
    )
    (line, start, end), *_ = shown.marks
    assert (line, lines[1][start:end]) == (2, lines[1][LINE_CHARS:])
    many = bounded("\n".join(f"line {n} " + "y" * 90 for n in range(5_000)), "it")
    assert len(many.text) <= PAGE_CHARS + 100 and many.text.startswith("line 0 ")
    assert many.text.endswith(" more lines not shown: c copies it]")


def test_a_log_keeps_its_newest_lines() -> None:
    shown = bounded("\n".join(f"line {n} " + "y" * 900 for n in range(200)), "every line read", newest=True)
    lines = shown.text.split("\n")
    assert lines[0].startswith("… [") and "earlier lines not shown" in lines[0]
    assert lines[-1].startswith("line 199 ") and shown.marks[0][:2] == (1, 0)
    styled = log_text(f"old\n{BIG}\nnew")
    assert styled.plain.endswith("new") and "more characters not shown" in styled.plain
    assert any(span.start > 0 for span in styled.spans)  # the mark is coloured


def test_the_yaml_shown_is_bounded_the_copy_whole() -> None:
    raw = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "annotations": {"a": BIG}}}
    shown = yaml_text(raw)
    assert len(shown.plain) < PAGE_CHARS and "more characters not shown" in shown.plain
    assert BIG in dump_yaml(raw)


async def test_the_yaml_page_of_a_big_node_opens_keeps_its_keys_and_shows(tmp_path: Path, gate: Any) -> None:
    app = _app(_big_bundle(tmp_path / "big.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("y")  # the build is held: the page is there, saying so
        page = app.screen
        assert isinstance(page, DetailScreen) and page.building
        assert "building the YAML" in _text(page.body)
        await pilot.press("escape")  # handled while the YAML is still being built
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        gate.set()
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)  # what it was building is dropped, not shown
        await settle(pilot, "y")
        page = app.screen
        assert isinstance(page, DetailScreen) and not page.building
        shown = _text(page.body)
        assert "apiVersion" in shown and "example.com/big" in shown and "more characters not shown" in shown
        assert "c copies the whole YAML" in shown
        await settle(pilot, "c")
        assert app.clipboard.count("x" * 1000) >= 250 and "key5999" in app.clipboard  # the copy is whole
        await settle(pilot, "q")
        assert isinstance(app.screen, MainScreen)
        await settle(pilot, "y")
        await pilot.press("ctrl+c")  # on the big page: the app quits
    assert app.return_code == 0


async def test_ctrl_c_quits_while_the_page_is_built(tmp_path: Path, gate: Any) -> None:
    app = _app(_big_bundle(tmp_path / "big.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("y")
        assert isinstance(app.screen, DetailScreen) and app.screen.building
        await pilot.press("ctrl+c")
    assert app.return_code == 0


async def test_the_events_page_is_built_off_the_ui_thread(tmp_path: Path) -> None:
    app = _app(_big_bundle(tmp_path / "big.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "e")
        page = app.screen
        assert isinstance(page, DetailScreen) and page.shows == "events" and not page.building
        assert "event(s) for node/" in _text(page.body)


async def test_a_failing_build_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(state: Any, ref: Any) -> Any:
        raise RuntimeError("the YAML could not be made")

    monkeypatch.setattr(objects, "yaml_view", broken)
    app = _app(_big_bundle(tmp_path / "big.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "y")
        page = app.screen
        assert isinstance(page, DetailScreen) and not page.building
        assert "could not show the YAML: RuntimeError: the YAML could not be made" in _text(page.body)
        assert any(
            "could not show the YAML" in text for severity, _, text in app.notices if severity == "error"
        )
        assert "copy" not in {k.action for k in page_keys(page)}  # nothing to copy


async def test_a_long_log_opens_at_once_and_is_bounded(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 250 KiB log line among 200: the page is there while the log is read (`esc` leaves it), then shows
    the newest lines, the long one cut with its mark; `c` copies every line read."""
    pod = ("serving", "vllm-qwen32b-5f7c9d8b6-tn4vq")
    live.api.pod_logs[pod] = "".join(f"line {n}\n" for n in range(150)) + BIG + "\nlast line\n"
    release = threading.Event()
    import kubectl_gpu.tui.app as app_module

    real = app_module.pod_log_tail

    def held(*args: Any, **kw: Any) -> Any:
        release.wait(120)  # a bound for a broken test, never reached by a passing one
        return real(*args, **kw)

    monkeypatch.setattr(app_module, "pod_log_tail", held)
    app = live.app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, "n", "enter", "enter")
            assert isinstance(app.screen, PodScreen)
            await pilot.press("l")
            page = app.screen
            assert isinstance(page, DetailScreen) and page.building
            assert "reading the last 200 log lines" in _text(page.body)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, PodScreen)
            release.set()
            await settle(pilot, "l")
            page = app.screen
            assert isinstance(page, DetailScreen) and page.page_title.startswith("logs pod/serving/")
            shown = _text(page.body)
            assert "last line" in shown and "more characters not shown: c copies every line read" in shown
            await settle(pilot, "c")
            assert BIG in app.clipboard
    finally:
        release.set()
