"""`NormalizedRequirement`, Karpenter's per-key `Requirement`: a value set or its complement with optional
inclusive integer bounds; its intersection, and `intersects`, the per-key compatibility test."""

from __future__ import annotations

import msgspec

from .operators import ABSENT_OK, DOES_NOT_EXIST, EXISTS, IN, NOT_IN, go_atoi

__all__ = ["NormalizedRequirement", "intersects"]


def _within(value: str, gte: int | None, lte: int | None) -> bool:
    if gte is None and lte is None:
        return True
    number = go_atoi(value)
    if number is None:
        return False
    return (gte is None or number >= gte) and (lte is None or number <= lte)


def _max_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a > b else b


def _min_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a < b else b


class NormalizedRequirement(msgspec.Struct, frozen=True):
    """Karpenter's per-key `Requirement`: a value set or its complement, plus optional inclusive bounds."""

    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    gte: int | None = None
    lte: int | None = None
    min_values: int | None = None

    @property
    def operator(self) -> str:
        """Upstream `Operator()`: In / NotIn / Exists / DoesNotExist (bounded sets report Exists or NotIn)."""
        if self.complement:
            return NOT_IN if self.values else EXISTS
        return IN if self.values else DOES_NOT_EXIST

    @property
    def allows_absent(self) -> bool:
        """Whether a label set *without* this key satisfies it: DoesNotExist, or an unbounded NotIn."""
        if self.complement:
            return bool(self.values) and self.gte is None and self.lte is None
        return not self.values

    def has(self, value: str) -> bool:
        """Upstream `Has`: does the requirement allow this (present) label value?"""
        if (value in self.values) is self.complement:
            return False
        return _within(value, self.gte, self.lte)

    def matches_value(self, value: str | None) -> bool:
        """Does a concrete label value (None = label absent) satisfy this requirement?"""
        return self.allows_absent if value is None else self.has(value)

    def intersection(self, other: NormalizedRequirement) -> NormalizedRequirement:
        """Upstream `Intersection` (keeps `self.key`)."""
        complement = self.complement and other.complement
        gte = _max_opt(self.gte, other.gte)
        lte = _min_opt(self.lte, other.lte)
        min_values = _max_opt(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return NormalizedRequirement(self.key, False, min_values=min_values)
        if self.complement and other.complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        if gte is not None or lte is not None:
            values = frozenset(v for v in values if _within(v, gte, lte))
        if not complement:
            gte = lte = None
        return NormalizedRequirement(self.key, complement, values, gte, lte, min_values)

    def has_intersection(self, other: NormalizedRequirement) -> bool:
        """Upstream `HasIntersection`: is some *present* value allowed by both? (No allocation.)"""
        gte = _max_opt(self.gte, other.gte)
        lte = _min_opt(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement:
            if other.complement:
                return True
            excluded = self.values
            candidates = other.values
        elif other.complement:
            excluded = other.values
            candidates = self.values
        else:
            small, large = (self.values, other.values)
            if len(small) > len(large):
                small, large = large, small
            return any(v in large and _within(v, gte, lte) for v in small)
        return any(v not in excluded and _within(v, gte, lte) for v in candidates)

    def render(self, *, with_key: bool = True, legacy_bounds: bool = False) -> str:
        """Upstream `String()`: `key In [a b]`, `key Exists >=5`, `key NotIn [x] <=8 minValues 2`.

        Values are sorted and cut after 5 (`and N others`). `legacy_bounds` prints bounds the way v1.0-v1.8
        did (`>4` / `<9`, exclusive) instead of HEAD's `>=5` / `<=8`.
        """
        op = self.operator
        if op in (EXISTS, DOES_NOT_EXIST):
            text = op
        else:
            values = sorted(self.values)
            if len(values) > 5:
                values = [*values[:5], f"and {len(values) - 5} others"]
            text = f"{op} [{' '.join(values)}]"
        if self.gte is not None:
            text += f" >{self.gte - 1}" if legacy_bounds else f" >={self.gte}"
        if self.lte is not None:
            text += f" <{self.lte + 1}" if legacy_bounds else f" <={self.lte}"
        if self.min_values is not None:
            text += f" minValues {self.min_values}"
        return f"{self.key} {text}" if with_key else text

    def __str__(self) -> str:
        return self.render()


def intersects(a: NormalizedRequirement, b: NormalizedRequirement) -> bool:
    """Karpenter's per-key compatibility (symmetric): some value is allowed by both, or both operators are
    NotIn/DoesNotExist (a node without the label satisfies both)."""
    if a.has_intersection(b):
        return True
    return a.operator in ABSENT_OK and b.operator in ABSENT_OK
