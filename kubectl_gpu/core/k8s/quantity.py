"""Kubernetes resource quantities, parsed exactly.

`resource.Quantity` accepts a signed decimal number (optionally in scientific notation) followed by a
binary suffix (Ki..Ei), a decimal suffix (n, u, m, k, M, G, T, P, E) or nothing. We keep the exact value as
a `Decimal` so that "1500m" + "500m" is exactly 2 and "16Gi" is exactly 17179869184.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from functools import lru_cache

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["QuantityError", "format_quantity", "parse_quantity"]

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_PATTERN = lazy_pattern(
    r"^(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?\d+)|(?P<dec>[numkMGTPE]?))$"
)
# Kubernetes rejects quantities beyond roughly 2^63 in their canonical unit; anything beyond 1e30 is
# certainly a typo or an attack on our arithmetic, never a real request.
_ABSURD = Decimal("1e30")


class QuantityError(InvalidInput):
    """A string that is not a Kubernetes quantity."""


@lru_cache(maxsize=4096, typed=True)  # typed: `True == 1 == 1.0` as keys, and each reads differently
def parse_quantity(text: str | int | float) -> Decimal:
    """Parse a Kubernetes quantity ("500m", "16Gi", "1e3", 2) into an exact Decimal."""
    if isinstance(text, bool):
        raise QuantityError(f"not a quantity: {text!r}")
    if isinstance(text, int):
        return Decimal(text)
    if isinstance(text, float):
        return Decimal(repr(text))
    match = _PATTERN.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise QuantityError(f"not a quantity: {text!r}")
    try:
        number = Decimal(match["num"])
        if match["bin"]:
            value = number * _BINARY[match["bin"]]
        elif match["exp"]:
            exponent = int(match["exp"][1:])
            if abs(exponent) > 60:
                raise QuantityError(f"quantity out of range: {text!r}")
            value = number.scaleb(exponent)
        else:
            value = number * _DECIMAL[match["dec"] or ""]
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only valid numbers
        raise QuantityError(f"not a quantity: {text!r}") from exc
    if abs(value) > _ABSURD:
        raise QuantityError(f"quantity out of range: {text!r}")
    return value


def format_quantity(value: Decimal, *, binary: bool = False) -> str:
    """Render a quantity compactly: 2, 1500m, 16Gi (binary=True for bytes)."""
    if binary and value >= 1024 and value == value.to_integral_value():
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            unit = _BINARY[suffix]
            if value % unit == 0:
                return f"{int(value // unit)}{suffix}"
    if value == value.to_integral_value():
        return str(int(value))
    millis = value * 1000
    if millis == millis.to_integral_value():
        return f"{int(millis)}m"
    return format(value.normalize(), "f")
