"""The first screen mounts only the Overview and builds only the view shown (issue 18: the first screen at
most 1.2x `diagnose`); every other view is built right after, and mounted on its first show with the data
and the filter it was given before."""

from __future__ import annotations

import threading

import pytest

import kubectl_gpu.tui.app as app_module
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views import LOADING, ViewModel, build_rest
from kubectl_gpu.tui.views.base import TableView
from tests.tui.conftest import demo_app, settle

SIZE = (200, 50)


def _loading(view: TableView) -> bool:
    assert view.model is not None
    return view.model.summary is not None and view.model.summary.plain == LOADING


def _view(app: GpuApp, view_id: str) -> TableView:
    return next(v for v in app.views() if v.view_id == view_id)


async def test_only_the_overview_is_mounted_until_a_view_is_shown() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [v.view_id for v in app.query(TableView)] == ["overview"]
        nodes = _view(app, "nodes")
        assert nodes.model is not None and not nodes.composed  # built in the refresh, kept for its first show
        first = nodes.model.sections[0].table.rows[0]
        nodes.set_filter(str(first.key))  # as `:ctx` back to a context restores a filter
        await settle(pilot, "n")
        assert app.current == "nodes" and nodes.composed
        assert [v.view_id for v in app.query(TableView)] == ["overview", "nodes"]
        grid = nodes.grid
        assert grid.table is nodes.model.sections[0].table and grid.filter_text == str(first.key)
        assert 0 < len(grid.view) < len(grid.table.rows) and first in grid.view
        await settle(pilot, "v")
        await settle(pilot, "n")  # shown again: the same widget, not a second one
        assert [v.view_id for v in app.query(TableView)] == ["overview", "nodes"]


async def test_a_view_shown_before_the_first_data_arrives_fills_when_it_does() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")  # at once: the refresh may still run
        await settle(pilot)
        pending = _view(app, "pending")
        assert app.current == "pending" and pending.composed and pending.model is not None
        assert pending.grid.table is pending.model.sections[0].table


async def test_the_first_screen_builds_the_view_shown_and_says_loading_on_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rest of the first refresh's views are built after the first screen: until then a view shown
    says "loading..." (here held back until the test has looked)."""
    release, started = threading.Event(), threading.Event()

    def held_back(snapshot: Refresh, shown: str) -> dict[str, ViewModel]:
        started.set()
        release.wait()
        return build_rest(snapshot, shown)

    monkeypatch.setattr(app_module, "build_rest", held_back)
    app = demo_app()
    try:
        await _first_screen_then_the_rest(app, release, started)
    finally:
        release.set()  # never leave the worker's thread waiting


async def _first_screen_then_the_rest(
    app: GpuApp, release: threading.Event, started: threading.Event
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        while not started.is_set() or app.snapshot is None:  # the first screen is up, the rest held
            await pilot.pause()
        overview, pending = _view(app, "overview"), _view(app, "pending")
        assert not _loading(overview) and overview.grid.table.rows
        await pilot.press("p")
        assert app.current == "pending" and _loading(pending) and not pending.grid.table.rows
        generation = app.generation
        await pilot.press("r")  # no second read beside the first one's worker, still building
        assert app.generation == generation and app.rest_of == generation
        release.set()
        await settle(pilot)
        assert pending.grid.table.rows  # the demo's Pending pods
        assert not any(_loading(v) for v in app.views())
        assert app.rest_of is None
        await settle(pilot, "r")  # then r reads again
        assert app.generation == generation + 1
