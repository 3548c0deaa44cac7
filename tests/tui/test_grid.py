"""The table widget alone: the cursor follows its row's key, at the same height on screen, across new rows
(a refresh), a sort and a filter; marks survive while their rows do."""

from __future__ import annotations

from textual.app import App, ComposeResult

from kubectl_gpu.render.model import Cell, Column, Kind, Row, Table
from kubectl_gpu.tui.widgets.grid import GridTable
from kubectl_gpu.tui.widgets.grid_model import Grid


def _table(names: list[str]) -> Grid[None]:
    """The grid draws the view model's table itself (no copy of its rows)."""
    table = Table(
        "nodes",
        (Column("name", "NAME"), Column("n", "N", Kind.COUNT)),
        tuple(Row(n, (Cell(n), Cell(str(i), i)), None, n, None) for i, n in enumerate(names)),
    )
    return Grid(table)


class _Grid(App[None]):
    def compose(self) -> ComposeResult:
        yield GridTable(_table([f"node-{i:03d}" for i in range(200)]))


async def test_cursor_and_scroll_follow_the_row() -> None:
    app = _Grid()
    async with app.run_test(size=(60, 20)) as pilot:
        grid = app.query_one(GridTable)
        await pilot.press("end")
        for _ in range(5):
            await pilot.press("k")
        await pilot.pause()
        key, offset = grid.cursor_row.key, grid.cursor - round(grid.scroll_y)  # type: ignore[union-attr]
        assert key == "node-194" and grid.scroll_y > 0
        grid.set_table(_table(["node-new-a", "node-new-b", *[f"node-{i:03d}" for i in range(200)]]))
        await pilot.pause()
        assert grid.cursor_row is not None and grid.cursor_row.key == key
        assert grid.cursor - round(grid.scroll_y) == offset  # the same height on screen
        await pilot.press("space")  # marks the row and moves down
        assert key in grid.marks and grid.cursor_row is not None and grid.cursor_row.key == "node-195"
        grid.set_filter("node-19")
        await pilot.pause()
        assert grid.cursor_row is not None and grid.cursor_row.key == "node-195" and len(grid.view) == 10
        grid.set_table(_table([f"node-{i:03d}" for i in range(100)]))  # the row is gone
        await pilot.pause()
        assert key not in grid.marks and grid.view == [] and grid.cursor_row is None


async def test_header_click_sorts() -> None:
    app = _Grid()
    async with app.run_test(size=(60, 20)) as pilot:
        grid = app.query_one(GridTable)
        await pilot.click(GridTable, offset=(3, 0))
        assert grid.sort_column == 0 and not grid.sort_reverse
        await pilot.click(GridTable, offset=(3, 0))
        assert grid.sort_reverse and grid.view[0].key == "node-199"
