"""The requirement operators, Go's `strconv.Atoi` that the bound operators read their value with, and the
error for a requirement Karpenter / the API server would reject."""

from __future__ import annotations

import re

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "ABSENT_OK",
    "BOUND_OPERATORS",
    "DOES_NOT_EXIST",
    "EXISTS",
    "GT",
    "GTE",
    "IN",
    "INT64_MAX",
    "INT64_MIN",
    "LT",
    "LTE",
    "NOT_IN",
    "OPERATORS",
    "RequirementError",
    "go_atoi",
]

IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"
GT = "Gt"
LT = "Lt"
GTE = "Gte"
LTE = "Lte"
OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT, GTE, LTE})
BOUND_OPERATORS = frozenset({GT, LT, GTE, LTE})
#: Operators a node without the label satisfies: exempt from the unknown-label check; two always intersect.
ABSENT_OK = frozenset({NOT_IN, DOES_NOT_EXIST})

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_ATOI = lazy_pattern(r"[+-]?[0-9]+\Z", re.ASCII)


class RequirementError(InvalidInput):
    """A requirement that Karpenter / the API server would reject (one-line message)."""


def go_atoi(text: str) -> int | None:
    """Go `strconv.Atoi` on a 64-bit platform: optional sign, ASCII digits, int64 range; None on error."""
    if not _ATOI.match(text):
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None
