"""The fan-out: work over items on worker threads while the calling thread only waits, so a Ctrl-C lands
there, cancels the workers and gives them time to delete their pods."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from kubectl_gpu.kube.debug.runner.signals import interrupt_pending
from kubectl_gpu.kube.worker_threads import WAIT_SLICE, leave_signals_to_main

__all__ = ["run_parallel"]


T = TypeVar("T")
R = TypeVar("R")


def run_parallel(
    items: Sequence[T],
    work: Callable[[T], R],
    *,
    concurrency: int,
    cancel: threading.Event,
    grace: float = 30.0,
    on_done: Callable[[T, R], None] | None = None,
    on_interrupt: Callable[[], None] | None = None,
) -> list[R]:
    """`work` over `items` on `concurrency` threads, results in order. The calling thread only waits, so a
    KeyboardInterrupt lands here: it sets `cancel`, gives running workers `grace` seconds to unwind (they
    delete their pods), and re-raises."""
    pool = ThreadPoolExecutor(
        max_workers=max(1, concurrency),
        thread_name_prefix="kubectl-gpu-pod",
        initializer=leave_signals_to_main,
    )
    futures: dict[Future[R], T] = {}
    try:
        for item in items:
            futures[pool.submit(work, item)] = item
        pending = set(futures)
        while pending:
            if interrupt_pending():  # its KeyboardInterrupt was dropped in a finalizer: raised here again
                raise KeyboardInterrupt
            done, pending = wait(pending, timeout=WAIT_SLICE, return_when=FIRST_COMPLETED)
            for future in done:
                if on_done is not None and future.exception() is None:
                    on_done(futures[future], future.result())
        return [future.result() for future in futures]
    except KeyboardInterrupt:
        interrupt_pending()  # taken: not raised a second time
        cancel.set()
        if on_interrupt is not None:
            with contextlib.suppress(Exception):  # stderr gone (CI's log reader, a closed terminal): the
                on_interrupt()  # message is lost, never the workers' time to delete their pods
        for future in futures:
            future.cancel()
        _wait_in_slices(set(futures), grace)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _wait_in_slices(futures: set[Future[R]], grace: float) -> None:
    """Wait up to `grace` seconds for `futures`, a slice at a time (`WAIT_SLICE`): the later signals' "still
    deleting" is said while the workers delete, not once they are done."""
    end = time.monotonic() + grace
    while futures and (left := end - time.monotonic()) > 0:
        _, futures = wait(futures, timeout=min(left, WAIT_SLICE))
