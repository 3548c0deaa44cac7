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
returns everything, sorted by key. `labelHint` iterates Go sets (random order); here candidates are tried in
sorted order, so the hint is deterministic.

The package, one module per part: `operators` (operators, Go `Atoi`, `RequirementError`), `labels` (normalised,
well-known and restricted label keys), `normalized` (`NormalizedRequirement`, `intersects`), `requirement`
(the raw `Requirement`), `incompatibility` (`UnknownLabel`, `Conflict` and their messages), `requirement_set`
(`Requirements`), `nodepool` (a NodePool template's requirements).
"""

from .incompatibility import (
    Conflict,
    Incompatibility,
    UnknownLabel,
    label_hint,
)
from .labels import CORE_WELL_KNOWN_LABELS, NORMALIZED_LABELS, RESTRICTED_LABELS, label_value_error
from .nodepool import nodepool_requirements, template_requirements
from .normalized import NormalizedRequirement, intersects
from .operators import (
    BOUND_OPERATORS,
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    GTE,
    IN,
    LT,
    LTE,
    NOT_IN,
    OPERATORS,
    RequirementError,
    go_atoi,
)
from .requirement import Requirement, normalized
from .requirement_set import Requirements

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
    "intersects",
    "label_hint",
    "label_value_error",
    "nodepool_requirements",
    "normalized",
    "template_requirements",
]
