"""Workers started with `exit_on_error=False` keep the app running when they fail, and Textual then drops
the error: each one says it (issue 36). One handler (`tui.background.ShowsWorkerFailures`) says every such
worker's failure, in a notice and on the page the worker belongs to (issue 39): a failure is injected into
each kind of worker (refresh, page, debug, usage, fleet, contexts) and its message is seen on screen. A
debug job that meets a bug still ends (its pods deleted, `done` set) and says so."""

from __future__ import annotations

import contextlib
import html
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerFailed

from kubectl_gpu.kube.contexts import KubeContexts
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.background import failure_line
from kubectl_gpu.tui.debug.jobs import ShellJob, SmiJob
from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from kubectl_gpu.tui.fleet.screen import FleetScreen
from kubectl_gpu.tui.screens.detail import DetailScreen
from tests.tui.conftest import BROKEN_NODE, DEMO_NOW, Live, demo_app, settle

SIZE = (120, 40)


def _broken(*args: Any, **kw: Any) -> Any:
    raise RuntimeError("a bug")


def test_failure_line() -> None:
    from kubectl_gpu.core.errors import ClusterError

    assert failure_line(RuntimeError("a\n  bug")) == "RuntimeError: a bug"
    assert failure_line(KeyError()) == "KeyError"
    assert (
        failure_line(RuntimeError("\x1b]52;c;eA==\x07 \u202e"))
        == "RuntimeError: \\x1b]52;c;eA==\\x07 \\u202e"
    )
    assert failure_line(ClusterError("unreachable")).startswith("unreachable")


@pytest.mark.parametrize("kind", ["smi", "shell"])
def test_a_debug_job_that_meets_a_bug_ends_and_says_so(
    live: Live, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    config = live.config()
    job: SmiJob | ShellJob
    if kind == "smi":
        job = SmiJob(config, [BROKEN_NODE], on_phase=lambda *a: None, on_done=lambda r: None)
    else:
        job = ShellJob(config, BROKEN_NODE, hand_over=lambda greeting, argv: 0)
    monkeypatch.setattr(job, "_connect", _broken)
    monkeypatch.setattr("kubectl_gpu.kube.debug.shell.kubectl_binary", lambda: "kubectl")
    outcome = job.run()
    assert outcome.error == "internal error (please report it): RuntimeError: a bug"
    assert job.done.is_set()


async def test_reading_the_contexts_says_what_failed(live: Live) -> None:
    app = GpuApp(live.config(), clock=lambda: DEMO_NOW, contexts=_broken)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _said(app, "reading the kubeconfig's contexts")
        assert app.snapshot is not None  # the app runs on


async def test_the_fleet_says_what_failed(live: Live) -> None:
    calls: list[int] = []

    def contexts(kubeconfig: str | None) -> KubeContexts:
        calls.append(1)
        if len(calls) > 1:  # the start-up read works; the fleet's fails
            raise RuntimeError("a bug")
        return KubeContexts()

    app = GpuApp(live.config(), clock=lambda: DEMO_NOW, contexts=contexts)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", *"ctx", "enter")
        assert not isinstance(app.screen, FleetScreen)
        assert _said(app, "fleet")


def _screen(app: GpuApp) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def _settle(pilot: Pilot[Any], *keys: str) -> None:
    """`settle`, past the failed worker: waiting on it re-raises its error (Textual's `WorkerFailed`)."""
    for key in keys:
        await pilot.press(key)
    with contextlib.suppress(WorkerFailed):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await settle(pilot)


def _said(app: GpuApp, title: str) -> bool:
    return any(s == "error" and t == title and "RuntimeError: a bug" in m for s, t, m in app.notices)


async def test_a_refresh_that_meets_a_bug_says_so_in_the_header() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app._read = _broken  # type: ignore[method-assign]  # (its own errors are LoadFailed: this escapes)
        app.refresh_data()
        await _settle(pilot)
        assert app.error == "RuntimeError: a bug" and not app.loading
        assert _said(app, "refresh failed (internal error; please report it)")
        assert "RuntimeError: a bug" in _screen(app)
        assert app.snapshot is not None  # the last good data stays


async def test_a_page_that_meets_a_bug_says_so_on_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_gpu.tui.objects.yaml_view", _broken)
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await _settle(pilot, "y")
        page = app.screen
        assert isinstance(page, DetailScreen) and not page.building
        assert "could not show the YAML: RuntimeError: a bug" in _screen(app)
        assert _said(app, "building the page")


async def test_a_debug_worker_that_meets_a_bug_says_so_on_the_smi_page(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SmiJob, "run", _broken)  # (a job's own errors are its outcome's: this escapes)
    app = GpuApp(live.config(), clock=lambda: DEMO_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app._start_smi([BROKEN_NODE])
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, SmiScreen) and screen.outcome is not None
        assert screen.outcome.error == "internal error (please report it): RuntimeError: a bug"
        assert "RuntimeError: a bug" in _screen(app)
        assert _said(app, "debug pod")


async def test_the_usage_view_that_meets_a_bug_says_so_in_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_gpu.tui.views.usage._model", _broken)
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot, "u")
        assert "usage could not be computed: RuntimeError: a bug" in _screen(app)
        assert _said(app, "usage")


def _workers_that_keep_running() -> list[tuple[str, str, str]]:
    """(module, class, method) of every worker started with `exit_on_error=False` in kubectl_gpu/tui."""
    import ast
    from pathlib import Path

    import kubectl_gpu.tui

    tui = Path(kubectl_gpu.tui.__file__).parent
    found = []
    for path in sorted(tui.rglob("*.py")):
        module = ".".join(path.relative_to(tui.parent.parent).with_suffix("").parts)
        for cls in ast.walk(ast.parse(path.read_text())):
            if not isinstance(cls, ast.ClassDef):
                continue
            for fn in cls.body:
                if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for deco in fn.decorator_list:
                    keywords = deco.keywords if isinstance(deco, ast.Call) else []
                    if any(k.arg == "exit_on_error" for k in keywords):
                        found.append((module, cls.name, fn.name))
    return found


def test_every_worker_that_keeps_the_app_running_has_the_one_handler() -> None:
    import importlib

    from kubectl_gpu.tui.background import ShowsWorkerFailures

    workers = _workers_that_keep_running()
    assert {group for _, group, _ in workers} >= {
        "GpuApp",
        "DetailScreen",
        "UsageView",
        "DebugKeys",
        "FleetKeys",
    }
    for module, name, method in workers:
        cls = getattr(importlib.import_module(module), name)
        # the node that starts it: the class itself, or the app it is mixed into
        node = GpuApp if cls in GpuApp.__mro__ else cls
        assert issubclass(node, ShowsWorkerFailures), f"{module}.{name}.{method}"
