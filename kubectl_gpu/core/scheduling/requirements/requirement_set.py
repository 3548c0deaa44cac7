"""`Requirements`, Karpenter's set of requirements (label key -> `NormalizedRequirement`): built from
requirements, a `nodeSelector` or labels; intersected; checked for compatibility with Karpenter's rules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, Mapping
from dataclasses import dataclass, field
from typing import Any

from .incompatibility import Conflict, Incompatibility, UnknownLabel, label_hint
from .labels import NORMALIZED_LABELS, RESTRICTED_LABELS
from .normalized import NormalizedRequirement, intersects
from .operators import ABSENT_OK
from .requirement import Requirement, normalized

__all__ = ["Requirements"]


def _coerce(req: Requirement | NormalizedRequirement | Mapping[str, Any]) -> NormalizedRequirement:
    if isinstance(req, NormalizedRequirement):
        return req
    if isinstance(req, Requirement):
        return req.normalize()
    return normalized(req)


@dataclass(frozen=True, slots=True, eq=False)
class Requirements:
    """Karpenter's `Requirements`: label key -> `NormalizedRequirement`. Immutable.

    Build with `Requirements.of(...)`, `from_node_selector`, `from_labels`; the `by_key`
    mapping is owned by the instance and must not be mutated.
    """

    by_key: Mapping[str, NormalizedRequirement] = field(default_factory=dict)
    _hash: int | None = field(default=None, repr=False)  # computed once: requirement sets key memos
    _keys: frozenset[str] | None = field(default=None, repr=False)  # `key_set`, made once

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

    def keys(self) -> KeysView[str]:
        return self.by_key.keys()

    def key_set(self) -> frozenset[str]:
        """The keys as a frozenset, made once (memo keys hold it, and hash it at each lookup)."""
        found = self._keys
        if found is None:
            found = frozenset(self.by_key)
            object.__setattr__(self, "_keys", found)  # immutable by contract: the keys never change
        return found

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
        found = self._hash
        if found is None:
            found = hash(frozenset(self.by_key.items()))
            object.__setattr__(self, "_hash", found)  # immutable by contract: the hash never changes
        return found

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

    # -- rendering ---------------------------------------------------------------------------------------
    def render(self, *, legacy_bounds: bool = False) -> str:
        """Upstream `Requirements.String()`: sorted, comma-joined, `kubernetes.io/hostname` left out."""
        parts = sorted(
            r.render(legacy_bounds=legacy_bounds)
            for k, r in self.by_key.items()
            if k not in RESTRICTED_LABELS
        )
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Requirements({self.render()!r})"
