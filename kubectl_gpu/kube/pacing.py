"""When a source kept open (`-w`, the TUI) may read the cluster again: client-go's reflector discipline.

After a read, each list is watched from its resourceVersion (`changes`); what the watches answer decides:
- nothing changed: the last state stands, and no list is sent;
- something changed: list again, at once;
- 410 Gone: list again at once, once; a second 410 straight after is a failure (a server that compacts
  every revision must not turn into a relist loop);
- 403 on the watch (a role with `list` but not `watch`): poll instead, a whole read every `POLL_SECONDS`,
  and say so in a note;
- anything else (5xx, garbage, a broken stream, no answer): back off before the next read, from 0.8 s
  doubling to 30 s with up to as much again of jitter, as client-go's reflector
  (`NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)`): the backoff resets after two quiet minutes.
A read that could not see everything (a forbidden kind, discovery unreadable) is kept and watched like any
other; the kinds it missed are asked again every `RECHECK_SECONDS`, never on every loop.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from kubectl_gpu.core.k8s.state import Note
from kubectl_gpu.kube.changes import WatchAnswer

__all__ = ["MIN_CHECK_SECONDS", "POLL_SECONDS", "RECHECK_SECONDS", "Backoff", "ReadPacer"]

#: A whole read this often when watching is forbidden.
POLL_SECONDS = 10.0
#: A read that missed kinds (forbidden, discovery unreadable) is done again this often to see them again.
RECHECK_SECONDS = 60.0
#: One round of watches starts this long after the one before at the soonest (a server that ends every
#: watch at once, ignoring timeoutSeconds, must not turn the watches into a loop).
MIN_CHECK_SECONDS = 1.0


class Backoff:
    """client-go's exponential backoff manager: `initial` doubling to `cap`, plus jitter up to `jitter` times
    the step; back to `initial` once `reset_after` seconds pass without a failure."""

    def __init__(
        self,
        *,
        initial: float = 0.8,
        cap: float = 30.0,
        reset_after: float = 120.0,
        jitter: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        draw: Callable[[], float] = random.random,
    ) -> None:
        self.initial, self.cap, self.reset_after, self.jitter = initial, cap, reset_after, jitter
        self._clock, self._draw = clock, draw
        self._step = 0.0
        self._last: float | None = None

    def next(self) -> float:
        """The wait before the next try, after one more failure."""
        now = self._clock()
        if self._last is None or now - self._last > self.reset_after:
            self._step = self.initial
        else:
            self._step = min(self._step * 2, self.cap)
        self._last = now
        return self._step + self._step * self.jitter * self._draw()


class ReadPacer:
    """What the next `load` of an open source may do, from what the watches answered."""

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, backoff: Backoff | None = None
    ) -> None:
        self.clock = clock
        self.backoff = backoff or Backoff(clock=clock)
        self.not_before = 0.0  # no request before this instant (monotonic)
        self.polling = False  # the watch was forbidden: read whole every POLL_SECONDS
        self.recheck_at: float | None = None  # when a read that missed kinds is done again
        self.relist_now = False  # the next load lists again without watching first
        self._after_expiry = False  # the read before was caused by a 410
        self.failures = 0  # failed watches in a row
        self.problem = ""  # what the last failed watch met, one line
        self.reads = 0  # whole reads done

    def wait(self) -> float:
        """Seconds until the next read may send anything (0: now)."""
        return max(0.0, self.not_before - self.clock())

    def read_done(self, *, complete: bool) -> None:
        """A whole read ended; `complete`: it saw every kind it asked for."""
        self.reads += 1
        self.failures = 0
        now = self.clock()
        self.relist_now = False
        self.recheck_at = None if complete else now + RECHECK_SECONDS
        if self.polling:
            self.not_before = now + POLL_SECONDS

    def urge(self) -> None:
        """A person asked to read now (the TUI's `r`): the wait is skipped once, the budget still holds."""
        self.not_before = 0.0

    def failing(self) -> str | None:
        """While backing off after a failed watch: what failed, and when the next try is."""
        if not self.failures or self.wait() <= 0:
            return None
        return f"{self.problem or 'watching the cluster failed'}; showing the last state, next try in {self.wait():.1f}s"

    def must_relist(self) -> bool:
        """Whether the next load reads whole without watching (polling, a recheck, or after a failure)."""
        if self.polling or self.relist_now:
            return True
        return self.recheck_at is not None and self.clock() >= self.recheck_at

    def answered(self, answers: list[WatchAnswer], started: float, problems: Sequence[str] = ()) -> bool:
        """Take what the watches begun at `started` answered (and what the failed ones met); True: read
        again now."""
        self.problem = problems[0] if problems else ""
        self.not_before = max(self.not_before, started + MIN_CHECK_SECONDS)
        expired = WatchAnswer.EXPIRED in answers
        if WatchAnswer.CHANGED in answers or (expired and not self._after_expiry):
            self._after_expiry = expired and WatchAnswer.CHANGED not in answers
            self.failures = 0
            return True
        if WatchAnswer.FORBIDDEN in answers:
            self.polling = True
            self.not_before = self.clock() + POLL_SECONDS
            return False
        if expired or WatchAnswer.FAILED in answers:
            if expired and not self.problem:
                self.problem = "the watch's revision was compacted again right after listing (410 Gone)"
            self._after_expiry = self._after_expiry or expired  # a 410 after this failure is one too
            self.failures += 1
            self.not_before = self.clock() + self.backoff.next()
            self.relist_now = True  # as client-go: after a failed watch, list and watch again
            return False
        self._after_expiry = False
        self.failures = 0
        return False

    def notes(self) -> list[Note]:
        """What the user must know about how the source is reading."""
        if self.polling:
            return [
                Note(
                    "POLLING",
                    f"forbidden to watch: the cluster is read whole every {POLL_SECONDS:g}s instead "
                    "(needs RBAC verb 'watch' on the kinds read)",
                )
            ]
        return []
