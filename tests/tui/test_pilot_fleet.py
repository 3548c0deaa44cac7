"""`:ctx` alone: the fleet overview, every context read at once (the demo on `test`, one node on `prod`,
nothing listening for `other`), then `enter` switches to the chosen context."""

from __future__ import annotations

from kubectl_gpu.tui.fleet.screen import FleetScreen
from kubectl_gpu.tui.widgets.grid import GridTable
from tests.tui.conftest import Live, settle

SIZE = (140, 30)


async def test_ctx_alone_shows_every_context_and_switches(live: Live) -> None:
    live.prod.fault(method="*", path=r"^/api/v1/", delay=0.3)  # slow, still within its timeout
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", *"ctx", "enter")
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        rows = {r.context: r for r in screen.overview.rows}
        assert list(rows) == ["other", "prod", "test"]  # every context, sorted
        assert rows["test"].error is None and rows["test"].nodes == 4 and rows["test"].code == 1
        assert rows["prod"].error is None and rows["prod"].nodes == 1
        assert rows["other"].error is not None and rows["other"].nodes is None and rows["other"].code == 3
        assert screen.overview.code == 1  # findings in test outrank the unreachable `other`
        table = screen.query_one(GridTable)  # the same grid as every other view
        assert len(table.table.rows) == 3 and screen.chosen == "test"  # the cursor starts on the current one
        await settle(pilot, "k", "enter")
        assert not isinstance(app.screen, FleetScreen)
        assert app.config.context == "prod" and app.snapshot is not None
        assert app.snapshot.state.context == "prod"


async def test_the_fleet_overview_goes_back_with_escape(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", *"ctx", "enter")
        assert isinstance(app.screen, FleetScreen)
        await settle(pilot, "escape")
        assert not isinstance(app.screen, FleetScreen) and app.config.context == "test"
