"""A TUI refresh analyses with the cyclic collector off, as a one-shot command does: on 20,000 Pending pods
the collector's passes over the analyses' short-lived objects doubled their CPU (bench/HISTORY.md)."""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest

from kubectl_gpu.core.analyses import diagnose
from kubectl_gpu.kube import heap
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.tui import app as app_module
from kubectl_gpu.tui import data
from tests.tui.conftest import DEMO


def _abandoned_refreshes_done() -> None:
    """Another test's abandoned refresh or fleet read (`tui.background.off_thread`), still loading or
    analysing, holds the collector off: wait until each has ended."""
    for thread in threading.enumerate():
        if thread.name in ("refresh", "fleet") and thread is not threading.current_thread():
            thread.join()
    assert not heap.held_off()


def test_the_refresh_analyses_run_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = diagnose.run_suite

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(diagnose, "run_suite", recording)
    _abandoned_refreshes_done()
    was = gc.isenabled()
    gc.enable()  # as a TUI process runs; an in-process one-shot command before may have left it off
    try:
        assert gc.isenabled()
        data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))
        assert seen == [False]
        assert gc.isenabled()  # and back on after
    finally:
        if not was:
            gc.disable()


async def test_the_first_screen_keeps_the_collector_off_to_its_last_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From the read to the last view built, with no gap: turned on between, the collector's first pass
    over the analyses' objects (0.4 s on 20,000 Pending pods) would come before the first screen."""
    from tests.tui.conftest import demo_app, settle

    seen: list[tuple[str, bool]] = []
    real_load = data.load

    def loading(*args: Any, **kwargs: Any) -> Any:
        refresh = real_load(*args, **kwargs)
        seen.append(("after the read", gc.isenabled()))
        return refresh

    monkeypatch.setattr(data, "load", loading)
    for name in ("build_first", "build_rest"):
        real = getattr(app_module, name)

        def recording(*args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            seen.append((_name, gc.isenabled()))
            return _real(*args, **kwargs)

        monkeypatch.setattr(app_module, name, recording)
    _abandoned_refreshes_done()
    was = gc.isenabled()
    gc.enable()
    try:
        app = demo_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.rest_of is None  # every view built
        assert seen == [("after the read", False), ("build_first", False), ("build_rest", False)]
        assert gc.isenabled()
    finally:
        if not was:
            gc.disable()


async def test_the_start_up_hold_ends_at_the_tui_s_first_read() -> None:
    """`kubectl gpu tui` keeps `__main__`'s hold on the collector through Textual's imports and the app's
    start; the first read ends it (`without_collection`), so the collector is on once the screen is up."""
    from tests.tui.conftest import demo_app, settle

    _abandoned_refreshes_done()
    was = gc.isenabled()
    gc.enable()
    try:
        heap.hold_off_for_startup()
        app = demo_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.rest_of is None  # every view built
            assert gc.isenabled()
        gc.unfreeze()
    finally:
        heap.end_startup()
        if not was:
            gc.disable()
