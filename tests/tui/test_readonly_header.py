"""`--readonly` is on screen (issue 36): the header says READ-ONLY, on a snapshot and live, at 80 columns
too, from the command line's flag through `tui_config` to the app; not otherwise."""

from __future__ import annotations

from kubectl_gpu.cli.options import GlobalOptions
from kubectl_gpu.cli.tui import tui_config
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.widgets.header import ClusterHeader
from tests.tui.conftest import DEMO, DEMO_NOW, Live, demo_app, settle


def _header(app: GpuApp) -> str:
    return app.query_one(ClusterHeader).plain


async def test_the_flag_reaches_the_header_at_80_columns() -> None:
    config = tui_config(GlobalOptions(snapshot=(str(DEMO),)), refresh="0", readonly=True)
    app = GpuApp(config, clock=lambda: DEMO_NOW)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = _header(app).splitlines()[0]
        assert "READ-ONLY" in first and "ns all" in first and "SNAPSHOT" in first
        await settle(pilot, "n", "p")  # every view keeps it
        assert "READ-ONLY" in _header(app)


async def test_not_read_only_says_nothing() -> None:
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "READ-ONLY" not in _header(app)


async def test_live_read_only_says_it_next_to_live(live: Live) -> None:
    app = live.app(readonly=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = _header(app).splitlines()[0]
        assert "READ-ONLY" in first and "LIVE" in first
