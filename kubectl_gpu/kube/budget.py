"""A client-side request budget, as client-go's token-bucket rate limiter (`flowcontrol.NewTokenBucketRateLimiter`).

Every request through a `Transport` takes a token first: `burst` tokens are there at the start, and they come
back at `qps` a second. A command that reads the cluster once (discovery, ~10 kinds, ~10 event lists) fits in
the burst and never waits; a loop that reads again and again (`-w`, the TUI, a failure that repeats) is held
to `qps` requests a second whatever happens. The wait is on the caller's thread and never past its deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import msgspec

__all__ = ["DEBUG_PODS_BUDGET", "LIST_BUDGET", "BudgetSettings", "RequestBudget", "budgets_used"]

#: (what is paced, its settings) -> [requests, seconds waited], over the whole process: for --debug
_TOTALS: dict[tuple[str, BudgetSettings], list[float]] = {}
_TOTALS_LOCK = threading.Lock()


class BudgetSettings(msgspec.Struct, frozen=True):
    """Sustained requests a second, and how many may go at once after a quiet spell."""

    qps: float
    burst: int

    def describe(self) -> str:
        return f"{self.qps:g} requests/s, burst {self.burst}"


#: Reads of the cluster (lists, watches, discovery, GETs). client-go's defaults are 5 and 10; the burst here
#: holds one whole read (~25 requests) so a one-shot command never waits, while any loop is held to 5/s.
LIST_BUDGET = BudgetSettings(qps=5.0, burst=30)
#: The debug pods' own requests (create, a GET per pod polled, log, delete). A pod is looked at up to 10 times
#: in its first second (`poll_delay`): the default fan-out (8 pods at a time) of pods done within a second
#: sends ~100 requests a second, so the budget holds that, no more, as `usage`'s metrics reads' does (a
#: budget of 20 made every request of 8 pods queue behind the others' polls, deletes included: `smi --all` on
#: 40 such nodes took 2x its fan-out). A larger --concurrency is held to it; no list is sent in a loop.
DEBUG_PODS_BUDGET = BudgetSettings(qps=100.0, burst=100)


class RequestBudget:
    """A token bucket shared by the threads of one connection."""

    def __init__(
        self,
        settings: BudgetSettings = LIST_BUDGET,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = float(settings.burst)
        self._stamp = clock()
        self.taken = 0  # requests let through
        self.waited = 0.0  # seconds spent waiting for a token, all threads together
        self.label = ""  # what it paces (the server), for --debug

    def reserve(self) -> float:
        """Take a token; the seconds to wait before using it (0 when one was there)."""
        with self._lock:
            now = self._clock()
            rate, burst = self.settings.qps, float(self.settings.burst)
            self._tokens = min(burst, self._tokens + (now - self._stamp) * rate)
            self._stamp = now
            self._tokens -= 1.0
            self.taken += 1
            wait = 0.0 if self._tokens >= 0 else -self._tokens / rate
            self.waited += wait
        with _TOTALS_LOCK:
            total = _TOTALS.setdefault((self.label, self.settings), [0, 0.0])
            total[0] += 1
            total[1] += wait
        return wait

    def take(self, limit: float | None = None) -> bool:
        """Wait for a token; False (the token given back) when that would take longer than `limit` seconds."""
        wait = self.reserve()
        if limit is not None and wait > limit:
            with self._lock:
                self._tokens += 1.0
                self.taken -= 1
                self.waited -= wait
            with _TOTALS_LOCK:
                total = _TOTALS[(self.label, self.settings)]
                total[0] -= 1
                total[1] -= wait
            return False
        if wait > 0:
            self._sleep(wait)
        return True


def budgets_used() -> list[str]:
    """One line per budget that let a request through since the last call: for `--debug`."""
    with _TOTALS_LOCK:
        totals = sorted(_TOTALS.items(), key=lambda item: item[0][0])
        _TOTALS.clear()
    return [
        f"{label or 'requests'}: {int(taken)} requests, budget {settings.describe()}, waited {waited:.2f}s for it"
        for (label, settings), (taken, waited) in totals
        if taken
    ]
