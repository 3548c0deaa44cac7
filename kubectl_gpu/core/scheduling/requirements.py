"""Karpenter's label-requirement algebra (`pkg/scheduling/requirement.go`, `requirements.go`), in Python.

A NodePool requirement, a pod node-affinity `matchExpression`, a `nodeSelector` entry and a NodePool template
label all become a `Requirement` (the raw `{key, operator, values, minValues}`), which normalises to one
`NormalizedRequirement` per key, exactly like Karpenter's `Requirement` struct:

* `complement=False, values=S`  -> `In S` (`DoesNotExist` when S is empty);
* `complement=True,  values=S`  -> `NotIn S` (`Exists` when S is empty);
* optional inclusive integer bounds `gte` / `lte` (only kept on complement sets). `Gt N` is stored as
  `gte=N+1`, `Lt N` as `lte=N-1`, `Gte`/`Lte` as is (Karpenter >= v1.9 canonicalisation). `Gt 2**63-1`
  becomes `DoesNotExist` like upstream. (Upstream `Lt -2**63` overflows in Go; here it matches nothing.)
* `min_values` (NodePool `minValues`, alpha): carried through, printed, max()'d on intersection.

Keys are normalised with Karpenter's `NormalizedLabels` (`beta.kubernetes.io/arch` -> `kubernetes.io/arch`).

`Requirements.compatible(pod, allow_undefined=...)` is Karpenter's `Requirements.Compatible`:
  for every pod key not in `allow_undefined`: if the pool does not define it and the pod operator is not
  `NotIn`/`DoesNotExist` -> `UnknownLabel` (`label "k" does not have known values[ (typo of "x"?)]`);
  for every key both define: if they don't intersect -> `Conflict` (`key k, <pod> not in <pool>`), except when
  both operators are in {NotIn, DoesNotExist}.
Differences from upstream, on purpose: Karpenter HEAD returns only the *first* unknown label (random Go map
order) and skips the conflict check when there is one; older releases report all of them. `compatible()`
returns everything, sorted by key; `karpenter_error()` renders what HEAD would print. `labelHint` iterates Go
sets (random order); here candidates are tried in sorted order, so the hint is deterministic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, KeysView, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubectl_gpu.core.errors import InvalidInput

__all__ = [
    "BOUND_OPERATORS",
    "CORE_WELL_KNOWN_LABELS",
    "DOES_NOT_EXIST",
    "EXISTS",
    "GT",
    "GTE",
    "IN",
    "LT",
    "LTE",
    "NORMALIZED_LABELS",
    "NOT_IN",
    "OPERATORS",
    "RESTRICTED_LABELS",
    "Conflict",
    "Incompatibility",
    "NormalizedRequirement",
    "Requirement",
    "RequirementError",
    "Requirements",
    "UnknownLabel",
    "go_atoi",
    "incompatible_requirements_message",
    "intersects",
    "karpenter_error",
    "label_hint",
    "nodepool_requirements",
    "normalize_key",
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
_ABSENT_OK = frozenset({NOT_IN, DOES_NOT_EXIST})

# kubernetes-sigs/karpenter pkg/apis/v1/labels.go (HEAD): NormalizedLabels and core WellKnownLabels.
NORMALIZED_LABELS: Mapping[str, str] = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
}
_ALIASES: Mapping[str, tuple[str, ...]] = {
    target: tuple(sorted(a for a, t in NORMALIZED_LABELS.items() if t == target))
    for target in set(NORMALIZED_LABELS.values())
}
CORE_WELL_KNOWN_LABELS = frozenset(
    {
        "karpenter.sh/nodepool",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "karpenter.sh/capacity-type",
        "node.kubernetes.io/windows-build",
    }
)
"""Karpenter core's well-known labels. A cloud provider adds its own (AWS: `karpenter.k8s.aws/instance-*`,
`topology.k8s.aws/zone-id`, ...; Auto Mode: `eks.amazonaws.com/*`): pass the full set as `allow_undefined`."""
RESTRICTED_LABELS = frozenset({"kubernetes.io/hostname"})
"""Left out of `Requirements.render()` like upstream `Requirements.String()`."""

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_ATOI = re.compile(r"[+-]?[0-9]+\Z", re.ASCII)


class RequirementError(InvalidInput):
    """A requirement that Karpenter / the API server would reject (one-line message)."""


def go_atoi(text: str) -> int | None:
    """Go `strconv.Atoi` on a 64-bit platform: optional sign, ASCII digits, int64 range; None on error."""
    if not _ATOI.match(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def normalize_key(key: str) -> str:
    return NORMALIZED_LABELS.get(key, key)


def _go_quote(text: str) -> str:
    """Close enough to Go's `%q` for label keys (which cannot contain characters where the two differ)."""
    return json.dumps(text, ensure_ascii=False)


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


