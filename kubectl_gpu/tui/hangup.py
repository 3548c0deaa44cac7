"""The terminal went away (SIGHUP): the app leaves as `q` does, so that every debug pod is deleted.

Before, SIGHUP was caught (`launch` turns it into KeyboardInterrupt for its cleanup) but the event loop
never saw it: the process outlived its terminal. Here the app's own handler hands it to the loop, which
cancels the debug jobs (each deletes its pod) and exits 130; `launch`'s cleanup then deletes any pod still
tracked, with its own handler back in place.
"""

from __future__ import annotations

import asyncio
import signal
import threading

from textual.app import App

from kubectl_gpu.tui.debug.jobs import DebugJobs

__all__ = ["HangUp"]


class HangUp(App[int]):
    """What `GpuApp` gives it: the debug jobs and the quitting flag."""

    jobs: DebugJobs
    _quitting: bool
    _saved_hangup: signal._HANDLER = None

    def _catch_hangup(self) -> None:
        """Install the handler (only the main thread may; a signal ignored on purpose, nohup, stays so)."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGHUP)
        if previous is signal.SIG_IGN:
            return
        loop = asyncio.get_running_loop()

        def hangup(signum: int, frame: object) -> None:
            loop.call_soon_threadsafe(self.hang_up)

        signal.signal(signal.SIGHUP, hangup)
        self._saved_hangup = previous

    def on_unmount(self) -> None:
        if self._saved_hangup is not None:  # `launch`'s handler again, for its cleanup
            signal.signal(signal.SIGHUP, self._saved_hangup)
            self._saved_hangup = None

    def hang_up(self) -> None:
        """The terminal is gone: cancel the debug jobs (their pods are deleted) and end (exit 130)."""
        self._quitting = True
        self.jobs.cancel_all()
        self.exit(return_code=130)
