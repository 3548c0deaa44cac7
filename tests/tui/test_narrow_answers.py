"""At 80x24 (a tmux pane) every view keeps its answer on screen (issue 39, point 5): the columns a narrow
terminal keeps are the view model's priorities (`render.model.Priority`), the rest are left out whole; the
Drivers detail pane says the driver and the CUDA ceiling; the smi page keeps each process's pod. Views are
opened by their id (not their key) and sections by `tab`, on the demo."""

from __future__ import annotations

import html
from typing import Any

import pytest

from kubectl_gpu.tui.app import GpuApp
from tests.tui.conftest import demo_app, settle

NARROW = (80, 24)

#: view, section (tabs from the first), the column keys that must be on screen, a value that must show
ANSWERS = {
    "overview": (
        "overview",
        0,
        ("nodepool", "accelerators", "pending", "worst"),
        "ACCELERATED_HARDWARE_NOT_READY",
    ),
    "nodes": ("nodes", 0, ("name", "alloc", "health"), "i-04b975f2935588ecc"),
    "pending": ("pending", 0, ("pod", "verdict"), "MISSING_TOLERATION"),
    "nodepools": ("nodepools", 0, ("name", "limits"), "gpu-training"),
    "drivers-nodes": ("drivers", 0, ("name", "driver", "cuda_max"), "570.172.08"),
    "drivers-workloads": ("drivers", 1, ("workload", "cuda", "worst"), "13.0.2"),
    "drivers-amis": ("drivers", 2, ("ami", "drivers"), "ami-01d52490575ffc53d"),
    "nvme": ("nvme", 0, ("name", "nvme", "state"), "NOT_USED"),
    "lifecycle-nodes": ("lifecycle", 0, ("node", "life", "expires", "next"), "drift now"),
    "lifecycle-pods": ("lifecycle", 1, ("pod", "next", "risk"), "consolidation now"),
    "cost-pools": ("cost", 0, ("nodepool", "$/h", "idle_$/h"), "69.25*"),
    "cost-namespaces": ("cost", 1, ("namespace", "$/h", "idle-share_$/h"), "55.04*"),
    "cost-idle": ("cost", 2, ("idle_node", "idle-for", "$/h", "so-far"), "9.93*"),
    "findings": ("findings", 0, ("code", "object"), "pod/default/chat-api-7d9f8c6b5d-x"),
    "usage": ("usage", 0, ("gpu", "util", "idle", "held"), "i-0fb95c97fae96da58/0"),
}


def _screen(app: GpuApp) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def _open(pilot: Any, view: str, section: int) -> None:
    await settle(pilot)
    await pilot.app.action_view(view)
    await settle(pilot, *(["tab"] * section))


@pytest.mark.parametrize("case", sorted(ANSWERS))
async def test_the_answer_is_on_screen_at_80_columns(case: str) -> None:
    view, section, keys, value = ANSWERS[case]
    app = demo_app()
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, view, section)
        shown = app.view.grid.shown_keys
        assert set(keys) <= set(shown), f"{case}: {shown} leaves out {set(keys) - set(shown)}"
        assert value in _screen(app)


async def test_a_code_is_never_cut_at_80_columns() -> None:
    """Findings: every code on screen is whole (a CODE column is shown whole or left out)."""
    app = demo_app()
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, "findings", 0)
        grid = app.view.grid
        assert "code" in grid.shown_keys
        for index, row in enumerate(grid.view[:10]):
            code = row.cells[1].text  # the model's cell: the grid draws the model's rows
            line = grid.render_line(index + 1).text
            assert code and f"  {code}  " in line, line


async def test_the_drivers_detail_pane_says_driver_and_cuda_ceiling() -> None:
    """docs/tui.md: the detail pane shows the driver and the CUDA ceiling, also when the columns are left out."""
    app = demo_app()
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, "drivers", 0)
        await settle(pilot, "j", "j")  # i-06e3be66fc8ce4055: the old driver
        screen = _screen(app)
        assert "Driver: " in screen and "570.172.08 (probe)" in screen
        assert "CUDA ceiling: " in screen and "12.8; 12.x through minor-version compatibility" in screen


async def test_the_smi_page_keeps_the_pod_at_80_columns() -> None:
    app = demo_app()
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, "nodes", 0)
        await settle(pilot, "G", "s")  # the p5 node: its stored probe lists eight processes
        screen = _screen(app)
        assert "POD" in screen and "ml/pretrain-8x-h100-0" in screen


async def test_the_detail_pane_has_the_values_a_narrow_terminal_left_out() -> None:
    """docs/tui.md: a column a narrow terminal leaves out is in the detail pane (Cost's POLICY and AFTER at
    80 columns, under the view's own detail); at 200 columns nothing is left out, so nothing is added."""
    app = demo_app()
    async with app.run_test(size=NARROW) as pilot:
        await _open(pilot, "cost", 0)
        grid = app.view.grid
        left_out = {c.key for c in grid.table.columns} - set(grid.shown_keys)
        assert "policy" in left_out
        await settle(pilot, *(["J"] * 12))  # scroll the pane to its end
        screen = _screen(app)
        assert "Not shown at this width:" in screen and "POLICY: " in screen
    app = demo_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await _open(pilot, "cost", 0)
        assert set(app.view.grid.shown_keys) == {c.key for c in app.view.grid.table.columns}
        await settle(pilot, *(["J"] * 12))
        assert "Not shown at this width:" not in _screen(app)
