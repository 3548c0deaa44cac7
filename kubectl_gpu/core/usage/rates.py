"""Figures over a window of samples: counter rates across resets, gauge means. Pure.

A counter's increase is the sum of its rises from one sample to the next; a drop means the counter
restarted (the server or exporter restarted), so the increase over that step is the value after the drop
(it counted up from zero), as Prometheus's `increase()` treats it. The rate is the increase over the time
from the first sample to the last; with fewer than two good samples, or no time between them, it is
unknown (None), never zero. A good sample is finite and not below 0 (a counter never is): the others are
left out, so an increase or a rate is never negative, whatever a pod wrote.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec

__all__ = ["Point", "counter_increase", "counter_rate", "gauge_mean", "resets"]


class Point(msgspec.Struct, frozen=True, order=True):
    at: datetime
    value: float


def _sorted(points: Iterable[Point]) -> list[Point]:
    return sorted(p for p in points if math.isfinite(p.value) and p.value >= 0)


def counter_increase(points: Iterable[Point]) -> float | None:
    """How much the counter rose over the points (resets handled); None with fewer than two."""
    ordered = _sorted(points)
    if len(ordered) < 2:
        return None
    total = 0.0
    for before, after in itertools.pairwise(ordered):
        total += after.value - before.value if after.value >= before.value else after.value
    return total


def resets(points: Iterable[Point]) -> int:
    ordered = _sorted(points)
    return sum(1 for a, b in itertools.pairwise(ordered) if b.value < a.value)


def counter_rate(points: Sequence[Point]) -> float | None:
    """Increase per second from the first sample to the last; None when unknown."""
    ordered = _sorted(points)
    increase = counter_increase(ordered)
    if increase is None:
        return None
    seconds = (ordered[-1].at - ordered[0].at).total_seconds()
    return increase / seconds if seconds > 0 else None


def gauge_mean(values: Iterable[float | None]) -> float | None:
    """The mean of the known values; None when none is known."""
    known = [v for v in values if v is not None and math.isfinite(v)]
    return math.fsum(known) / len(known) if known else None
