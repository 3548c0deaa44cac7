"""A TUI refresh analyses with the cyclic collector off, as a one-shot command does: on 20,000 Pending pods
the collector's passes over the analyses' short-lived objects doubled their CPU (bench/README.md)."""

from __future__ import annotations

import gc
import time
from typing import Any

import pytest

from kubectl_gpu.core.analyses import diagnose
from kubectl_gpu.kube import heap
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.tui import data
from tests.tui.conftest import DEMO


def test_the_refresh_analyses_run_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = diagnose.run_suite

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(diagnose, "run_suite", recording)
    while heap.held_off():  # another test's abandoned refresh thread, still analysing: wait for it
        time.sleep(0.01)
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
