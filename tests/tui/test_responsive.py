"""Responsiveness: keys typed right after `/` reach the filter, a pasted megabyte is cut with a notice,
edits that arrive together filter once, `q` during a refresh that never ends quits without waiting for it,
and SIGHUP (the terminal went away) ends a real process on a pty and deletes its debug pod on the suite's
API server. Every wait is on an event or a state, never on elapsed time."""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

import pytest

from kubectl_gpu.tui import data
from kubectl_gpu.tui.widgets.command_line import MAX_LENGTH, CommandLine
from tests.kube.kubelet import debug_pods, wait_for
from tests.tui.conftest import BROKEN_NODE, Live, demo_app, settle
from tests.tui.test_hostile_pty import Terminal

SIZE = (120, 40)


async def test_keys_right_after_slash_are_not_lost() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n")
        await pilot.press("slash", "g", "p", "u", "-", "i")  # no pause between: all queued at once
        await settle(pilot, "enter")
        assert app.view.filter_text == "gpu-i"
        assert app.view.grid.cursor == 0  # `g` did not jump the table: it was typed into the line


async def test_a_pasted_megabyte_is_cut_with_a_notice() -> None:
    from textual import events

    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "slash")
        line = app.query_one(CommandLine)
        line.post_message(events.Paste("gpu" + "x" * (1 << 20)))
        await settle(pilot)
        assert len(line.value) == MAX_LENGTH and line.value.startswith("gpu")
        assert any("pasted text cut" in text for _, _, text in app.notices)
        await settle(pilot, "escape", "j")  # still answering keys
        assert app.view.filter_text == "" and app.view.grid.cursor == 1


async def test_edits_that_arrive_together_filter_once(monkeypatch: pytest.MonkeyPatch) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, "n", "slash")
        calls: list[str] = []
        view = app.view
        original = view.set_filter

        def counted(text: str) -> None:
            calls.append(text)
            original(text)

        monkeypatch.setattr(view, "set_filter", counted)
        for end in range(1, 40):
            app.post_message(CommandLine.Edited("/", "i-0fb95c97fae96da58"[: end % 20]))
        await settle(pilot)
        assert calls == ["i-0fb95c97fae96da58"[: 39 % 20]]


async def test_q_during_a_refresh_that_never_ends_quits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    reading = threading.Event()

    def stuck(*args: Any, **kw: Any) -> data.Refresh:
        reading.set()
        release.wait()
        raise RuntimeError("abandoned")

    monkeypatch.setattr(data, "load", stuck)
    app = demo_app()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.get_running_loop().run_in_executor(None, reading.wait)
            await pilot.press("q")
            # The app ends with the read still stuck: quitting did not wait for it (a hang would hold
            # this test here until pytest's own timeout).
        assert app.return_code == 0 and not release.is_set()
        assert any(t.name == "refresh" and t.is_alive() for t in threading.enumerate())
    finally:
        release.set()


def test_sighup_ends_the_app_and_deletes_its_debug_pod(live: Live) -> None:
    """A real process on a pty, live against the suite's API server: `n s y` starts nvidia-smi (its pod
    never starts); SIGHUP ends the app through its exit path, which deletes the pod."""
    live.kubelet.faults[BROKEN_NODE] = "never-starts"
    args = ["tui", "--kubeconfig", str(live.kubeconfig), "--context", "test", "--refresh", "0"]
    term = Terminal(args)
    try:
        term.wait_for("NODEPOOL", 0)
        # The node's own detail, not its name: the Overview names it too, and may still be drawing it
        # when `n` is pressed; `s` on the nodes view before its rows are in would find no node.
        term.wait_for(f"Node: {BROKEN_NODE}", term.press("n"))
        term.wait_for("privileged", term.press("s"))
        term.press("y")
        assert wait_for(lambda: bool(debug_pods(live.api)), timeout=120.0)
        term.proc.send_signal(signal.SIGHUP)
        # Read what it draws until it ends (a process writing to a full pty would block): the loop ends on
        # the exit itself; a hang is the suite's timeout's to catch, not a margin of ours.
        while term.proc.poll() is None:
            term._read(0.2)
        code = term.proc.wait()
    finally:
        term.kill()
    assert code == 130
    assert debug_pods(live.api) == []
    deleted = [r for r in live.api.requests if r.method == "DELETE" and "/pods/gpu-debug-" in r.path]
    assert deleted
