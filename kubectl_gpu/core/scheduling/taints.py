"""Taints and tolerations, matched exactly the way Kubernetes and Karpenter match them.

Upstream semantics reproduced here (checked against the sources, not assumed):

* `corev1.Toleration.ToleratesTaint` (k8s.io/api core/v1/toleration.go):
  1. a non-empty toleration effect must equal the taint effect (empty effect matches every effect);
  2. a non-empty toleration key must equal the taint key (empty key matches every key);
  3. operator `""`/`Equal` compares values exactly (so an empty-key `Equal` toleration with an empty value
     tolerates every taint *without* a value: API validation forbids that spelling, the function does not);
     `Exists` ignores the value; `Lt`/`Gt` (Kubernetes 1.35 `TaintTolerationComparisonOperators`) compare the
     taint value against the toleration value as canonical decimal int64s (`taint < toleration` for `Lt`,
     `taint > toleration` for `Gt`); any other operator tolerates nothing.
  Keys, values and effects are compared byte-for-byte (case-sensitive, no trimming).
* Karpenter `pkg/scheduling/taints.go` (`Taints.Tolerates`): a NodePool's `spec.template.spec.taints` must
  *all* be tolerated (PreferNoSchedule included: the provisioner only adds an `Exists`/`PreferNoSchedule`
  toleration as the *last* preference relaxation, so a PreferNoSchedule taint never blocks for good). HEAD
  calls `ToleratesTaint(..., enableComparisonOperators=true)`, hence `comparison_operators=True` by default.
  `startupTaints` are never checked. Each untolerated taint yields one error, joined with `"; "`.
* kube-scheduler `TaintToleration` filter: only NoSchedule and NoExecute taints are considered.

Messages (`karpenter_messages.json`): >= v1.5 `did not tolerate taint (taint=<pretty>)`; v1.1-v1.4
`did not tolerate <pretty>`; v1.0 `did not tolerate <key>=<value>:<effect>`; `pretty` is `key:Effect`
without a value and `key=value:Effect` with one (`pkg/utils/pretty`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "BLOCKING_EFFECTS",
    "EFFECTS",
    "Taint",
    "TaintMessageStyle",
    "Toleration",
    "not_tolerated_message",
    "pretty",
    "suggest_toleration",
    "tolerates",
    "untolerated",
]

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
EFFECTS = frozenset({NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE})
BLOCKING_EFFECTS = frozenset({NO_SCHEDULE, NO_EXECUTE})

_EQUAL = "Equal"
_EXISTS = "Exists"
_LT = "Lt"
_GT = "Gt"

# k8s.io/apimachinery validate/content.IsDecimalInteger: "0" or an optional "-" then [1-9][0-9]*.
_CANONICAL_INT = lazy_pattern(r"(?:0|-?[1-9][0-9]*)\Z", re.ASCII)
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def _canonical_int64(text: str) -> int | None:
    if not _CANONICAL_INT.match(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def _opt_str(d: Mapping[str, Any], field: str, what: str) -> str:
    value = d.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{what} {field} must be a string, got {type(value).__name__}")
    return value


class Taint(msgspec.Struct, frozen=True):
    """A node / NodePool taint. `value` is `""` when the taint has none (Kubernetes omits it in JSON)."""

    key: str
    value: str
    effect: str

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Taint:
        """Parse a Kubernetes `Taint` (`timeAdded` is ignored). `key` and `effect` are required."""
        key = _opt_str(d, "key", "taint")
        effect = _opt_str(d, "effect", "taint")
        if not key:
            raise ValueError("taint key is required")
        if not effect:
            raise ValueError(f"taint {key!r} has no effect")
        return cls(key=key, value=_opt_str(d, "value", "taint"), effect=effect)

    def to_dict(self) -> dict[str, str]:
        out = {"key": self.key, "effect": self.effect}
        if self.value:
            out["value"] = self.value
        return out

    def __str__(self) -> str:
        return pretty(self)


class Toleration(msgspec.Struct, frozen=True):
    """A pod toleration. `operator` is stored normalised: a missing/empty operator becomes `Equal`."""

    key: str = ""
    operator: str = _EQUAL
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Toleration:
        seconds = d.get("tolerationSeconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
            raise TypeError(f"toleration tolerationSeconds must be an integer, got {type(seconds).__name__}")
        return cls(
            key=_opt_str(d, "key", "toleration"),
            operator=_opt_str(d, "operator", "toleration") or _EQUAL,
            value=_opt_str(d, "value", "toleration"),
            effect=_opt_str(d, "effect", "toleration"),
            toleration_seconds=seconds,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value:
            out["value"] = self.value
        if self.effect:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out

    def tolerates(self, taint: Taint, *, comparison_operators: bool = True) -> bool:
        """`corev1.Toleration.ToleratesTaint`. `tolerationSeconds` does not matter for scheduling."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        op = self.operator
        if op == _EQUAL or not op:
            return self.value == taint.value
        if op == _EXISTS:
            return True
        if op in (_LT, _GT):
            if not comparison_operators:
                return False
            mine = _canonical_int64(self.value)
            theirs = _canonical_int64(taint.value)
            if mine is None or theirs is None:
                return False
            return theirs < mine if op == _LT else theirs > mine
        return False


def tolerates(tolerations: Iterable[Toleration], taint: Taint, *, comparison_operators: bool = True) -> bool:
    """True when any toleration tolerates `taint`."""
    return any(t.tolerates(taint, comparison_operators=comparison_operators) for t in tolerations)


def untolerated(
    tolerations: Iterable[Toleration],
    taints: Iterable[Taint],
    effects: frozenset[str] | set[str] = BLOCKING_EFFECTS,
    *,
    comparison_operators: bool = True,
) -> tuple[Taint, ...]:
    """The taints (whose effect is in `effects`) that no toleration tolerates, in input order.

    The default `effects` (NoSchedule, NoExecute) gives the final verdict of both kube-scheduler and
    Karpenter (after relaxation). Pass `EFFECTS` to reproduce Karpenter's first, unrelaxed pass.
    """
    tols = tuple(tolerations)
    out: list[Taint] = []
    for taint in taints:
        if taint.effect not in effects:
            continue
        for tol in tols:
            if tol.tolerates(taint, comparison_operators=comparison_operators):
                break
        else:
            out.append(taint)
    return tuple(out)


def pretty(taint: Taint) -> str:
    """Karpenter's `pretty.Taint`: `key:Effect` or `key=value:Effect`."""
    if taint.value:
        return f"{taint.key}={taint.value}:{taint.effect}"
    return f"{taint.key}:{taint.effect}"


TaintMessageStyle = Literal["current", "v1.1", "v1.0"]


def not_tolerated_message(taint: Taint, style: TaintMessageStyle = "current") -> str:
    """The error Karpenter emits for an untolerated NodePool taint.

    `current` (>= v1.5, serrors): `did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)`;
    `v1.1` (~v1.1-v1.4): `did not tolerate nvidia.com/gpu:NoSchedule`;
    `v1.0`: `did not tolerate nvidia.com/gpu=:NoSchedule`.
    """
    if style == "current":
        return f"did not tolerate taint (taint={pretty(taint)})"
    if style == "v1.1":
        return f"did not tolerate {pretty(taint)}"
    return f"did not tolerate {taint.key}={taint.value}:{taint.effect}"


def suggest_toleration(taint: Taint) -> dict[str, str]:
    """A toleration (YAML-ready dict) that tolerates exactly this taint's key, value and effect."""
    if taint.value:
        return {"key": taint.key, "operator": _EQUAL, "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": _EXISTS, "effect": taint.effect}
