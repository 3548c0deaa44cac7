"""Times in words: how long ago an event was, as the reasons say it, and an instant as the JSON writes it."""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = ["iso_time", "minutes_ago"]


def minutes_ago(delta: timedelta) -> str:
    """`12m ago`, or `just now` under a minute (never `0m ago`)."""
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes}m ago" if minutes > 0 else "just now"


# Events of one job share their times: each written once. By instant and offset (equal datetimes of two
# offsets are one instant, written two ways).
_TIME_TEXTS: dict[tuple[datetime, object], str] = {}


def iso_time(value: datetime | None) -> str | None:
    """ISO 8601, UTC written `Z`; None for none."""
    if not value:
        return None
    key = (value, value.utcoffset())
    found = _TIME_TEXTS.get(key)
    if found is None:
        found = value.isoformat().replace("+00:00", "Z")
        if len(_TIME_TEXTS) < 65536:
            _TIME_TEXTS[key] = found
    return found
