"""The terminal went away: the app leaves as `q` does, so that every debug pod is deleted.

Two ways to see it. SIGHUP: before, it was caught (`launch` turns it into KeyboardInterrupt for its
cleanup) but the event loop never saw it, and the process outlived its terminal. Here the app's own handler
hands it to the loop, which cancels the debug jobs (each deletes its pod) and exits 130; `launch`'s cleanup
then deletes any pod still tracked, with its own handler back in place. And when SIGHUP is ignored (`nohup`,
`trap '' HUP`: a signal ignored on purpose stays so) no signal comes at all: Textual's input thread then
reads end-of-file from the hung-up terminal in a loop (seen: 56% CPU for minutes). So a watcher thread
(`TerminalWatch`) asks every `WATCH_S` whether the descriptors that were terminals at start still are
(a hung-up terminal is none: `isatty` fails), and ends the app the same way when one is not.

When the terminal is gone the loop may be stuck: Textual's writer thread dies on the closed pty, the loop
then blocks on its full queue, and the handler's call never runs (seen: processes alive for an hour at 40%
CPU, their debug pods kept). Its shutdown may be stuck too, after the app unmounted: stopping the writer
thread waits on the same queue (seen in 3 of 70 runs of `test_closing_the_terminal_ends_the_process`). So the
hang-up also starts `last_resort`: if `App.run` has not returned within `HANGUP_GRACE_S` (`launch` says when
it has: `HangUp.ended`), it deletes the tracked pods itself and ends the process (exit 130).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App

from kubectl_gpu.tui.debug.jobs import DebugJobs

__all__ = ["HANGUP_GRACE_S", "WATCH_S", "HangUp", "TerminalWatch", "last_resort", "terminal_fds"]

#: how long the app has to return from `run` after SIGHUP before `last_resort` ends the process
HANGUP_GRACE_S = 10.0
#: how often the watcher asks whether the terminal is still there (one `isatty` per descriptor)
WATCH_S = 0.5


def last_resort(
    returned: threading.Event,
    grace: float,
    cleanup: Callable[[], list[str]],
    end: Callable[[int], object] = os._exit,
) -> None:
    """After SIGHUP: unless `App.run` returned within `grace` seconds (`launch`'s own cleanup runs next),
    delete the tracked debug pods (`cleanup`) and end the process with 130 (`end`: os._exit, as the loop or
    its shutdown is stuck)."""
    if returned.wait(grace):
        return
    try:
        left = cleanup()
    except Exception:  # the last thing this process does: end it whatever happened
        left = ["(cleanup failed)"]
    for name in left:  # stderr may be the lost terminal: best effort
        try:
            print(f"warning: could not delete debug pod {name}; run kubectl gpu cleanup", file=sys.stderr)
        except Exception:
            break
    end(130)


def terminal_fds() -> tuple[int, ...]:
    """The standard descriptors that are terminals now (the TUI's input and output among them)."""
    found = []
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                found.append(fd)
        except OSError:
            continue
    return tuple(found)


class TerminalWatch:
    """A daemon thread that calls `gone()` once, when one of `fds` is no longer a terminal (hung up,
    closed), asking every `interval` seconds until `stop`."""

    def __init__(self, fds: tuple[int, ...], gone: Callable[[], object], interval: float = WATCH_S) -> None:
        self.fds = fds
        self.gone = gone
        self.interval = interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="terminal-watch", daemon=True)

    def start(self) -> TerminalWatch:
        if self.fds:
            self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()

    def present(self) -> bool:
        for fd in self.fds:
            try:
                if not os.isatty(fd):
                    return False
            except OSError:
                return False
        return True

    def _run(self) -> None:
        while not self.stopped.wait(self.interval):
            if not self.present():
                self.gone()
                return


class HangUp(App[int]):
    """What `GpuApp` gives it: the debug jobs and the quitting flag."""

    jobs: DebugJobs
    _quitting: bool
    _saved_hangup: signal._HANDLER = None
    _returned: threading.Event | None = None
    _watch: TerminalWatch | None = None
    _hung_up: threading.Lock | None = None

    if TYPE_CHECKING:  # DebugKeys' (a stub here would shadow it in GpuApp's MRO)

        def run_cleanup(self) -> list[str]: ...

    def _catch_hangup(self) -> None:
        """Install the SIGHUP handler (only the main thread may; a signal ignored on purpose, nohup, stays
        so) and the terminal watch (on a real terminal: not headless, not in tests)."""
        loop = asyncio.get_running_loop()
        self._returned = threading.Event()
        self._hung_up = threading.Lock()

        def gone() -> None:  # from a signal handler or the watch's thread: once
            assert self._hung_up is not None and self._returned is not None
            if not self._hung_up.acquire(blocking=False):
                return
            try:
                loop.call_soon_threadsafe(self.hang_up)
            except RuntimeError:  # the loop is closed: the app is leaving anyway
                return
            args = (self._returned, HANGUP_GRACE_S, self.run_cleanup)
            threading.Thread(target=last_resort, args=args, name="hangup", daemon=True).start()

        if not self.is_headless:
            self._watch = TerminalWatch(terminal_fds(), gone).start()
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGHUP)
        if previous is signal.SIG_IGN:
            return

        def hangup(signum: int, frame: object) -> None:
            gone()

        signal.signal(signal.SIGHUP, hangup)
        self._saved_hangup = previous

    def ended(self) -> None:
        """`App.run` returned (`launch` calls it): a hang-up's `last_resort` stands aside, as the process
        leaves by its own path. Not at unmount: the shutdown after it can still be stuck."""
        if self._returned is not None:
            self._returned.set()

    def on_unmount(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        if self._saved_hangup is not None:  # `launch`'s handler again, for its cleanup
            signal.signal(signal.SIGHUP, self._saved_hangup)
            self._saved_hangup = None

    def hang_up(self) -> None:
        """The terminal is gone: cancel the debug jobs (their pods are deleted) and end (exit 130)."""
        self._quitting = True
        self.jobs.cancel_all()
        self.exit(return_code=130)