@dataclass(frozen=True, slots=True)
class Requirement:
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

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out

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
            if n == _INT64_MAX:  # upstream: "Gt MaxInt matches nothing" (minValues dropped, like upstream)
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


@dataclass(frozen=True, slots=True)
class NormalizedRequirement:
    """Karpenter's per-key `Requirement`: a value set or its complement, plus optional inclusive bounds."""

    key: str
    complement: bool
    values: frozenset[str] = frozenset()
    gte: int | None = None
    lte: int | None = None
    min_values: int | None = None

    @classmethod
    def in_(cls, key: str, *values: str) -> NormalizedRequirement:
        return cls(key, False, frozenset(values))

    @classmethod
    def not_in(cls, key: str, *values: str) -> NormalizedRequirement:
        return cls(key, True, frozenset(values))

    @classmethod
    def exists(cls, key: str) -> NormalizedRequirement:
        return cls(key, True)

    @classmethod
    def does_not_exist(cls, key: str) -> NormalizedRequirement:
        return cls(key, False)

    @property
    def operator(self) -> str:
        """Upstream `Operator()`: In / NotIn / Exists / DoesNotExist (bounded sets report Exists or NotIn)."""
        if self.complement:
            return NOT_IN if self.values else EXISTS
        return IN if self.values else DOES_NOT_EXIST

    @property
    def bounded(self) -> bool:
        return self.gte is not None or self.lte is not None

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

    def to_dicts(self, *, legacy_bounds: bool = False) -> list[dict[str, Any]]:
        """Equivalent NodeSelectorRequirement dicts (`legacy_bounds`: Gt/Lt for pre-v1.9 CRDs)."""
        out: list[dict[str, Any]] = []
        mv: dict[str, Any] = {} if self.min_values is None else {"minValues": self.min_values}
        if not self.complement:
            if self.values:
                out.append({"key": self.key, "operator": IN, "values": sorted(self.values), **mv})
            else:
                out.append({"key": self.key, "operator": DOES_NOT_EXIST, **mv})
            return out
        if self.values:
            out.append({"key": self.key, "operator": NOT_IN, "values": sorted(self.values), **mv})
        if self.gte is not None:
            if legacy_bounds:
                out.append({"key": self.key, "operator": GT, "values": [str(self.gte - 1)], **mv})
            else:
                out.append({"key": self.key, "operator": GTE, "values": [str(self.gte)], **mv})
        if self.lte is not None:
            if legacy_bounds:
                out.append({"key": self.key, "operator": LT, "values": [str(self.lte + 1)], **mv})
            else:
                out.append({"key": self.key, "operator": LTE, "values": [str(self.lte)], **mv})
        if not out:
            out.append({"key": self.key, "operator": EXISTS, **mv})
        return out

    def __str__(self) -> str:
        return self.render()


def intersects(a: NormalizedRequirement, b: NormalizedRequirement) -> bool:
    """Karpenter's per-key compatibility (symmetric): some value is allowed by both, or both operators are
    NotIn/DoesNotExist (a node without the label satisfies both)."""
    if a.has_intersection(b):
        return True
    return a.operator in _ABSENT_OK and b.operator in _ABSENT_OK


