"""Duration flags (`smi --timeout`, `shell --timeout`, `tui --refresh`, `snapshot --usage-window`): seconds
from `90`, `90s` or `5m`. No typer here: a plain `tui` command line starts without it (cli.direct)."""

from __future__ import annotations

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.times import TimeError, parse_duration

__all__ = ["parse_seconds"]


def parse_seconds(text: str, flag: str) -> float:
    """`90`, `90s`, `5m` -> seconds; InvalidInput naming `flag` unless positive."""
    try:
        seconds = float(text) if text.replace(".", "", 1).isdigit() else parse_duration(text).total_seconds()
    except (TimeError, ValueError):  # ValueError: isdigit() admits digits float() rejects ("²")
        raise InvalidInput(f"{flag}: not a duration: {text!r}", "use forms like 90s, 5m") from None
    except OverflowError:  # beyond timedelta's range
        seconds = float("inf")
    if seconds <= 0:
        raise InvalidInput(f"{flag} must be positive")
    if seconds > _MAX_SECONDS:  # sockets and deadlines overflow on timeouts of millennia
        raise InvalidInput(f"{flag}: {text!r} is too long", "at most 24h")
    return seconds


_MAX_SECONDS = 86400.0
