"""Safety: `s` and `x` ask before a privileged pod exists (naming the nodes, the image and the namespace),
`--readonly` (or `tui: {readonly: true}`) removes every key that creates a pod, and the config file's
`tui:` settings are read (or refused, exit 2), all against the suite's API server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.debugpod import DEFAULT_IMAGES, Accelerator
from kubectl_gpu.tui.config import TuiSettings, tui_settings
from kubectl_gpu.tui.debug.smi_screen import SmiScreen
from kubectl_gpu.tui.keys import page_keys
from kubectl_gpu.tui.screens.confirm import ConfirmPod
from kubectl_gpu.tui.screens.node_pods import NodePodsScreen
from tests.kube.kubelet import debug_pods
from tests.tui.conftest import BROKEN_NODE, Live, demo_app, settle

SIZE = (120, 40)


def _created(live: Live) -> list[str]:
    return [r.path for r in live.api.requests if r.method == "POST" and r.path.endswith("/pods")]


def _question(app: Any) -> str:
    screen = app.screen
    assert isinstance(screen, ConfirmPod)
    return screen.text.plain


async def test_s_asks_naming_node_image_and_namespace_and_no_creates_nothing(live: Live) -> None:
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "s")
        text = _question(app)
        assert "privileged" in text and BROKEN_NODE in text
        assert DEFAULT_IMAGES[Accelerator.NVIDIA] in text and "namespace: default" in text
        assert {k.press for k in page_keys(app.screen)} >= {"y", "n"}
        await settle(pilot, "n")
        assert not isinstance(app.screen, (ConfirmPod, SmiScreen)) and _created(live) == []
        assert any("no pod created" in text for _, _, text in app.notices)
        await settle(pilot, "s", "y")  # yes: it runs, and its pod is deleted after
        assert isinstance(app.screen, SmiScreen) and app.screen.outcome is not None
        assert len(_created(live)) == 1 and debug_pods(live.api) == []


async def test_s_on_marked_nodes_names_each_and_esc_cancels(live: Live) -> None:
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "space", "space", "s")
        text = _question(app)
        assert "2 privileged debug pods" in text
        assert BROKEN_NODE in text and "i-06cc6be1805fdf179" in text
        await settle(pilot, "escape")
        assert _created(live) == []


async def test_x_asks_too(live: Live) -> None:
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "x")
        assert "(a shell)" in _question(app)
        await settle(pilot, "n")
        assert _created(live) == [] and app.shell_job is None


@pytest.mark.parametrize("key", ["x", "s"])
async def test_enter_is_no(live: Live, key: str) -> None:
    """`x` then `enter` (issue 36): the default answer is no; no privileged pod is created."""
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", key)
        text = _question(app)
        assert "y creates it" in text and "enter no (the default)" in text
        presses = {k.action: k.keys for k in page_keys(app.screen)}
        assert presses["answer(True)"] == ("y",) and "enter" in presses["answer(False)"]
        await settle(pilot, "enter")
        assert not isinstance(app.screen, (ConfirmPod, SmiScreen))
        assert _created(live) == [] and app.shell_job is None and not app.jobs.running
        assert any("no pod created" in text for _, _, text in app.notices)
        await settle(pilot, key, "enter", "enter")  # enter again (habit): still nothing
        assert _created(live) == [] and app.shell_job is None


@pytest.mark.parametrize("no", ["n", "escape"])
async def test_x_n_and_esc_cancel(live: Live, no: str) -> None:
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "x", no)
        assert not isinstance(app.screen, ConfirmPod)
        assert _created(live) == [] and app.shell_job is None


async def test_x_y_starts_the_shell(live: Live, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`y` is the one answer that creates the shell pod (kubectl exec is a stand-in that exits 0)."""
    fake = tmp_path / "kubectl"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(fake))
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "x", "y")
        assert len(_created(live)) == 1 and app.shell_job is not None
        assert any("shell ended (exit 0)" in text for _, _, text in app.notices)
        assert debug_pods(live.api) == []


async def test_the_node_page_asks_for_its_node(live: Live) -> None:
    app = live.app(confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "enter")
        assert isinstance(app.screen, NodePodsScreen) and app.screen.node == BROKEN_NODE
        await settle(pilot, "s")
        assert f"node: {BROKEN_NODE}" in _question(app)
        await settle(pilot, "escape")
        assert _created(live) == []


async def test_confirm_off_runs_at_once(live: Live) -> None:
    app = live.app(confirm=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "s")
        assert isinstance(app.screen, SmiScreen) and len(_created(live)) == 1


async def test_readonly_offers_no_key_that_creates_a_pod(live: Live) -> None:
    app = live.app(readonly=True, confirm=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        assert not {"s", "x"} & {k.press for k in page_keys(app.screen)}
        await settle(pilot, "s", "x", "enter")
        assert isinstance(app.screen, NodePodsScreen)  # s and x did nothing; enter opened the node
        assert not {"s", "x"} & {k.press for k in page_keys(app.screen)}
        await settle(pilot, "s", "x")
        assert isinstance(app.screen, NodePodsScreen)
        app.smi_on([BROKEN_NODE])  # asked anyway (a stale key): says why, creates nothing
        app.shell_on(BROKEN_NODE)
        assert sum("read-only" in text for _, _, text in app.notices) == 2
    assert _created(live) == []


async def test_readonly_offline_still_shows_the_stored_probe() -> None:
    app = demo_app(readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "s")
        assert isinstance(app.screen, SmiScreen) and not app.screen.live


def test_config_file_settings() -> None:
    assert tui_settings(None) == TuiSettings()
    assert tui_settings({"image": "x"}) == TuiSettings()
    assert tui_settings({"tui": {"readonly": True, "confirm": False}}) == TuiSettings(True, False)
    for bad in ({"tui": "yes"}, {"tui": {"readonly": "yes"}}, {"tui": {"confrim": False}}):
        with pytest.raises(ValueError, match="tui"):
            tui_settings(bad, "config.yaml")


def _config_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "xdg" / "kubectl-gpu" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_readonly_flag_and_config_reach_the_tui(tmp_path: Path) -> None:
    from kubectl_gpu.cli.options import GlobalOptions
    from kubectl_gpu.cli.tui import tui_config

    opts = GlobalOptions(snapshot=("examples/automode-gpu-demo.json",))
    plain = tui_config(opts)
    assert not plain.readonly and plain.confirm
    assert tui_config(opts, readonly=True).readonly
    _config_file(tmp_path, "tui:\n  readonly: true\n  confirm: false\n")
    configured = tui_config(opts)
    assert configured.readonly and not configured.confirm


def test_a_bad_tui_setting_is_bad_input(tmp_path: Path, cli: Any) -> None:
    _config_file(tmp_path, "tui:\n  readonly: maybe\n")
    result = cli("tui", "--snapshot", "examples/automode-gpu-demo.json")
    assert result.code == 2
    assert "tui.readonly: expected true or false" in result.err and "Traceback" not in result.err
