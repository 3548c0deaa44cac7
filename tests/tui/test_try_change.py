"""`t` (try, issue 40): a pod's fix tried cluster-wide from its explain page and its Pending row, and a NodePool
edited in $EDITOR (a script here) with the difference shown before leaving the TUI; a file that does not
parse, or a change the API server would refuse, said on the page. `--readonly` keeps `t`."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from kubectl_gpu.tui.keys import page_keys
from kubectl_gpu.tui.screens.explain import ExplainScreen
from kubectl_gpu.tui.screens.try_change import TryScreen
from tests.tui.conftest import CHAT_API, demo_app, settle


def _text(screen: TryScreen) -> str:
    console = Console(width=200, record=True)
    console.print(screen.body)
    return console.export_text()


def _editor(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """$EDITOR: a script that edits the file it is given (as a person would, in vi)."""
    path = tmp_path / "editor.sh"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.delenv("KUBE_EDITOR", raising=False)
    monkeypatch.setenv("EDITOR", str(path))


@pytest.mark.parametrize("readonly", [False, True])
async def test_t_on_the_missing_tolerations_fix_shows_the_pod_schedules(readonly: bool) -> None:
    app = demo_app(readonly=readonly)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, "p")
        assert app.view.grid.move_to(CHAT_API)
        assert ("t", "try") in {(k.press, k.action) for k in page_keys(app.screen)}
        await settle(pilot, "enter")
        assert isinstance(app.screen, ExplainScreen)
        await settle(pilot, "t")
        screen = app.screen
        assert isinstance(screen, TryScreen) and not screen.building
        text = _text(screen)
        assert "BETTER" in text and "schedules: NodePool gpu-inference" in text, text
        assert "was MISSING_TOLERATION" in text and "chat-api-7d9f8c6b5d-x2k4p" in text
        await settle(pilot, "escape", "escape")
        await settle(pilot, "t")  # from the Pending row too
        assert isinstance(app.screen, TryScreen) and "schedules" in _text(app.screen)


async def test_t_is_not_offered_for_a_fix_that_is_no_change() -> None:
    app = demo_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, "p")
        assert app.view.grid.move_to("research/giant-model")  # NO_INSTANCE_TYPE_FITS: request fewer GPUs
        assert "try" not in {k.action for k in page_keys(app.screen)}


async def test_t_on_a_nodepool_edits_a_copy_and_shows_the_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen.yaml"
    # lift gpu-training's GPU limit from 8 to 32, and keep what the editor was given
    _editor(
        tmp_path,
        f'cp "$1" {seen}\nsed -i \'s/nvidia.com\\/gpu: .8.$/nvidia.com\\/gpu: "32"/\' "$1"\n',
        monkeypatch,
    )
    app = demo_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot, "o")
        assert app.view.grid.move_to("gpu-training")
        await settle(pilot, "t")
        screen = app.screen
        assert isinstance(screen, TryScreen), screen
        text = _text(screen)
        assert "GPU limit 8 -> 32" in text and "pretrain-8x-h100-1" in text, text
        assert "kind: NodePool" in seen.read_text()  # the editor was given the pool's YAML
        assert screen.changes[0].source == "$EDITOR (NodePool gpu-training)"
    assert not list(Path(tempfile.gettempdir()).glob("kubectl-gpu-edit-gpu-training-*"))  # deleted after


async def test_an_edit_that_does_not_parse_or_is_refused_is_said_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = demo_app()
    async with app.run_test(size=(160, 50)) as pilot:
        _editor(tmp_path, 'printf "kind: [\\n" > "$1"\n', monkeypatch)
        await settle(pilot, "o")
        assert app.view.grid.move_to("gpu-training")
        await settle(pilot, "t")
        assert isinstance(app.screen, TryScreen) and "not tried:" in _text(app.screen)
        await settle(pilot, "escape")
        # a weight the CRD's rule refuses (1 to 100): as kubectl apply, nothing is tried
        script = 'sed -i "s/^spec:$/spec:\\n  weight: 500/" "$1"\n'
        _editor(tmp_path, script, monkeypatch)
        await settle(pilot, "t")
        assert isinstance(app.screen, TryScreen)
        text = _text(app.screen)
        assert "not tried:" in text and 'The NodePool "gpu-training" is invalid' in text, text
        await settle(pilot, "escape")
        _editor(tmp_path, "true\n", monkeypatch)  # saved as it was: nothing to try
        await settle(pilot, "t")
        assert not isinstance(app.screen, TryScreen)
