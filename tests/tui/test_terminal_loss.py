"""The terminal goes away: the app ends and leaves no debug pod, even when its event loop is stuck writing to
the lost terminal (Textual's writer thread dies on the closed pty and the loop blocks on its queue: such
processes were seen alive an hour later at 40% CPU)."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading

import pytest

from kubectl_gpu.tui import hangup
from kubectl_gpu.tui.hangup import TerminalWatch, last_resort
from tests.hostile.terminal import REPO, SIZE
from tests.tui.conftest import DEMO, demo_app
from tests.tui.test_hostile_pty import Terminal


def test_the_last_resort_cleans_up_and_ends_when_run_never_returns() -> None:
    ended: list[int] = []
    cleaned: list[bool] = []

    def cleanup() -> list[str]:
        cleaned.append(True)
        return []

    last_resort(threading.Event(), 0.0, cleanup, ended.append)
    assert cleaned == [True] and ended == [130]


def test_the_last_resort_stands_aside_when_the_app_left_by_its_own_path() -> None:
    returned, ended = threading.Event(), []
    returned.set()
    last_resort(returned, 0.0, lambda: ["never"], ended.append)
    assert ended == []


async def test_unmounting_does_not_disarm_the_last_resort(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a hang-up the app unmounts, and its shutdown can still be stuck (stopping Textual's writer thread
    on the lost terminal): the last resort stays armed until `launch` says `run` returned (`ended`)."""
    armed: list[threading.Event] = []
    started = threading.Event()

    def fake(returned: threading.Event, grace: float, cleanup: object) -> None:
        armed.append(returned)
        started.set()

    monkeypatch.setattr(hangup, "last_resort", fake)
    app = demo_app()
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # not ignored (`nohup`): the app takes it over
    try:
        async with app.run_test() as pilot:
            await pilot.pause()
            handler = signal.getsignal(signal.SIGHUP)
            assert callable(handler)  # the app's own, while it runs
            handler(signal.SIGHUP, None)
            assert started.wait(60)
            await pilot.pause()
    finally:
        signal.signal(signal.SIGHUP, before)
    assert app.return_code == 130  # the hang-up ended it by its exit path: it unmounted
    assert not armed[0].is_set()
    app.ended()
    assert armed[0].is_set()


def test_the_last_resort_ends_even_when_the_cleanup_fails() -> None:
    ended: list[int] = []

    def broken() -> list[str]:
        raise RuntimeError("no API server")

    last_resort(threading.Event(), 0.0, broken, ended.append)
    assert ended == [130]


def test_the_watch_sees_a_terminal_hang_up() -> None:
    """A pty's follower is a terminal until its leader closes (the window is gone): the watch then calls
    `gone`, once. Nothing is timed: the test waits for the call (bounded only against a hang)."""
    leader, follower = pty.openpty()
    gone = threading.Event()
    calls: list[int] = []

    def said() -> None:
        calls.append(1)
        gone.set()

    watch = TerminalWatch((follower,), said, interval=0.05)
    try:
        assert watch.present()
        watch.start()
        os.close(leader)
        assert gone.wait(60)
        watch.thread.join(60)
        assert calls == [1] and not watch.present()
    finally:
        watch.stop()
        os.close(follower)


def test_a_watch_without_a_terminal_does_nothing() -> None:
    watch = TerminalWatch((), lambda: None).start()
    assert not watch.thread.is_alive() and watch.present()


def test_closing_the_terminal_ends_the_process() -> None:
    """A real process on a pty: the terminal's side is closed (the window is gone; the kernel sends SIGHUP
    to the session leader). The process must end: the suite's timeout catches a hang, no margin here."""
    term = Terminal(["tui", "--snapshot", str(DEMO)], controlling=True)
    try:
        term.wait_for("NODEPOOL", 0)
        os.close(term.leader)
        code = term.proc.wait()
    finally:
        term.kill()
    assert code == 130


def _ignore_hangup_and_take_the_tty() -> None:
    """In the child: SIGHUP ignored (as under `nohup`, or `trap '' HUP`), the pty its controlling terminal."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_closing_the_terminal_ends_the_process_with_sighup_ignored() -> None:
    """SIGHUP ignored (issue 36: a TUI under nohup spun at 56% CPU for minutes after its terminal closed):
    the app sees the terminal go (its tty no longer one) and ends as on SIGHUP. The wait is a bound for a
    hang, not a measure of how fast."""
    leader, follower = pty.openpty()
    columns, lines = SIZE
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", "tui", "--snapshot", str(DEMO)],
        cwd=REPO,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
        start_new_session=True,
        preexec_fn=_ignore_hangup_and_take_the_tty,
    )
    os.close(follower)
    term = Terminal.attach(proc, leader)
    try:
        term.wait_for("NODEPOOL", 0)
        os.close(leader)
        try:
            code = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            raise AssertionError("the TUI outlived its terminal (SIGHUP ignored)") from None
    finally:
        term.kill()
    assert code == 130
