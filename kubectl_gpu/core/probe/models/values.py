"""The value normalisation the nvidia-smi parsers share, and the JSON value type of every ``to_dict()``.

nvidia-smi prints ``N/A``, ``[Not Supported]`` or an NVML error such as ``[Unknown Error]`` where a value would
be; :func:`clean`, :func:`number`, :func:`integer` and :func:`yes_no` turn those into ``None``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

from kubectl_gpu.core.lazy_pattern import lazy_pattern

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"

__all__ = ["JsonValue", "clean", "error_value", "integer", "is_na", "json_list", "number", "yes_no"]

#: Values meaning "this field does not exist here" (lower-cased, brackets removed). They become ``None``.
_NA_VALUES = frozenset(
    {
        "",
        "n/a",
        "na",
        "not supported",
        "requested functionality has been deprecated",
        "not available",
        "not available in wddm driver model",
        "none reported",
        "not found",  # <cuda_version>Not Found</cuda_version>: no CUDA driver library in reach
    }
)

_NUMBER_RE = lazy_pattern(r"^([-+]?[0-9]{1,30}(?:\.[0-9]{1,30})?)\s*(?:[A-Za-z%/]+(?:\(s\))?)?$")


def _unbracket(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == "[" and value[-1] == "]":
        return value[1:-1].strip()
    return value


def is_na(value: str | None) -> bool:
    """True for ``None`` and the "no value here" spellings of nvidia-smi (``N/A``, ``[Not Supported]`` …)."""
    return value is None or _unbracket(value).lower() in _NA_VALUES


#: NVML error strings nvidia-smi prints instead of a value (lower-cased), often in brackets.
_ERROR_VALUES = frozenset(
    {
        "unknown error",
        "gpu is lost",
        "gpu requires reset",
        "insufficient permissions",
        "timeout",
        "driver not loaded",
        "corrupted inforom",
        "memory error",
        "gpu access blocked by the operating system",
        "driver/library version mismatch",
        "in use by another client",
        "not ready",
        "invalid state",
        "gpu not found",
        "no data",
        "uninitialized",
        "interrupt request issue",
        "insufficient external power",
    }
)


def error_value(value: str | None) -> str | None:
    """The NVML error nvidia-smi printed instead of a value, e.g. ``[Unknown Error]`` -> ``Unknown Error``.

    Returns ``None`` for ordinary values and for the "no value" spellings.
    """
    if value is None:
        return None
    inner = _unbracket(value)
    return inner if inner.lower() in _ERROR_VALUES else None


def clean(value: str | None) -> str | None:
    """Stripped text, or ``None`` for missing / not-applicable / bracketed error values."""
    if value is None or is_na(value) or error_value(value) is not None:
        return None
    return value.strip()


def _numeric(value: str | None) -> str | None:
    text = clean(value)
    if text is None:
        return None
    match = _NUMBER_RE.match(text)
    return None if match is None else match.group(1)


def number(value: str | None) -> float | None:
    """The leading number of ``"81920 MiB"``, ``"91 %"``, ``"67.03 W"``, ``"27 C"``; ``None`` when there is none."""
    text = _numeric(value)
    return None if text is None else float(text)


def integer(value: str | None) -> int | None:
    """Like :func:`number`, as an ``int`` (a fraction is truncated)."""
    text = _numeric(value)
    return None if text is None else int(text.split(".", 1)[0])


def yes_no(value: str | None) -> bool | None:
    """``Yes``/``No`` (and ``Enabled``/``Disabled``, ``True``/``False``) as a bool; anything else ``None``."""
    text = clean(value)
    if text is None:
        return None
    low = text.lower()
    if low in {"yes", "enabled", "true", "active"}:
        return True
    if low in {"no", "disabled", "false", "not active"}:
        return False
    return None


def json_list(items: Iterator[JsonValue]) -> list[JsonValue]:
    """The ``to_dict()`` of each item, as a JSON list."""
    return list(items)
