"""Verified fixes (issue 20): the change a fix asks for is made on a copy (the pod's tolerations, selectors or
host ports; the NodePool's limits or minValues; the NodePool a fix proposes) and the pod is evaluated again.
The changes are patches and objects made through the change engine `simulate` uses (core/changes).

`FixCheck.verified` says whether the blocker the fix names is gone from the target it names (None: the fix is
not a change this tool can make, e.g. "wait for capacity"); `FixCheck.after` says what happens then: the
verdict, the target and, when it launches, the instance type (the cheapest that fits, as Karpenter orders
them by price). A fix that does not remove its blocker is never offered as one (analysis.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.decision import After
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.changes import Change
from kubectl_gpu.core.changes.fields import manifest_name
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.placement import NO_PLACEMENT
from kubectl_gpu.core.scheduling.affinity import NodeSelectorTerm
from kubectl_gpu.core.scheduling.requirements.requirement import Requirement
from kubectl_gpu.core.scheduling.taints import Taint, suggest_toleration, untolerated

__all__ = ["after_of", "cheapest", "new_pool_change", "pod_change", "pool_change", "tolerations_patch"]

_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


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


# --- changes to the pod: strategic merge patches, made through the change engine (core/changes) ---------

_SOURCE = "the fix"


def tolerations_patch(pod: Pod, added: tuple[Mapping[str, Any], ...]) -> Change:
    """The pod with `added` tolerations: a strategic patch that gives the whole list (a list without a
    merge key is replaced)."""
    listed = [*(t.to_dict() for t in pod.tolerations), *(dict(t) for t in added)]
    return Change("patch", "Pod", pod.name, pod.namespace, {"spec": {"tolerations": listed}}, source=_SOURCE)


def _tolerating(pod: Pod, taints: tuple[Taint, ...]) -> tuple[Change, str] | None:
    # never the cordon taint: the fix does not offer it (targets/nodes/target.py), so the check does not add it either
    missing = tuple(t for t in untolerated(pod.tolerations, taints) if t.key != _UNSCHEDULABLE)
    if not missing:
        return None
    added = tuple(suggest_toleration(t) for t in missing)
    return tolerations_patch(pod, added), "the tolerations added to the pod"


def _expression(req: Requirement) -> dict[str, Any]:
    out: dict[str, Any] = {"key": req.key, "operator": req.operator}
    if req.values:
        out["values"] = list(req.values)
    return out


def _term(term: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.match_expressions:
        out["matchExpressions"] = [_expression(r) for r in term.match_expressions]
    if term.match_fields:
        out["matchFields"] = [_expression(r) for r in term.match_fields]
    return out


def _rekeyed(pod: Pod, key: str, replacement: str | None) -> Change:
    """A patch of the pod with `key` in its nodeSelector and required node-affinity expressions renamed to
    `replacement`, or dropped when it is None (a term left empty goes too; with none left, the required
    affinity goes: an empty term would match no node)."""
    spec: dict[str, Any] = {}
    if key in pod.node_selector:
        value = pod.node_selector[key]
        spec["nodeSelector"] = {key: None} | ({replacement: value} if replacement is not None else {})
    affinity = pod.node_affinity
    if affinity.required_error is None and affinity.required_terms:
        terms = []
        for term in affinity.required_terms:
            exprs = tuple(
                msgspec.structs.replace(r, key=replacement) if r.key == key and replacement else r
                for r in term.match_expressions
                if r.key != key or replacement
            )
            if exprs or term.match_fields or term.is_empty:
                terms.append(_term(NodeSelectorTerm(exprs, term.match_fields)))
        required = {"nodeSelectorTerms": terms} if terms else None
        spec["affinity"] = {"nodeAffinity": {_REQUIRED: required}}
    return Change("patch", "Pod", pod.name, pod.namespace, {"spec": spec}, source=_SOURCE)


def pod_change(
    pod: Pod, blocker: Blocker, taints_of: Callable[[TargetRef], tuple[Taint, ...]]
) -> tuple[Change | Pod, str] | None:
    """The change the blocker's fix asks of the pod (a patch for the engine, or the pod as changed where the
    engine has no such patch: host ports), and that change in words; None when the fix is not a change to
    the pod."""
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
        # the ports are merged by containerPort in a strategic patch; the model keeps only the host ports
        placement = msgspec.structs.replace(pod.placement, host_ports=())
        return msgspec.structs.replace(
            pod, placement=placement or NO_PLACEMENT
        ), "the pod's host ports removed"
    return None


# --- changes to a NodePool: merge patches, made through the change engine -------------------------------


def pool_change(pool: NodePool, blocker: Blocker) -> tuple[Change, str] | None:
    """The merge patch the blocker's fix asks of the NodePool; None when the fix is not a change to the pool."""
    if blocker.code is Verdict.NODEPOOL_LIMIT_REACHED:
        body: dict[str, Any] = {"spec": {"limits": None}}
        return _pool_patch(pool, body), f"NodePool {pool.name}'s limits lifted"
    if blocker.code is Verdict.MIN_VALUES_UNSATISFIED:
        requirements = [{k: v for k, v in r.items() if k != "minValues"} for r in pool.requirements]
        body = {"spec": {"template": {"spec": {"requirements": requirements}}}}
        return _pool_patch(pool, body), f"NodePool {pool.name}'s minValues removed"
    return None


def _pool_patch(pool: NodePool, body: dict[str, Any]) -> Change:
    return Change("patch", "NodePool", pool.name, None, body, "merge", _SOURCE)


def new_pool_change(manifest: Mapping[str, Any]) -> Change:
    """The NodePool a fix proposes, applied as written."""
    return Change("apply", "NodePool", manifest_name(manifest), None, dict(manifest), source=_SOURCE)
