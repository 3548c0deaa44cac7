"""The Usage view (`u`, issue 24): per-GPU utilisation bars, held and idle $/h, $ per 1M tokens, built from
the same view model `kubectl gpu usage` prints; on the demo bundle its saved window, live a rolling window
of one /metrics read per refresh (through the suite's API server and its pod proxy), a 403 said plainly."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

import kubectl_gpu.kube.usage.rounds as rounds
from kubectl_gpu.core.usage.scrape import Scrape
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.usage_window import SAMPLING, UsageWindow, roll
from kubectl_gpu.tui.views.base import TableView
from kubectl_gpu.tui.views.usage import utilisation_bar
from kubectl_gpu.tui.widgets.grid_model import Grid
from tests.kube.pod_proxy import forbidden_body
from tests.tui.conftest import DEMO, DEMO_NOW, Live, demo_app, settle

SIZE = (200, 50)
RERANKER_GPU = "i-04b975f2935588ecc/2"
QWEN = "serving/deployment/vllm-qwen32b"


def _plain(cell: object) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _usage_view(app: GpuApp) -> TableView:
    """The Usage view, shown or not yet (then not mounted: the app mounts a view on its first show)."""
    return next(v for v in app.views() if v.view_id == "usage")


def _rows(app: GpuApp, section: int) -> dict[str, dict[str, str]]:
    """The section's rows as {first cell: {column label: text}}."""
    view = _usage_view(app)
    assert view.model is not None
    table: Grid[Any] = view.model.sections[section].table
    labels = [c.label for c in table.columns]
    shown = [table.shown(index) for index in range(len(table.rows))]
    return {_plain(cells[0]): dict(zip(labels, map(_plain, cells), strict=True)) for cells in shown}


def _summary(app: GpuApp) -> str:
    model = _usage_view(app).model
    return model.summary.plain if model is not None and model.summary is not None else ""


async def test_demo_usage_view_shows_the_idle_reranker_gpu_and_cost_per_million_tokens() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.snapshot is not None and app.snapshot.usage is not None
        assert not app.snapshot.usage.ready  # the first screen did not wait for the usage report
        await settle(pilot, "u")
        assert app.current == "usage" and app.snapshot.usage.ready
        gpus = _rows(app, 0)
        reranker = gpus[RERANKER_GPU]
        assert (reranker["IDLE"], reranker["HELD $/H"], reranker["MEMORY"]) == ("idle", "2.62*", "3.0/45.0Gi")
        assert reranker["UTIL"].endswith(" 0%") and reranker["PODS"] == "serving/reranker-7b9c5d4f86-sbkt5"
        assert gpus["i-06cc6be1805fdf179/0"]["IDLE"] == "idle"  # on the node no GPU pod runs on
        assert gpus["i-04b975f2935588ecc/1"]["UTIL"] == "████████░░  84%"
        await settle(
            pilot, "j", "j"
        )  # the reranker's GPU: its detail says the usage finding about its pod first
        row = app.view.grid.cursor_row
        assert row is not None and row.key.startswith(RERANKER_GPU)
        console = Console(width=200, file=io.StringIO(), record=True)
        console.print(app.view.grid.table.describe(row))
        detail = console.export_text()
        assert "USAGE_IDLE_GPUS" in detail.split("ACCELERATED_HARDWARE_NOT_READY")[0]
        workloads = _rows(app, 1)
        assert workloads["serving/deployment/reranker"]["IDLE $/H"] == "2.62*"
        await settle(pilot, "tab", "tab")
        inference = _rows(app, 2)
        assert inference[QWEN]["$/1M TOKENS"] == "3.55*" and inference[QWEN]["TOKENS/S"] == "410.0"
        assert "window 300s" in _summary(app) and "idle: $2.62/h held below 10%" in _summary(app)


def test_the_bar_says_unknown_never_zero() -> None:
    assert utilisation_bar(None, 10).plain == "··········    -"
    assert utilisation_bar(0.0, 10).plain == "░░░░░░░░░░   0%"
    assert utilisation_bar(100.0, 10).plain == "██████████ 100%"


def _scrape(at: datetime, pod: str = "dcgm-a") -> Scrape:
    return Scrape("dcgm", "monitoring", pod, at, error="timed out after 2s")  # a read kept as failed


def test_the_rolling_window_is_bounded_by_age_and_by_count() -> None:
    kept: tuple[tuple[Scrape, ...], ...] = ()
    for minute in range(12):
        kept = roll(kept, (_scrape(DEMO_NOW + timedelta(minutes=minute)),), max_age_s=300.0, max_rounds=30)
    assert [r[0].taken_at.minute for r in kept] == [6, 7, 8, 9, 10, 11]  # the last 5 minutes
    for second in range(50):
        kept = roll(kept, (_scrape(DEMO_NOW + timedelta(minutes=12, seconds=second)),), max_rounds=30)
    assert len(kept) == 30
    assert roll(kept, ()) == kept  # a round with nothing to read keeps the window as it was


