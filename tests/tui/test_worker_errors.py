"""Workers started with `exit_on_error=False` keep the app running when they fail, and Textual then drops
the error: each one says it (issue 36). A debug job that meets a bug still ends (its pods deleted, `done`
set) and says so; reading the contexts or the fleet says what failed."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.kube.contexts import KubeContexts
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.background import failure_line
from kubectl_gpu.tui.debug.jobs import ShellJob, SmiJob
from kubectl_gpu.tui.fleet.screen import FleetScreen
from tests.tui.conftest import BROKEN_NODE, DEMO_NOW, Live, settle

SIZE = (120, 40)


def _broken(*args: Any, **kw: Any) -> Any:
    raise RuntimeError("a bug")


def test_failure_line() -> None:
    from kubectl_gpu.core.errors import ClusterError

    assert failure_line(RuntimeError("a\n  bug")) == "RuntimeError: a bug"
    assert failure_line(KeyError()) == "KeyError"
    assert failure_line(ClusterError("unreachable")).startswith("unreachable")


@pytest.mark.parametrize("kind", ["smi", "shell"])
def test_a_debug_job_that_meets_a_bug_ends_and_says_so(
    live: Live, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    config = live.config()
    job: SmiJob | ShellJob
    if kind == "smi":
        job = SmiJob(config, [BROKEN_NODE], on_phase=lambda *a: None, on_done=lambda r: None)
    else:
        job = ShellJob(config, BROKEN_NODE, hand_over=lambda greeting, argv: 0)
    monkeypatch.setattr(job, "_connect", _broken)
    monkeypatch.setattr("kubectl_gpu.kube.debug.shell.kubectl_binary", lambda: "kubectl")
    outcome = job.run()
    assert outcome.error == "internal error (please report it): RuntimeError: a bug"
    assert job.done.is_set()


async def test_reading_the_contexts_says_what_failed(live: Live) -> None:
    app = GpuApp(live.config(), clock=lambda: DEMO_NOW, contexts=_broken)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any(severity == "error" and "RuntimeError: a bug" in text for severity, _, text in app.notices)
        assert app.snapshot is not None  # the app runs on


async def test_the_fleet_says_what_failed(live: Live) -> None:
    calls: list[int] = []

    def contexts(kubeconfig: str | None) -> KubeContexts:
        calls.append(1)
        if len(calls) > 1:  # the start-up read works; the fleet's fails
            raise RuntimeError("a bug")
        return KubeContexts()

    app = GpuApp(live.config(), clock=lambda: DEMO_NOW, contexts=contexts)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "colon", *"ctx", "enter")
        assert not isinstance(app.screen, FleetScreen)
        assert any(title == "fleet" and "RuntimeError: a bug" in text for _, title, text in app.notices)
