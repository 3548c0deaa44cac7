"""How long ago an event was, as the reasons say it."""

from __future__ import annotations

from datetime import timedelta

__all__ = ["minutes_ago"]


def minutes_ago(delta: timedelta) -> str:
    """`12m ago`, or `just now` under a minute (never `0m ago`)."""
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes}m ago" if minutes > 0 else "just now"