def test_one_round_is_sampling_and_keeps_only_what_failed() -> None:
    ok = Scrape("dcgm", "monitoring", "dcgm-b", DEMO_NOW, text="DCGM_FI_DEV_GPU_UTIL 5\n")
    window = UsageWindow(None, None, ((ok, _scrape(DEMO_NOW)),), endpoints=2)
    assert window.sampling
    scrapes = window.scrape_set()
    assert scrapes.notes == (SAMPLING,) and [s.pod for s in scrapes.scrapes] == ["dcgm-a"]


def _serve_the_demo_window(live: Live) -> None:
    """Each exporter and vLLM pod of the demo answers what the demo bundle saved of it: its first read,
    then its second (the pod proxy repeats the last one)."""
    texts: dict[tuple[str, str, int], list[str]] = {}
    for scrape in json.loads(DEMO.read_text())["usage"]["scrapes"]:
        texts.setdefault((scrape["namespace"], scrape["pod"], scrape["port"]), []).append(scrape["text"])
    for (namespace, pod, port), answers in texts.items():
        live.api.pod_proxy.serve(namespace, pod, port, *answers)


@pytest.fixture
def round_clock(monkeypatch: pytest.MonkeyPatch) -> list[datetime]:
    """The instant each round's reads are taken at (the test moves it on by the demo's 5 minutes)."""
    instant = [DEMO_NOW]
    monkeypatch.setattr(rounds, "_utc_now", lambda: instant[0])
    return instant


def _proxy_reads(live: Live) -> int:
    return sum(1 for r in live.api.requests if "/proxy/metrics" in r.path)


async def test_live_refreshes_keep_a_rolling_window(live: Live, round_clock: list[datetime]) -> None:
    _serve_the_demo_window(live)
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "u")
        assert _proxy_reads(live) == 6  # one read per endpoint per refresh (4 exporters, 2 vLLM)
        assert SAMPLING in _summary(app)
        assert _rows(app, 0) == {}  # no figure from one read yet
        round_clock[0] += timedelta(minutes=5)
        await settle(pilot, "r")
        assert _proxy_reads(live) == 12 and SAMPLING not in _summary(app)
        assert app.snapshot is not None and app.snapshot.reused  # the cluster unchanged: only usage is new
        assert _rows(app, 0)[RERANKER_GPU]["IDLE"] == "idle"
        assert "window 300s" in _summary(app)
        await settle(pilot, "tab", "tab")
        assert _rows(app, 2)[QWEN]["$/1M TOKENS"] == "3.55*"  # the same figure as the saved window gives
        round_clock[0] += timedelta(minutes=5)
        await settle(pilot, "r")
        usage = app.snapshot.usage
        assert usage is not None and len(usage.window.rounds) == 2  # the first round aged out (> 5 minutes)
        assert "window 300s" in _summary(app)


async def test_live_403_on_pods_proxy_says_could_not_look(live: Live, round_clock: list[datetime]) -> None:
    _serve_the_demo_window(live)
    live.api.fault(
        path="/pods/dcgm-exporter-h7wtb:9400/proxy/",
        status=403,
        body=forbidden_body("monitoring", "dcgm-exporter-h7wtb"),
    )
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "u")
        summary = _summary(app)
        assert "could not look: dcgm monitoring/dcgm-exporter-h7wtb: forbidden: pods/proxy" in summary
        assert SAMPLING in summary  # the other endpoints: figures from the next refresh
        round_clock[0] += timedelta(minutes=5)
        await settle(pilot, "r")
        gpus: dict[str, dict[str, Any]] = _rows(app, 0)
        assert "could not look" in _summary(app)
        assert not any(name.startswith("i-04b975f2935588ecc/") for name in gpus)  # its exporter: unread
        assert gpus["i-06e3be66fc8ce4055/0"]["UTIL"].endswith("22%")


def test_the_saved_window_note_is_kube_usages() -> None:
    from kubectl_gpu.kube.usage import NO_SAVED_WINDOW as KUBE_NOTE
    from kubectl_gpu.tui.usage_window import NO_SAVED_WINDOW

    assert NO_SAVED_WINDOW == KUBE_NOTE


@pytest.mark.parametrize("size", [(80, 24), (100, 20)])
async def test_the_gpu_table_fits_beside_its_scrollbar(size: tuple[int, int]) -> None:
    """More GPUs than lines: the table is fitted to the width the vertical scrollbar leaves (fitted to the
    whole width, it overflowed by the scrollbar and scrolled sideways); the columns kept are the view's
    point (GPU, UTIL, IDLE, HELD), POWER goes first."""
    app = demo_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, "u")
        grid = app.view.grid
        assert len(grid.view) + 1 > grid.scrollable_content_region.height  # it has a vertical scrollbar
        assert grid.virtual_size.width <= grid.scrollable_content_region.width and grid.max_scroll_x == 0
        shown = [c.label for c, w in zip(grid.table.columns, grid._widths, strict=True) if w]
        assert {"GPU", "UTIL", "IDLE", "HELD $/H"} <= set(shown)
        if size[0] == 80:
            assert "POWER" not in shown