@dataclass(frozen=True, slots=True)
class UnknownLabel:
    """The pod needs a custom label the NodePool neither sets nor requires."""

    key: str
    hint: str | None = None

    @property
    def message(self) -> str:
        suffix = f" (typo of {_go_quote(self.hint)}?)" if self.hint else ""
        return f"label {_go_quote(self.key)} does not have known values{suffix}"

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class Conflict:
    """Pod and NodePool both constrain `key` and no value satisfies both."""

    key: str
    pod_requirement: NormalizedRequirement
    pool_requirement: NormalizedRequirement

    @property
    def message(self) -> str:
        """Upstream `badKeyError`: `key k, k In [h100] not in k In [a10g l4]` (each side prints its key)."""
        return f"key {self.key}, {self.pod_requirement.render()} not in {self.pool_requirement.render()}"

    @property
    def summary(self) -> str:
        """Key printed once: `key k, In [h100] not in In [a10g l4]`."""
        pod = self.pod_requirement.render(with_key=False)
        pool = self.pool_requirement.render(with_key=False)
        return f"key {self.key}, {pod} not in {pool}"

    def __str__(self) -> str:
        return self.message


Incompatibility = UnknownLabel | Conflict


def _suffix(key: str) -> str:
    return key.split("/", 1)[1] if "/" in key else key


def label_hint(existing: Iterable[str], key: str, allow_undefined: Iterable[str]) -> str | None:
    """Karpenter HEAD `labelHint`: a well-known key, then an existing key, that contains `key` or ends with
    the part of `key` after its first `/`. (v1.0-era releases also tried an edit-distance < len/5 match;
    not reproduced.) Candidates are tried in sorted order; upstream order is random."""
    suffix = _suffix(key)
    for group in (sorted(allow_undefined), sorted(existing)):
        for candidate in group:
            if key in candidate or candidate.endswith(suffix):
                return candidate
    return None


def incompatible_requirements_message(incompatibilities: Iterable[Incompatibility]) -> str:
    """`incompatible requirements, <err>; <err>` (multierr join) over everything given."""
    return "incompatible requirements, " + "; ".join(i.message for i in incompatibilities)


def karpenter_error(incompatibilities: Iterable[Incompatibility]) -> str | None:
    """What Karpenter HEAD prints: only the first unknown label if there is one, else every conflict."""
    items = list(incompatibilities)
    if not items:
        return None
    unknown = [i for i in items if isinstance(i, UnknownLabel)]
    return incompatible_requirements_message(unknown[:1] if unknown else items)


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
            if incoming.by_key[key].operator in _ABSENT_OK:
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
                if key not in allow_undefined and req.operator not in _ABSENT_OK:
                    return False
            elif not intersects(pool_req, req):
                return False
        return True

    # -- concrete labels ---------------------------------------------------------------------------------
    def _lookup(self, labels: Mapping[str, str], key: str) -> str | None:
        value = labels.get(key)
        if value is None:
            for alias in _ALIASES.get(key, ()):
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


def nodepool_requirements(
    name: str,
    requirements: Iterable[Requirement | NormalizedRequirement | Mapping[str, Any]],
    labels: Mapping[str, str] | None = None,
    *,
    node_class_label: tuple[str, str] | None = None,
) -> Requirements:
    """A NodePool template's requirements the way `NewNodeClaimTemplate` builds them: `spec.requirements`
    + template labels + `karpenter.sh/nodepool=<name>` (+ the NodeClass label `<group>/<lower(kind)>=<name>`
    that recent v1 releases add; pass it as `node_class_label=(label_key, value)`)."""
    merged: dict[str, str] = dict(labels or {})
    merged["karpenter.sh/nodepool"] = name
    if node_class_label is not None:
        merged[node_class_label[0]] = node_class_label[1]
    return Requirements.of(*requirements).intersection(Requirements.from_labels(merged))
