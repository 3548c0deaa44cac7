"""`Requirements`, Karpenter's set of requirements (label key -> `NormalizedRequirement`): built from
requirements, a `nodeSelector` or labels; intersected; checked for compatibility; matched against labels."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, Mapping
from dataclasses import dataclass, field
from typing import Any

from .incompatibility import Conflict, Incompatibility, UnknownLabel, label_hint
from .labels import LABEL_ALIASES, NORMALIZED_LABELS, RESTRICTED_LABELS
from .normalized import NormalizedRequirement, intersects
from .operators import ABSENT_OK
from .requirement import Requirement

__all__ = ["Requirements"]


def _coerce(req: Requirement | NormalizedRequirement | Mapping[str, Any]) -> NormalizedRequirement:
    if isinstance(req, NormalizedRequirement):
        return req
    if isinstance(req, Requirement):
        return req.normalize()
    return Requirement.from_dict(req).normalize()


@dataclass(frozen=True, slots=True, eq=False)
class Requirements:
    """Karpenter's `Requirements`: label key -> `NormalizedRequirement`. Immutable: `add` returns a copy.

    Build with `Requirements.of(...)`, `from_dicts`, `from_node_selector`, `from_labels`; the `by_key`
    mapping is owned by the instance and must not be mutated.
    """

    by_key: Mapping[str, NormalizedRequirement] = field(default_factory=dict)

    # -- construction -------------------------------------------------------------------------------------
    @classmethod
    def of(cls, *reqs: Requirement | NormalizedRequirement | Mapping[str, Any]) -> Requirements:
        """Requirements from raw/normalised requirements or dicts; a key given twice is intersected."""
        out: dict[str, NormalizedRequirement] = {}
        for item in reqs:
            req = _coerce(item)
            prev = out.get(req.key)
            out[req.key] = req if prev is None else req.intersection(prev)
        return cls(out)

    @classmethod
    def from_dicts(cls, items: Iterable[Mapping[str, Any]]) -> Requirements:
        """From NodePool `spec.template.spec.requirements` / a `matchExpressions` list."""
        return cls.of(*(Requirement.from_dict(d) for d in items))

    @classmethod
    def from_node_selector(cls, selector: Mapping[str, str]) -> Requirements:
        """A pod `nodeSelector`: each `k: v` is `k In [v]` (key normalised, like upstream)."""
        out: dict[str, NormalizedRequirement] = {}
        for k, v in selector.items():
            req = NormalizedRequirement(NORMALIZED_LABELS.get(k, k), False, frozenset((v,)))
            prev = out.get(req.key)
            out[req.key] = req if prev is None else req.intersection(prev)
        return cls(out)

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> Requirements:
        """A NodePool's template labels (or any label map): each label is `k In [v]`."""
        return cls.from_node_selector(labels)

    def add(self, *reqs: Requirement | NormalizedRequirement | Mapping[str, Any]) -> Requirements:
        """A copy with `reqs` intersected in."""
        out = dict(self.by_key)
        for item in reqs:
            req = _coerce(item)
            prev = out.get(req.key)
            out[req.key] = req if prev is None else req.intersection(prev)
        return Requirements(out)

    def intersection(self, other: Requirements) -> Requirements:
        """Both sets of constraints at once (pool + pod, used to filter instance types)."""
        if not other.by_key:
            return self
        if not self.by_key:
            return other
        out = dict(self.by_key)
        for key, req in other.by_key.items():
            prev = out.get(key)
            out[key] = req if prev is None else req.intersection(prev)
        return Requirements(out)

    # -- mapping-ish ----------------------------------------------------------------------------------------
    def get(self, key: str) -> NormalizedRequirement | None:
        return self.by_key.get(key)

    def get_or_exists(self, key: str) -> NormalizedRequirement:
        """Upstream `Get`: an undefined key reads as `Exists`."""
        req = self.by_key.get(key)
        return NormalizedRequirement(key, True) if req is None else req

    def keys(self) -> KeysView[str]:
        return self.by_key.keys()

    def values(self) -> Iterable[NormalizedRequirement]:
        return self.by_key.values()

    def items(self) -> Iterable[tuple[str, NormalizedRequirement]]:
        return self.by_key.items()

    def __contains__(self, key: object) -> bool:
        return key in self.by_key

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_key)

    def __len__(self) -> int:
        return len(self.by_key)

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirements):
            return NotImplemented
        return dict(self.by_key) == dict(other.by_key)

    def __hash__(self) -> int:
        return hash(frozenset(self.by_key.items()))

    @property
    def has_min_values(self) -> bool:
        return any(r.min_values is not None for r in self.by_key.values())

    # -- Karpenter compatibility -----------------------------------------------------------------------------
    def conflicts(self, incoming: Requirements) -> list[Conflict]:
        """Upstream `Intersects` (self = existing/NodePool, incoming = pod), sorted by key."""
        existing = self.by_key
        inc = incoming.by_key
        small, large = (existing, inc) if len(existing) <= len(inc) else (inc, existing)
        out: list[Conflict] = []
        for key in small:
            if key not in large:
                continue
            pool_req = existing[key]
            pod_req = inc[key]
            if not intersects(pool_req, pod_req):
                out.append(Conflict(key, pod_req, pool_req))
        out.sort(key=lambda c: c.key)
        return out

    def compatible(self, incoming: Requirements, *, allow_undefined: frozenset[str]) -> list[Incompatibility]:
        """Every reason `incoming` (pod) requirements can't be met by `self` (NodePool): unknown labels first,
        then conflicts, each sorted by key. Empty list = compatible."""
        existing = self.by_key
        out: list[Incompatibility] = []
        for key in sorted(incoming.by_key):
            if key in allow_undefined or key in existing:
                continue
            if incoming.by_key[key].operator in ABSENT_OK:
                continue
            out.append(UnknownLabel(key, label_hint(existing, key, allow_undefined)))
        out.extend(self.conflicts(incoming))
        return out

    def is_compatible(self, incoming: Requirements, *, allow_undefined: frozenset[str]) -> bool:
        """`not compatible(...)` without building anything (hot path)."""
        existing = self.by_key
        for key, req in incoming.by_key.items():
            pool_req = existing.get(key)
            if pool_req is None:
                if key not in allow_undefined and req.operator not in ABSENT_OK:
                    return False
            elif not intersects(pool_req, req):
                return False
        return True

    # -- concrete labels ---------------------------------------------------------------------------------
    def _lookup(self, labels: Mapping[str, str], key: str) -> str | None:
        value = labels.get(key)
        if value is None:
            for alias in LABEL_ALIASES.get(key, ()):
                value = labels.get(alias)
                if value is not None:
                    break
        return value

    def matches_labels(self, labels: Mapping[str, str]) -> bool:
        """Does a concrete label set (instance type, node) satisfy every requirement? A missing label only
        satisfies DoesNotExist and unbounded NotIn; bounds need an integer label within them. A requirement
        on a normalised key also reads the legacy alias label (e.g. `beta.kubernetes.io/arch`)."""
        for key, req in self.by_key.items():
            value = labels.get(key)
            if value is None:
                value = self._lookup(labels, key)
                if value is None:
                    if not req.allows_absent:
                        return False
                    continue
            if not req.has(value):
                return False
        return True

    def first_mismatch(self, labels: Mapping[str, str]) -> tuple[str, NormalizedRequirement] | None:
        """The first (by key) requirement `labels` fails, or None."""
        for key in sorted(self.by_key):
            req = self.by_key[key]
            if not req.matches_value(self._lookup(labels, key)):
                return key, req
        return None

    def mismatches(self, labels: Mapping[str, str]) -> list[tuple[str, NormalizedRequirement, str | None]]:
        """Every failing requirement as `(key, requirement, actual value or None)`, sorted by key."""
        out: list[tuple[str, NormalizedRequirement, str | None]] = []
        for key in sorted(self.by_key):
            req = self.by_key[key]
            value = self._lookup(labels, key)
            if not req.matches_value(value):
                out.append((key, req, value))
        return out

    # -- rendering ---------------------------------------------------------------------------------------
    def render(self, *, legacy_bounds: bool = False) -> str:
        """Upstream `Requirements.String()`: sorted, comma-joined, `kubernetes.io/hostname` left out."""
        parts = sorted(
            r.render(legacy_bounds=legacy_bounds)
            for k, r in self.by_key.items()
            if k not in RESTRICTED_LABELS
        )
        return ", ".join(parts)

    def to_dicts(self, *, legacy_bounds: bool = False) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for key in sorted(self.by_key):
            out.extend(self.by_key[key].to_dicts(legacy_bounds=legacy_bounds))
        return out

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Requirements({self.render()!r})"
