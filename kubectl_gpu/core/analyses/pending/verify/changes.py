"""Verified fixes (issue 20): the change a fix asks for is made on a copy (the pod's tolerations, selectors or
host ports; the NodePool's limits or minValues; the NodePool a fix proposes) and the pod is evaluated again.

`FixCheck.verified` says whether the blocker the fix names is gone from the target it names (None: the fix is
not a change this tool can make, e.g. "wait for capacity"); `FixCheck.after` says what happens then: the
verdict, the target and, when it launches, the instance type (the cheapest that fits, as Karpenter orders
them by price). A fix that does not remove its blocker is never offered as one (analysis.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.placement import NO_PLACEMENT
from kubectl_gpu.core.scheduling.affinity import NodeSelectorTerm
from kubectl_gpu.core.scheduling.taints import Taint, Toleration, suggest_toleration, untolerated

__all__ = ["After", "FixCheck", "after_of", "cheapest", "pod_change", "pool_change"]

_CLEAR = frozenset({Verdict.NO_BLOCKER_FOUND, Verdict.PROVISIONING})
_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


class After(msgspec.Struct, frozen=True):
    """The pod's answer once the fix is made."""

    verdict: Verdict
    target: TargetRef | None
    instance_type: str | None  # the cheapest fitting type, when it launches from a NodePool
    message: str  # the first blocker left, or what is still unknown

    @property
    def clear(self) -> bool:
        return self.verdict in _CLEAR

    @property
    def distance(self) -> tuple[int, int]:
        """How far from running (0 best): nothing left, unknown checks, capacity, spec."""
        if self.clear:
            return (0, 0)
        if self.verdict is Verdict.UNVERIFIED:
            return (1, 0)
        return (2 if self.verdict in _CAPACITY else 3, 0)

    def text(self) -> str:
        where = f"{self.target.kind} {self.target.name}" if self.target else "no target"
        if self.verdict is Verdict.PROVISIONING:
            return f"after this change: waits for capacity in flight ({self.message})"
        if self.clear and self.target is not None and self.target.kind == "NodePool":
            launched = f", {self.instance_type}" if self.instance_type else ""
            return f"after this change: launches from NodePool {self.target.name}{launched}"
        if self.clear:
            return f"after this change: fits {where}"
        if self.verdict is Verdict.UNVERIFIED:
            return f"after this change: {self.message}"
        return f"after this change, still blocked: {self.verdict}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": str(self.verdict),
            "target": self.target.to_dict() if self.target else None,
            "instanceType": self.instance_type,
            "message": self.text(),
        }


class FixCheck(msgspec.Struct, frozen=True):
    verified: bool | None  # None: not a change this tool can make on a copy
    change: str  # what was changed, in words
    after: After | None = None
    # Not verified although the blocker is gone: the node it names still does not take the pod (a cordon,
    # no room), so the change does not unblock the pod there (issue 37).
    removed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change, **(self.after.to_dict() if self.after else {})}


_CAPACITY = frozenset(
    {
        Verdict.NODEPOOL_LIMIT_REACHED,
        Verdict.NODECLASS_NOT_READY,
        Verdict.NODEPOOL_NOT_READY,
        Verdict.CAPACITY_UNAVAILABLE,
        Verdict.INSUFFICIENT_ACCELERATOR,
        Verdict.INSUFFICIENT_RESOURCES,
        Verdict.TOPOLOGY_SPREAD_UNSATISFIABLE,
        Verdict.POD_AFFINITY_UNSATISFIABLE,
        Verdict.VOLUME_UNAVAILABLE,
    }
)


def cheapest(catalog: Catalog, names: tuple[str, ...]) -> str | None:
    priced = [
        (it.price_usd_per_hour, n) for n in names if (it := catalog.by_name(n)) and it.price_usd_per_hour
    ]
    return min(priced)[1] if priced else (names[0] if names else None)


