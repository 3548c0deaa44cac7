"""Ctrl-C and SIGTERM: the first SIGINT / SIGTERM / SIGHUP raised as `KeyboardInterrupt` so `finally` cleanup
runs, the later ones unable to stop it; and API calls on the main thread that an interrupt cannot cut off
mid-request."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from kubectl_gpu.kube.worker_threads import WAIT_SLICE, start_worker

__all__ = ["interrupt_pending", "interrupts_on_sigterm", "say", "uninterruptible"]

#: set by the first signal of an `interrupts_on_sigterm` block: a `KeyboardInterrupt` raised while the main
#: thread ran a finalizer (a urllib3 pool closed by the collector) is printed and dropped by Python, so the
#: waiting loops look at this too (`interrupt_pending`) and raise it again
_PENDING = threading.Event()


def interrupt_pending() -> bool:
    """A first signal came in this block and its `KeyboardInterrupt` may have been dropped; consumed here."""
    if _PENDING.is_set():
        _PENDING.clear()
        return True
    return False


@contextlib.contextmanager
def interrupts_on_sigterm(
    on_again: Callable[[int], None] | None = None, *, on_first: Callable[[int], None] | None = None
) -> Iterator[None]:
    """For the duration: Ctrl-C, SIGTERM and SIGHUP raise `KeyboardInterrupt` once, so that `finally`
    cleanup runs (`on_first(signum)` first: say that debug pods are being deleted); every later one, until
    the block ends, only calls `on_again(signum)` (say that they are still being deleted). A second Ctrl-C
    or a supervisor's SIGTERM (CI cancelling a job sends SIGINT, then SIGTERM) cannot cut the deletes short,
    nor can the default handler kill the process mid-cleanup: the block holds the handlers until its end,
    cleanup included. The deletes are bounded (RunnerSettings.delete_budget, and each request its
    timeout); SIGKILL still ends it all. A callback that fails (stderr gone with the terminal, a write
    interrupted mid-write) is ignored: a message must never cut the cleanup short either.

    Only the main thread may install handlers; elsewhere (tests driving a runner) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = 0

    def interrupt(signum: int, frame: object) -> None:
        nonlocal seen
        seen += 1
        said = on_first if seen == 1 else on_again
        if said is not None:
            with contextlib.suppress(Exception):
                said(signum)
        if seen == 1:
            _PENDING.set()
            raise KeyboardInterrupt

    # A signal ignored on purpose (nohup ignores SIGHUP; `cmd &` in a script ignores SIGINT) stays ignored.
    wanted = [
        sig
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        if signal.getsignal(sig) is not signal.SIG_IGN
    ]
    saved: dict[signal.Signals, Any] = {}
    _PENDING.clear()
    printing = sys.unraisablehook
    sys.unraisablehook = _quiet_interrupts(printing)
    try:  # installed one by one inside the `try`: a signal between two installs still restores the first
        for sig in wanted:
            saved[sig] = signal.signal(sig, interrupt)
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        sys.unraisablehook = printing
        _PENDING.clear()


def _quiet_interrupts(printing: Callable[[Any], object]) -> Callable[[Any], None]:
    """An unraisable hook that drops, unprinted, the `KeyboardInterrupt` the handler raised into a finalizer
    (Python would print it with its traceback, `Exception ignored in: <finalize ...>`, under the user's
    Ctrl-C; `_PENDING` raises it again), and hands anything else to `printing`, the hook it replaces."""

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        printing(unraisable)

    return hook


def say(text: str) -> Callable[[int], None]:
    """A signal callback writing `text` (a line) straight to stderr's file descriptor: no buffer a write
    interrupted by the signal holds (Python refuses a reentrant write to it), no lock, no exception (a
    terminal gone after SIGHUP)."""
    data = text.encode("utf-8", "replace")

    def write(signum: int) -> None:
        with contextlib.suppress(OSError):
            os.write(2, data)

    return write


R = TypeVar("R")


def uninterruptible(call: Callable[[], R]) -> R:
    """Finish `call` even when Ctrl-C arrives meanwhile, then re-raise the interrupt.

    Only matters on the main thread (the shell): a create cut off mid-request may still create the pod on
    the server after we gave up on it, and we would never delete it.
    """
    if threading.current_thread() is not threading.main_thread():
        return call()
    box: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc
        finally:
            finished.set()

    start_worker(target, name="kubectl-gpu-request")
    interrupted = False
    while True:  # not Thread.join: after an interrupted join, is_alive() wrongly says False (CPython 3.11)
        try:
            if finished.wait(WAIT_SLICE):
                break
        except KeyboardInterrupt:
            interrupted = True
    if "error" in box:
        raise box["error"]
    if interrupted:
        raise KeyboardInterrupt
    value: R = box["value"]
    return value
