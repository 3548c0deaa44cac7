"""The TUI on the demo bundle (offline), driven key by key with Pilot: every view, the keys, the explain
page three keystrokes from the first screen, the stored nvidia-smi probe."""

from __future__ import annotations

import pytest
import yaml

from kubectl_gpu.core.analyses import pending
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.snapshot import load_snapshot
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from kubectl_gpu.tui.keys import page_keys
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.views import VIEWS
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.header import ClusterHeader
from tests.tui.conftest import BROKEN_NODE, CHAT_API, DEMO, DEMO_NOW, demo_app, settle

SIZE = (80, 24)


async def test_first_screen_is_the_fleet() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current == "overview" and app.snapshot is not None
        keys = [r.key for r in app.view.grid.view]
        assert keys == ["gpu-inference", "gpu-training", "(no NodePool)", "ALL"]
        assert app.snapshot.mode == "Auto Mode" and len(app.snapshot.nodes.rows) == 4
        assert app.snapshot.parts.bar == (13, 0, 1) and len(app.snapshot.pending.pods) == 9
        # the header's free count adds up with the ALL row: the cordoned node's GPU is idle, not free
        assert "free 0 (1 idle)  " in app.query_one(ClusterHeader)._content().renderables[1].plain  # type: ignore[attr-defined]


async def test_missing_toleration_fix_is_three_keystrokes_away() -> None:
    """`p`, `j` (the pod is second: verdicts worst first), `enter`: explain, with the fix; `c` copies it."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", "j", "enter")
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        assert screen.diag.key == CHAT_API and str(screen.diag.verdict) == "MISSING_TOLERATION"
        assert screen.diag.fix is not None and 'key: "nvidia.com/gpu"' in screen.diag.fix
        await settle(pilot, "c")
        # the block explain prints: the fix, then what it was verified to do as a comment; it pastes as YAML
        assert app.clipboard.startswith(screen.diag.fix + "\n# verified (")
        assert yaml.safe_load(app.clipboard) == yaml.safe_load(screen.diag.fix)
        await settle(pilot, "escape")
        assert not isinstance(app.screen, DetailScreen) and app.current == "pending"


async def test_explain_is_the_explain_command() -> None:
    state = load_snapshot((str(DEMO),))
    pod = next(p for p in state.pods if f"{p.namespace}/{p.name}" == CHAT_API)
    expected = pending.explain(state, load_catalog(), DEMO_NOW, pod).pod
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p", "j", "enter")
        assert isinstance(app.screen, ExplainScreen)
        assert app.screen.diag == expected


@pytest.mark.parametrize("view", VIEWS, ids=[v.view_id for v in VIEWS])
async def test_every_view_is_one_key_away(view: type) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "p" if view.view_id == "overview" else "v", view.key)  # type: ignore[attr-defined]
        assert app.current == view.view_id  # type: ignore[attr-defined]
        assert app.view.grid.table.rows, f"{app.current}: no rows on the demo"


async def test_digits_open_the_views_in_footer_order() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        for digit, view in zip("123456789", VIEWS, strict=False):  # `0` is every namespace (k9s)
            await settle(pilot, digit)
            assert app.current == view.view_id


async def test_command_line_completes_and_opens_views() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", "n", "o", "d", "e", "p")
        line = app.query_one(CommandLine)
        assert line.value == "nodep"
        await settle(pilot, "tab")
        assert line.value == "nodepool"  # the first completion, then enter
        await settle(pilot, "enter")
        assert app.current == "nodepools"
        await settle(pilot, "colon", *"ns ml", "enter")
        assert app.config.namespace == "ml"
        assert {d.namespace for d in app.snapshot.pending.pods} == {"ml"}  # type: ignore[union-attr]
        await settle(pilot, "colon", *"ns all", "enter")
        assert app.config.namespace is None and len(app.snapshot.pending.pods) == 9  # type: ignore[union-attr]
        await settle(pilot, "colon", *"nonsense", "enter")
        assert any("unknown command" in text for _, _, text in app.notices)


async def test_ctx_needs_a_live_cluster() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", *"ctx prod", "enter")
        assert any(":ctx needs a live cluster" in text for _, _, text in app.notices)


async def test_filter_esc_and_back() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "slash", *"06e3", "enter")
        grid = app.view.grid
        assert [r.key for r in grid.view] == ["i-06e3be66fc8ce4055"] and grid.filter_text == "06e3"
        await settle(pilot, "slash", "exclamation_mark", "0", "6", "enter")
        assert grid.filter_text == "!06" and all("06" not in r.key for r in grid.view)
        await settle(pilot, "escape")  # clears the filter
        assert grid.filter_text == "" and len(grid.view) == 4
        await settle(pilot, "escape")  # back to the previous view
        assert app.current == "overview"


async def test_sort_mark_and_smi_on_the_stored_probes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "S")
        grid = app.view.grid
        assert grid.sort_column == 0
        await settle(pilot, "R")
        assert grid.sort_reverse and grid.view[0].key == "i-0fb95c97fae96da58"
        assert grid.cursor_row is not None and grid.cursor_row.key == BROKEN_NODE  # it follows the node
        await settle(pilot, "g", "space", "space")
        assert len(grid.marks) == 2
        await settle(pilot, "s")
        screen = app.screen
        assert isinstance(screen, SmiScreen) and not screen.live
        assert screen.outcome is not None
        assert sorted(r.node or "" for r in screen.outcome.results) == sorted(grid.marks)
        await settle(pilot, "escape")
        assert not isinstance(app.screen, SmiScreen)


async def test_smi_offline_is_smi_snapshot(cli: object) -> None:
    """The stored probe of the broken node: nvidia-smi fails with XID 79, as `kubectl gpu smi --snapshot`."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        assert app.view.grid.cursor_row is not None and app.view.grid.cursor_row.key == BROKEN_NODE
        await settle(pilot, "s")
        assert isinstance(app.screen, SmiScreen) and app.screen.outcome is not None
        (result,) = app.screen.outcome.results
        assert result.node == BROKEN_NODE and any(f.code == "NVIDIA_SMI_FAILED" for f in result.findings)


