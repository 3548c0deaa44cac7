"""The terminal goes away: the app ends and leaves no debug pod, even when its event loop is stuck writing to
the lost terminal (Textual's writer thread dies on the closed pty and the loop blocks on its queue: such
processes were seen alive an hour later at 40% CPU)."""

from __future__ import annotations

import os
import threading

from kubectl_gpu.tui.hangup import last_resort
from tests.tui.conftest import DEMO
from tests.tui.test_hostile_pty import Terminal


def test_the_last_resort_cleans_up_and_ends_when_the_app_never_unmounts() -> None:
    ended: list[int] = []
    cleaned: list[bool] = []

    def cleanup() -> list[str]:
        cleaned.append(True)
        return []

    last_resort(threading.Event(), 0.0, cleanup, ended.append)
    assert cleaned == [True] and ended == [130]


def test_the_last_resort_stands_aside_when_the_app_left_by_its_own_path() -> None:
    unmounted, ended = threading.Event(), []
    unmounted.set()
    last_resort(unmounted, 0.0, lambda: ["never"], ended.append)
    assert ended == []


def test_the_last_resort_ends_even_when_the_cleanup_fails() -> None:
    ended: list[int] = []

    def broken() -> list[str]:
        raise RuntimeError("no API server")

    last_resort(threading.Event(), 0.0, broken, ended.append)
    assert ended == [130]


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
