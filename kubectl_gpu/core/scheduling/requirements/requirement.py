"""`Requirement`, one raw `{key, operator, values, minValues}`: validated, read from a dict, normalised to a
`NormalizedRequirement`, and matched against labels with label-selector semantics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .labels import NORMALIZED_LABELS
from .normalized import NormalizedRequirement
from .operators import (
    BOUND_OPERATORS,
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    GTE,
    IN,
    INT64_MAX,
    LT,
    NOT_IN,
    OPERATORS,
    RequirementError,
    go_atoi,
)

__all__ = ["Requirement", "normalized"]

_NORMALIZED: dict[tuple[object, ...], NormalizedRequirement] = {}
_NORMALIZED_MAX = 50_000  # distinct requirements kept (a NodePool sets a few dozen)


def normalized(d: Mapping[str, Any]) -> NormalizedRequirement:
    """`Requirement.from_dict(d).normalize()`, once per distinct requirement of a plain shape (a key, an
    operator, values and minValues, each of its usual type: the key holds every value's type, as `from_dict`
    reads `4` and `"4"` alike but refuses `true`). NodePools repeat the same requirements, and `pending` and
    `lint` read each pool's: 1,207 distinct of the 4,236 that bench's 300 pools set. One that does not read
    raises as `from_dict` does, each time."""
    values = d.get("values")
    if type(values) is not list:
        return Requirement.from_dict(d).normalize()
    least = d.get("minValues")
    key = (d.get("key"), d.get("operator"), tuple(values), tuple(map(type, values)), least, type(least))
    try:
        found = _NORMALIZED.get(key)
    except TypeError:  # a value or minValues that cannot be hashed: read, and refused, by `from_dict`
        return Requirement.from_dict(d).normalize()
    if found is None:
        found = Requirement.from_dict(d).normalize()
        if len(_NORMALIZED) < _NORMALIZED_MAX:
            _NORMALIZED[key] = found
    return found


class Requirement(msgspec.Struct, frozen=True):
    """One raw `{key, operator, values, minValues}` (NodePool requirement or pod `matchExpression`)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    min_values: int | None = None

    def __post_init__(self) -> None:
        if not self.key:
            raise RequirementError("requirement key must not be empty")
        if self.operator not in OPERATORS:
            raise RequirementError(
                f"requirement {self.key!r}: unknown operator {self.operator!r} "
                f"(expected one of {', '.join(sorted(OPERATORS))})"
            )
        if self.operator in BOUND_OPERATORS and (len(self.values) != 1 or go_atoi(self.values[0]) is None):
            raise RequirementError(
                f"requirement {self.key!r}: operator {self.operator} needs exactly one integer value, "
                f"got {list(self.values)!r}"
            )
        if self.min_values is not None and (isinstance(self.min_values, bool) or self.min_values < 1):
            raise RequirementError(f"requirement {self.key!r}: minValues must be a positive integer")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Requirement:
        key = d.get("key")
        if not isinstance(key, str):
            raise RequirementError(f"requirement key must be a string, got {type(key).__name__}")
        operator = d.get("operator")
        if not isinstance(operator, str):
            raise RequirementError(f"requirement {key!r}: operator must be a string")
        raw_values = d.get("values")
        values: list[str] = []
        if raw_values is not None:
            if not isinstance(raw_values, list | tuple):
                raise RequirementError(f"requirement {key!r}: values must be a list")
            for v in raw_values:
                if isinstance(v, str):
                    values.append(v)
                elif isinstance(v, int) and not isinstance(v, bool):
                    values.append(str(v))  # hand-written YAML: `values: [4]`
                else:
                    raise RequirementError(f"requirement {key!r}: values must be strings, got {v!r}")
        min_values = d.get("minValues")
        if min_values is not None and (isinstance(min_values, bool) or not isinstance(min_values, int)):
            raise RequirementError(f"requirement {key!r}: minValues must be an integer")
        return cls(key=key, operator=operator, values=tuple(values), min_values=min_values)

    @property
    def bound(self) -> int | None:
        """The integer of a Gt/Lt/Gte/Lte requirement, else None."""
        return go_atoi(self.values[0]) if self.operator in BOUND_OPERATORS else None

    def normalize(self, *, normalize_label_key: bool = True) -> NormalizedRequirement:
        """Karpenter's `NewRequirementWithFlexibility`."""
        key = NORMALIZED_LABELS.get(self.key, self.key) if normalize_label_key else self.key
        op = self.operator
        mv = self.min_values
        if op == IN:
            return NormalizedRequirement(key, False, frozenset(self.values), min_values=mv)
        if op == NOT_IN:
            return NormalizedRequirement(key, True, frozenset(self.values), min_values=mv)
        if op == EXISTS:
            return NormalizedRequirement(key, True, min_values=mv)
        if op == DOES_NOT_EXIST:
            return NormalizedRequirement(key, False, min_values=mv)
        n = go_atoi(self.values[0])
        assert n is not None  # validated in __post_init__
        if op == GT:
            if n == INT64_MAX:  # upstream: "Gt MaxInt matches nothing" (minValues dropped, like upstream)
                return NormalizedRequirement(key, False)
            return NormalizedRequirement(key, True, gte=n + 1, min_values=mv)
        if op == LT:
            return NormalizedRequirement(key, True, lte=n - 1, min_values=mv)
        if op == GTE:
            return NormalizedRequirement(key, True, gte=n, min_values=mv)
        return NormalizedRequirement(key, True, lte=n, min_values=mv)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Label-selector semantics on this exact key (no normalisation): In/NotIn/Exists/DoesNotExist, and
        Gt/Lt/Gte/Lte against the label parsed as a Go int (absent or non-integer labels fail)."""
        value = labels.get(self.key)
        op = self.operator
        if op == IN:
            return value is not None and value in self.values
        if op == NOT_IN:
            return value is None or value not in self.values
        if op == EXISTS:
            return value is not None
        if op == DOES_NOT_EXIST:
            return value is None
        if value is None:
            return False
        n = go_atoi(value)
        bound = self.bound
        if n is None or bound is None:
            return False
        if op == GT:
            return n > bound
        if op == LT:
            return n < bound
        if op == GTE:
            return n >= bound
        return n <= bound

    def __str__(self) -> str:
        return f"{self.key} {self.operator} [{' '.join(self.values)}]"
