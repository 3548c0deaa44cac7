"""The terminal went away (SIGHUP): the app leaves as `q` does, so that every debug pod is deleted.

Before, SIGHUP was caught (`launch` turns it into KeyboardInterrupt for its cleanup) but the event loop
never saw it: the process outlived its terminal. Here the app's own handler hands it to the loop, which
cancels the debug jobs (each deletes its pod) and exits 130; `launch`'s cleanup then deletes any pod still
tracked, with its own handler back in place.

When the terminal is gone the loop may be stuck: Textual's writer thread dies on the closed pty, the loop
then blocks on its full queue, and the handler's call never runs (seen: processes alive for an hour at 40%
CPU, their debug pods kept). So the handler also starts `last_resort`: if the app has not unmounted within
`HANGUP_GRACE_S`, it deletes the tracked pods itself and ends the process (exit 130).
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

__all__ = ["HANGUP_GRACE_S", "HangUp", "last_resort"]

#: how long the loop has to leave by its own path after SIGHUP before `last_resort` ends the process
HANGUP_GRACE_S = 10.0


def last_resort(
    unmounted: threading.Event,
    grace: float,
    cleanup: Callable[[], list[str]],
    end: Callable[[int], object] = os._exit,
) -> None:
    """After SIGHUP: unless the app unmounted within `grace` seconds (its own exit path runs), delete the
    tracked debug pods (`cleanup`) and end the process with 130 (`end`: os._exit, as the loop is stuck)."""
    if unmounted.wait(grace):
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


class HangUp(App[int]):
    """What `GpuApp` gives it: the debug jobs and the quitting flag."""

    jobs: DebugJobs
    _quitting: bool
    _saved_hangup: signal._HANDLER = None
    _unmounted: threading.Event | None = None

    if TYPE_CHECKING:  # DebugKeys' (a stub here would shadow it in GpuApp's MRO)

        def run_cleanup(self) -> list[str]: ...

    def _catch_hangup(self) -> None:
        """Install the handler (only the main thread may; a signal ignored on purpose, nohup, stays so)."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGHUP)
        if previous is signal.SIG_IGN:
            return
        loop = asyncio.get_running_loop()
        unmounted = self._unmounted = threading.Event()

        def hangup(signum: int, frame: object) -> None:
            loop.call_soon_threadsafe(self.hang_up)
            args = (unmounted, HANGUP_GRACE_S, self.run_cleanup)
            threading.Thread(target=last_resort, args=args, name="hangup", daemon=True).start()

        signal.signal(signal.SIGHUP, hangup)
        self._saved_hangup = previous

    def on_unmount(self) -> None:
        if self._unmounted is not None:
            self._unmounted.set()
        if self._saved_hangup is not None:  # `launch`'s handler again, for its cleanup
            signal.signal(signal.SIGHUP, self._saved_hangup)
            self._saved_hangup = None

    def hang_up(self) -> None:
        """The terminal is gone: cancel the debug jobs (their pods are deleted) and end (exit 130)."""
        self._quitting = True
        self.jobs.cancel_all()
        self.exit(return_code=130)
