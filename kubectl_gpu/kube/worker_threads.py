"""Worker threads that leave the process's signals to the main thread.

The kernel delivers a signal sent to the process (Ctrl-C's SIGINT, a supervisor's SIGTERM, a closed terminal's
SIGHUP) to any thread that does not block it. Python runs the handler on the main thread, but only once that
thread looks: one delivered to a worker sitting in a socket read does not wake a main thread blocked on a lock,
so the handler waited until the lock was released (a held DELETE's whole 30 s timeout, in one run of 25). A
worker that blocks these signals leaves them to the main thread, whose waits they interrupt at once.

That leaves one race: a signal that comes just before the main thread starts to wait on a lock (after its
last look at the signals) does not interrupt that wait either. A main thread that must answer a signal while
it waits therefore waits at most `WAIT_SLICE` at a time.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

__all__ = ["MAIN_THREAD_SIGNALS", "WAIT_SLICE", "leave_signals_to_main", "start_worker"]

MAIN_THREAD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: The longest a main thread that waits for workers blocks at once (seconds)
WAIT_SLICE = 0.1


def leave_signals_to_main() -> None:
    """Block `MAIN_THREAD_SIGNALS` in the calling thread (a worker's first step; its own threads inherit the
    mask). Nothing on the main thread, nor where the platform has no per-thread mask."""
    if threading.current_thread() is threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)


def start_worker(target: Callable[..., object], *args: object, name: str) -> threading.Thread:
    """A daemon thread running `target(*args)` with the signals left to the main thread, started."""

    def run() -> None:
        leave_signals_to_main()
        target(*args)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
