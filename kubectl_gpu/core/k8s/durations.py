"""Times in lifecycle reports: the `FOREVER` sentinel, how soon is soon, and how times and durations read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubectl_gpu.core.k8s.times import format_age

__all__ = ["FOREVER", "SOON", "WEEK", "countdown", "duration_text", "timestamp", "when_text"]

FOREVER = datetime.max.replace(tzinfo=UTC)
SOON = timedelta(hours=24)
WEEK = timedelta(days=7)


def timestamp(value: datetime | None) -> str | None:
    """RFC 3339 in UTC with a `Z`, as in the JSON report; None for None and FOREVER."""
    if value is None or value == FOREVER:
        return None
    return value.isoformat().replace("+00:00", "Z")


def duration_text(delta: timedelta) -> str:
    """A duration the way NodePools write them: `504h`, `1h30m`, `45m`."""
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs else "")
    return text or "0s"


def countdown(delta: timedelta) -> str:
    """`now` when the time has come, else `in 3d4h`."""
    return "now" if delta.total_seconds() <= 0 else f"in {format_age(delta)}"


def when_text(at: datetime | None, now: datetime) -> str:
    """`2026-11-28T00:00:00Z (in 7h30m)`, or `never`."""
    if at is None or at == FOREVER:
        return "never"
    return f"{timestamp(at)} ({countdown(at - now)})"
