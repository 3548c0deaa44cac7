"""Time parsing and formatting. `now` is always passed in: the core never reads the clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "TimeError",
    "format_age",
    "go_duration",
    "parse_duration",
    "parse_go_duration",
    "parse_time",
]


class TimeError(InvalidInput):
    """A timestamp or duration we cannot read."""


@lru_cache(maxsize=65536)
def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 timestamp (as Kubernetes writes them) into an aware UTC datetime.

    Cached: pods of one Deployment share their timestamps, and a fleet snapshot holds hundreds of thousands.
    """
    try:
        value = datetime.fromisoformat(text)
    except (ValueError, TypeError) as exc:
        raise TimeError(f"not an RFC 3339 time: {text!r}") from exc
    if value.tzinfo is None:
        raise TimeError(f"time has no timezone: {text!r} (write it like 2026-11-29T12:00:00Z)")
    if value.utcoffset():
        value = value.astimezone(UTC)
    elif value.tzinfo is not UTC:
        value = value.replace(tzinfo=UTC)
    return value


def parse_optional_time(text: object) -> datetime | None:
    """Parse a timestamp field that may be absent or malformed (then None)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return parse_time(text)
    except TimeError:
        return None


_DURATION_PART = lazy_pattern(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)")
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86400,
    "w": 604800,
}


def parse_duration(text: str) -> timedelta:
    """Parse a Go duration ("336h", "24h0m0s", "90m") or a day count ("11d") into a timedelta."""
    stripped = text.strip()
    if not stripped:
        raise TimeError("empty duration")
    position = 0
    seconds = 0.0
    for match in _DURATION_PART.finditer(stripped):
        if match.start() != position:
            break
        seconds += float(match[1]) * _UNIT_SECONDS[match[2]]
        position = match.end()
    if position != len(stripped) or position == 0:
        raise TimeError(f"not a duration: {text!r} (use forms like 336h, 24h0m0s, 11d)")
    try:
        return timedelta(seconds=seconds)
    except OverflowError:
        raise TimeError(f"duration too long: {text!r}") from None


_GO_DURATION = lazy_pattern(r"([0-9]*\.?[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
_GO_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


_GO_MAX_SECONDS = 9223372036.854775807  # Go's Duration is int64 nanoseconds (about 292 years)


def parse_go_duration(text: str) -> timedelta | None:
    """Go's `time.ParseDuration` (units ns..h, optional sign, decimals); None when Go would reject it.

    Unlike `parse_duration` it has no `d`/`w` units: Karpenter parses `do-not-disrupt` with Go, so a value
    Go rejects must be rejected here too.
    """
    body = text
    sign = 1
    if body[:1] in ("+", "-"):
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return timedelta(0)
    position = 0
    seconds = 0.0
    for match in _GO_DURATION.finditer(body):
        if match.start() != position:
            return None
        seconds += float(match[1]) * _GO_UNIT[match[2]]
        position = match.end()
    if position == 0 or position != len(body) or seconds > _GO_MAX_SECONDS:  # Go: "invalid duration"
        return None
    try:
        return timedelta(seconds=sign * seconds)
    except OverflowError:
        return None


def go_duration(seconds: float) -> str:
    """Seconds as Go's `time.Duration.String` writes them (kubectl's spelling in its messages): 0s, 10µs,
    1.5s, 1m30s, 25h0m0s; never an exponent (`1e-05s`)."""
    if seconds != seconds or abs(seconds) > 9.2e9:  # NaN, or beyond Go's range (about 292 years)
        return "forever"
    ns = round(seconds * 1e9)
    sign, ns = ("-" if ns < 0 else ""), abs(ns)
    if ns == 0:
        return "0s"
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _go_decimal(ns, size) + unit
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = _go_decimal(rest, 1_000_000_000) + "s"
    if hours or minutes:
        text = f"{minutes}m" + text
    if hours:
        text = f"{hours}h" + text
    return sign + text


def _go_decimal(value: int, size: int) -> str:
    whole, fraction = divmod(value, size)
    if not fraction:
        return str(whole)
    digits = str(fraction).rjust(len(str(size)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def format_age(delta: timedelta) -> str:
    """kubectl-style age: 45s, 12m, 5h3m, 3d4h, 120d."""
    seconds = int(delta.total_seconds())
    if seconds < 0:
        return "-" + format_age(-delta)
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest and hours < 8 else f"{hours}h"
    days = hours // 24
    if days < 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    return f"{days}d"