async def test_shell_needs_a_live_cluster() -> None:
    """Offline, `x` is not offered (a shell needs a live cluster): not in the footer, not run."""
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        assert "x" not in {k.press for k in page_keys(app.screen)}
        await settle(pilot, "x")
        assert not app.jobs.running and app.screen_stack == [app.screen]
        app.shell_on(BROKEN_NODE)  # asked anyway (a stale key): says why
        assert any("needs a live cluster" in text for _, _, text in app.notices)


async def test_yaml_events_and_help() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "y")
        assert isinstance(app.screen, DetailScreen) and "YAML node/" in app.screen.page_title
        assert app.screen.copy_text is not None and "kind: Node" in app.screen.copy_text
        await settle(pilot, "c")
        assert app.clipboard.startswith("apiVersion: v1")
        await settle(pilot, "escape", "e")
        assert isinstance(app.screen, DetailScreen) and app.screen.page_title.startswith("events node/")
        await settle(pilot, "escape", "question_mark")
        assert isinstance(app.screen, DetailScreen) and app.screen.page_title == "Keys"
        await settle(pilot, "n")  # a view key on a page: back to the main screen, on that view
        assert not isinstance(app.screen, DetailScreen) and app.current == "nodes"


async def test_enter_on_a_pool_lists_its_nodes_and_r_rereads() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "j", "enter")
        assert app.current == "nodes" and app.view.filter_text == "gpu-training"
        assert [r.key for r in app.view.grid.view] == ["i-0fb95c97fae96da58"]
        first = app.snapshot
        await settle(pilot, "r")
        assert app.snapshot is not first and app.view.filter_text == "gpu-training"


async def test_sections_switch_with_tab() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "d", "tab")
        assert app.view.section == 1 and app.view.grid.table.columns[1].label == "WORKLOAD"
        await settle(pilot, "tab", "tab", "tab")
        assert app.view.section == 0


async def test_q_quits() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "q")
    assert app.return_code == 0


async def test_large_terminal() -> None:
    app = demo_app()
    async with app.run_test(size=(250, 70)) as pilot:
        await settle(pilot, "n")
        assert app.view.grid.virtual_size.width <= 250  # every column fits: no horizontal scrolling


def test_app_is_a_gpu_app() -> None:
    assert isinstance(demo_app(), GpuApp)


async def test_enter_on_a_finding_opens_it_and_c_copies_its_fix() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "f", "j", "enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen) and "CUDA_EXCEEDS_DRIVER" in screen.page_title
        await settle(pilot, "c")
        # the fix as it pastes (render.fixes): its prose a comment
        assert app.clipboard.startswith("# use an image built for CUDA <= 12.8")
