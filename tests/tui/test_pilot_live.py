"""The TUI live, against the suite's API server serving the demo cluster: refreshes (and their failures),
the selection across a refresh, a context switch, nvidia-smi and the shell through the simulated kubelet.

Every test ends with no debug pod on the server (the `live` fixture checks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from tests.kube.kubelet import debug_pods, gpu_node, wait_for
from tests.tui.conftest import BROKEN_NODE, Live, settle

SIZE = (100, 30)


def _errors(app: object) -> list[str]:
    return [text for severity, _, text in app.notices if severity == "error"]  # type: ignore[attr-defined]


async def test_live_shows_the_same_fleet_as_the_snapshot(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        snap = app.snapshot
        assert snap is not None and snap.state.context == "test"
        assert len(snap.nodes.rows) == 4 and len(snap.pending.pods) == 9
        assert [r.key for r in app.view.grid.view][:2] == ["gpu-inference", "gpu-training"]
        assert app.error is None and not _errors(app)


async def test_selection_and_scroll_survive_a_refresh(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "j", "j")
        grid = app.view.grid
        chosen = grid.cursor_row
        assert chosen is not None and chosen.key == "i-06e3be66fc8ce4055"
        live.api.add(gpu_node("i-000aaaaaaaaaaaaaa", labels={"karpenter.sh/nodepool": "gpu-inference"}))
        await settle(pilot, "r")
        assert len(grid.view) == 5  # the new node sorts first within its pool
        assert grid.cursor_row is not None and grid.cursor_row.key == chosen.key
        assert grid.cursor == 3


async def test_a_failed_refresh_keeps_the_data_and_says_so(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.snapshot
        live.api.fault(path=r"^/api/v1/nodes$", status=500)
        await settle(pilot, "r")
        assert app.snapshot is shown and app.error is not None and "500" in app.error
        assert any("500" in e for e in _errors(app))
        live.api.clear_faults()
        await settle(pilot, "r")
        assert app.snapshot is not shown and app.error is None


async def test_a_timeout_is_a_notification_not_a_crash(live: Live) -> None:
    # 3 s, not less: the first read must finish on a loaded CI machine, or there is no data to keep.
    app = live.app(timeout=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.snapshot is not None and app.error is None
        live.api.fault(path=r"^/api/v1/pods$", delay=4.0)
        await settle(pilot, "r")
        assert app.error is not None and "within 3s" in app.error
        assert app.snapshot is not None and len(app.snapshot.nodes.rows) == 4


async def test_forbidden_kind_is_a_warning_and_the_rest_still_shows(live: Live) -> None:
    live.api.fault(path=r"/apis/karpenter\.sh/v1/nodeclaims", status=403)
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.snapshot is not None and len(app.snapshot.nodes.rows) == 4
        warnings = [(title, text) for severity, title, text in app.notices if severity == "warning"]
        assert any("nodeclaims" in title + text for title, text in warnings), warnings
        assert not _errors(app)


async def test_unreachable_cluster_at_start(live: Live) -> None:
    app = live.app()
    app.config = app.config.with_context("other")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.snapshot is None and app.error is not None
        assert any("cannot connect" in e for e in _errors(app))


async def test_context_switch_remembers_view_and_filter(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "slash", *"06e3", "enter")
        assert app.view.filter_text == "06e3"
        await settle(pilot, "colon", *"ctx pr", "tab", "enter")
        assert app.config.context == "prod" and app.snapshot is not None
        assert app.snapshot.state.context == "prod" and len(app.snapshot.nodes.rows) == 1
        assert app.current == "nodes" and app.view.filter_text == ""  # a new context: same view, no filter
        await settle(pilot, "f")
        await settle(pilot, "colon", *"ctx test", "enter")
        assert app.config.context == "test" and app.current == "nodes"
        assert app.view.filter_text == "06e3" and [r.key for r in app.view.grid.view] == [
            "i-06e3be66fc8ce4055"
        ]
        await settle(pilot, "colon", *"ctx prod", "enter")
        assert app.current == "findings"


async def test_context_switch_to_an_unreachable_cluster_stays(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await settle(pilot, "colon", *"ctx other", "enter")
        assert app.config.context == "test" and app.current == "nodes" and app.snapshot is not None
        assert any("cannot switch to other" in title for _, title, _ in app.notices)
        await settle(pilot, "colon", *"ctx nope", "enter")
        assert any("no context 'nope'" in e for e in _errors(app))


async def test_smi_runs_through_the_runner_and_deletes_its_pod(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        assert app.view.grid.cursor_row is not None and app.view.grid.cursor_row.key == BROKEN_NODE
        await settle(pilot, "s")
        screen = app.screen
        assert isinstance(screen, SmiScreen) and screen.live and screen.outcome is not None
        (result,) = screen.outcome.results
        assert result.error is None and result.probe is not None
        assert [g.name for g in result.probe.gpus] == ["NVIDIA L4", "NVIDIA L4"]
        assert screen.outcome.left == [] and debug_pods(live.api) == []
        assert screen.phases[BROKEN_NODE] == "done"
        created = [r for r in live.api.requests if r.method == "POST" and r.path.endswith("/pods")]
        assert len(created) == 1 and "/namespaces/default/" in created[0].path
        await settle(pilot, "escape")
        assert not isinstance(app.screen, SmiScreen)


async def test_smi_on_marked_nodes(live: Live) -> None:
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "space", "space", "s")
        assert isinstance(app.screen, SmiScreen) and app.screen.outcome is not None
        assert sorted(r.node or "" for r in app.screen.outcome.results) == sorted(
            ["i-04b975f2935588ecc", "i-06cc6be1805fdf179"]
        )


async def test_smi_cancelled_deletes_the_pod(live: Live) -> None:
    live.kubelet.faults[BROKEN_NODE] = "never-starts"
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("s")
        assert wait_for(lambda: bool(debug_pods(live.api)), timeout=5.0)
        await pilot.press("escape")  # cancel: the runner deletes the pod
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SmiScreen) and screen.outcome is not None and screen.outcome.cancelled
        assert debug_pods(live.api) == []


async def test_quitting_during_smi_leaves_no_pod(live: Live) -> None:
    live.kubelet.faults[BROKEN_NODE] = "never-starts"
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("s")
        assert wait_for(lambda: bool(debug_pods(live.api)), timeout=5.0)
        await pilot.press("ctrl+q")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert app.return_code == 0
    assert debug_pods(live.api) == [] and app.run_cleanup() == []


FAKE_KUBECTL = """\
import json, sys, urllib.request
args = sys.argv[1:]
ns = args[args.index("-n") + 1]
pod = args[args.index("-n") + 2]
server = json.load(open(args[args.index("--kubeconfig") + 1]))["clusters"][0]["cluster"]["server"]
live = json.load(urllib.request.urlopen(f"{server}/api/v1/namespaces/{ns}/pods/{pod}"))
json.dump({"argv": args, "phase": live["status"]["phase"]}, open(sys.argv[0] + ".json", "w"))
sys.exit(7)
"""


async def test_shell_hands_the_terminal_to_kubectl_exec_and_deletes_the_pod(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}")
    fake.chmod(0o755)
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(fake))
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "x")
        seen = json.loads((tmp_path / "kubectl.json").read_text())
        assert seen["phase"] == "Running"  # the pod ran while kubectl had the terminal
        argv = seen["argv"]
        assert argv[:4] == ["--kubeconfig", str(live.kubeconfig), "--context", "test"]
        assert argv[4:8] == ["exec", "-i", "-t", "-n"] and argv[9].startswith(f"gpu-debug-{BROKEN_NODE}-")
        assert any("shell ended (exit 7)" in text for _, _, text in app.notices)
        assert debug_pods(live.api) == []


async def test_shell_cancelled_while_starting(live: Live) -> None:
    live.kubelet.faults[BROKEN_NODE] = "never-starts"
    app = live.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("x")
        assert wait_for(lambda: bool(debug_pods(live.api)), timeout=5.0)
        await pilot.press("escape")
        await settle(pilot)
        assert any("shell cancelled" in text for _, _, text in app.notices)
        assert debug_pods(live.api) == []
