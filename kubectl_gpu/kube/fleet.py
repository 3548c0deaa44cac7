"""Read several clusters at once: a bounded set of worker threads, a deadline per cluster, and a cluster
that is slow or broken never holds the others back.

`gather(keys, work)` runs `work(key)` for every key, at most `parallel` at a time. Each key's clock starts
when its work starts; past `deadline` seconds the key is answered `TimedOut` and a fresh worker takes the
next key, so a hung cluster costs its own slot and nothing else. Workers are daemon threads: one still
waiting on a hung connection never keeps the process alive once the answer is written (each request also
has its own `--request-timeout`, so it ends on its own).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import msgspec

from kubectl_gpu.kube.worker_threads import WAIT_SLICE, start_worker

__all__ = ["MAX_PARALLEL", "Failed", "Outcome", "TimedOut", "cluster_deadline", "gather"]

#: How many clusters are read at once: each read is itself several concurrent lists.
MAX_PARALLEL = 8


def cluster_deadline(request_timeout: float | None) -> float | None:
    """A cluster's deadline in a fleet run: its whole read's (DEADLINE_FACTOR times --request-timeout),
    and one request more for the analysis; `--request-timeout 0` (None): none. The read's own deadline
    usually answers first. The CLI's fleet mode and the TUI's fleet overview both use it."""
    from kubectl_gpu.kube.transport import DEADLINE_FACTOR

    return None if request_timeout is None else request_timeout * (DEADLINE_FACTOR + 1)


T = TypeVar("T")


class Outcome(msgspec.Struct, Generic[T], frozen=True):
    key: str
    value: T


class Failed(msgspec.Struct, frozen=True):
    key: str
    error: BaseException


class TimedOut(msgspec.Struct, frozen=True):
    key: str
    seconds: float


Result = Outcome[T] | Failed | TimedOut


class _Gatherer(Generic[T]):
    def __init__(self, keys: Sequence[str], work: Callable[[str], T], parallel: int) -> None:
        self.work = work
        self.queue = deque(keys)
        self.parallel = max(1, parallel)
        self.cond = threading.Condition()
        self.started: dict[str, float] = {}
        self.results: dict[str, Result[T]] = {}
        self.running = 0

    def spawn(self) -> None:
        """Start workers until `parallel` are busy or no key is left (call with the lock held)."""
        while self.running < self.parallel and self.queue:
            key = self.queue.popleft()
            self.started[key] = time.monotonic()
            self.running += 1
            start_worker(self.run, key, name=f"fleet-{key}")

    def run(self, key: str) -> None:
        try:
            result: Result[T] = Outcome(key, self.work(key))
        except BaseException as exc:  # every failure is this key's answer, never the process's
            result = Failed(key, exc)
        with self.cond:
            if key not in self.results:  # else it was answered TimedOut, and its slot given away
                self.results[key] = result
                self.running -= 1
                self.spawn()
            self.cond.notify_all()

    def expire(self, deadline: float) -> float | None:
        """Answer every key past its deadline TimedOut (lock held); seconds until the next deadline."""
        now = time.monotonic()
        wait: float | None = None
        for key, start in list(self.started.items()):
            if key in self.results:
                continue
            left = start + deadline - now
            if left <= 0:
                self.results[key] = TimedOut(key, deadline)
                self.running -= 1
                self.spawn()
            else:
                wait = left if wait is None else min(wait, left)
        return wait


def gather(
    keys: Sequence[str],
    work: Callable[[str], T],
    *,
    parallel: int = MAX_PARALLEL,
    deadline: float | None = None,
) -> list[Result[T]]:
    """`work(key)` for every key (distinct), at most `parallel` at once, each within `deadline` seconds
    of its start (None: no deadline); the results in the order of `keys`."""
    if len(set(keys)) != len(keys):
        raise ValueError("gather: keys must be distinct")
    state = _Gatherer(keys, work, parallel)
    with state.cond:
        state.spawn()
        while len(state.results) < len(keys):
            wait = state.expire(deadline) if deadline is not None else None
            if len(state.results) < len(keys):
                state.cond.wait(timeout=WAIT_SLICE if wait is None else min(wait, WAIT_SLICE))
    return [state.results[key] for key in keys]