def after_of(evaluation: TargetEvaluation, catalog: Catalog) -> After:
    """One target's answer (a NodePool changed on its own)."""
    ref = evaluation.target
    if evaluation.blockers:
        first = evaluation.blockers[0]
        return After(first.code, ref, None, first.message)
    unknown = [f"{c.name}: {c.detail}" for c in evaluation.checks if c.ok is None]
    if unknown:
        where = f"{ref.kind} {ref.name}"
        message = f"no blocker found on {where}, but not every check could be made: " + "; ".join(unknown)
        return After(Verdict.UNVERIFIED, ref, None, message)
    return After(Verdict.NO_BLOCKER_FOUND, ref, cheapest(catalog, evaluation.fitting_types), "")


# --- changes to the pod ----------------------------------------------------------------------------------


def _tolerating(pod: Pod, taints: tuple[Taint, ...]) -> tuple[Pod, str] | None:
    # never the cordon taint: the fix does not offer it (node_target.py), so the check does not add it either
    missing = tuple(t for t in untolerated(pod.tolerations, taints) if t.key != _UNSCHEDULABLE)
    if not missing:
        return None
    added = tuple(Toleration.from_dict(suggest_toleration(t)) for t in missing)
    return dataclasses.replace(
        pod, tolerations=(*pod.tolerations, *added)
    ), "the tolerations added to the pod"


def _rekeyed(pod: Pod, key: str, replacement: str | None) -> Pod:
    """The pod with `key` in its nodeSelector and required node-affinity expressions renamed to
    `replacement`, or dropped when it is None (a term left empty goes too; with none left, the required
    affinity goes: an empty term would match no node)."""
    selector = dict(pod.node_selector)
    if key in selector:
        value = selector.pop(key)
        if replacement is not None:
            selector[replacement] = value
    affinity = pod.node_affinity
    if affinity.required_error is None and affinity.required_terms:
        terms = []
        for term in affinity.required_terms:
            exprs = tuple(
                dataclasses.replace(r, key=replacement) if r.key == key and replacement else r
                for r in term.match_expressions
                if r.key != key or replacement
            )
            if exprs or term.match_fields or term.is_empty:
                terms.append(NodeSelectorTerm(exprs, term.match_fields))
        affinity = msgspec.structs.replace(affinity, required_terms=tuple(terms), has_required=bool(terms))
    return dataclasses.replace(pod, node_selector=selector, node_affinity=affinity)


def pod_change(
    pod: Pod, blocker: Blocker, taints_of: Callable[[TargetRef], tuple[Taint, ...]]
) -> tuple[Pod, str] | None:
    """The pod as the blocker's fix asks it to be, and that change in words; None when the fix is not a change
    to the pod."""
    detail: Mapping[str, Any] = blocker.detail
    code = blocker.code
    if code is Verdict.MISSING_TOLERATION:
        return _tolerating(pod, taints_of(blocker.target))
    if code is Verdict.LABEL_NAMESPACE_MISMATCH and detail.get("key") and detail.get("replacement"):
        new = _rekeyed(pod, str(detail["key"]), str(detail["replacement"]))
        return new, f"the pod's {detail['key']} selector renamed {detail['replacement']}"
    if code in (Verdict.UNKNOWN_LABEL, Verdict.REQUIREMENT_CONFLICT) and detail.get("key"):
        new = _rekeyed(pod, str(detail["key"]), None)
        return new, f"the pod's {detail['key']} selector removed (the target's own requirement applies)"
    if code is Verdict.HOST_PORT_CONFLICT and pod.placement.host_ports:
        placement = msgspec.structs.replace(pod.placement, host_ports=())
        return dataclasses.replace(pod, placement=placement or NO_PLACEMENT), "the pod's host ports removed"
    return None


# --- changes to a NodePool ------------------------------------------------------------------------------


def pool_change(pool: NodePool, blocker: Blocker) -> tuple[NodePool, str] | None:
    """The NodePool as the blocker's fix asks it to be; None when the fix is not a change to the pool."""
    if blocker.code is Verdict.NODEPOOL_LIMIT_REACHED:
        return msgspec.structs.replace(pool, limits={}), f"NodePool {pool.name}'s limits lifted"
    if blocker.code is Verdict.MIN_VALUES_UNSATISFIED:
        requirements = tuple({k: v for k, v in r.items() if k != "minValues"} for r in pool.requirements)
        return msgspec.structs.replace(
            pool, requirements=requirements
        ), f"NodePool {pool.name}'s minValues removed"
    return None
