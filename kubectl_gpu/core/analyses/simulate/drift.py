"""Blast radius: which NodeClaims a change makes Karpenter drift, so which nodes and GPU pods are replaced,
at what pace under the pool's budgets (reason Drifted), and the state with those NodeClaims marked Drifted so
every analysis sees it.

Karpenter's rules (kubernetes-sigs/karpenter): a NodeClaim is drifted when its `karpenter.sh/nodepool-hash`
annotation differs from the NodePool's hash of `spec.template` (reason NodePoolDrifted), which covers the
template's labels and annotations, taints, startupTaints, nodeClassRef, expireAfter and
terminationGracePeriod; `requirements` and `resources` are `hash:"ignore"` (pkg/apis/v1/nodeclaim.go) and
drift on their own only when the NodeClaim's labels no longer satisfy them (RequirementsDrifted;
pkg/controllers/nodeclaim/disruption/drift.go). A NodeClass change drifts its NodeClaims through the
provider (karpenter-provider-aws pkg/cloudprovider/drift.go: the EC2NodeClass static hash, NodeClassDrift;
AMI, subnet and security group selectors when they resolve differently: AMIDrift, SubnetDrift,
SecurityGroupDrift). Auto Mode's NodeClass is taken to drift the same way on any spec change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from kubectl_gpu.core.changes import Applied
from kubectl_gpu.core.changes.fields import spec_changes
from kubectl_gpu.core.k8s.models import Condition, NodeClaim
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import PoolBudgets, pool_disruption_counts
from kubectl_gpu.core.scheduling.affinity import NodeSelectorTerm

__all__ = ["Drift", "drifted_state", "drifts"]

_HASHED_META = ("labels", "annotations")
_HASHED_SPEC = ("taints", "startupTaints", "nodeClassRef", "expireAfter", "terminationGracePeriod")
_DYNAMIC = {
    "amiSelectorTerms": "AMIDrift",
    "subnetSelectorTerms": "SubnetDrift",
    "securityGroupSelectorTerms": "SecurityGroupDrift",
}
_GPU = ("nvidia.com/gpu", "aws.amazon.com/neuron", "amd.com/gpu")


class Drift(msgspec.Struct, frozen=True):
    """One pool's NodeClaims a change drifts, and how Karpenter would replace them."""

    pool: str
    reason: str  # NodePoolDrifted | RequirementsDrifted | NodeClassDrift | AMIDrift | ... | NodePoolDeleted
    fields: tuple[str, ...]  # what changed
    claims: tuple[str, ...]  # NodeClaim names, in the order Karpenter would take them (fewest pods first)
    nodes: tuple[str, ...]
    gpu_pods: tuple[str, ...]  # namespace/name of the running GPU pods on those nodes
    certain: bool  # False: only when a selector resolves to something else
    per_wave: int | None  # nodes the Drifted budget lets go at once now (None: unbounded)
    first_at: datetime | None  # when the budget first allows a Drifted disruption (None: never in 35 days)
    blocked_by: tuple[str, ...] = ()  # pods (ns/name) and nodes (node/NAME) with karpenter.sh/do-not-disrupt


def _d(obj: Any, *path: str) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _hash_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    out = [
        f"spec.template.metadata.{f}"
        for f in _HASHED_META
        if (_d(before, "spec", "template", "metadata", f) or {})
        != (_d(after, "spec", "template", "metadata", f) or {})
    ]
    out += [
        f"spec.template.spec.{f}"
        for f in _HASHED_SPEC
        if _d(before, "spec", "template", "spec", f) != _d(after, "spec", "template", "spec", f)
    ]
    return out


def _unsatisfied(claim: NodeClaim, labels: Mapping[str, str], requirements: Any) -> bool:
    exprs = [
        {k: v for k, v in r.items() if k in ("key", "operator", "values")}
        for r in requirements or ()
        if isinstance(r, Mapping)
    ]
    try:
        return not NodeSelectorTerm.from_dict({"matchExpressions": exprs}).matches(labels)
    except (ValueError, TypeError):
        return False


def _claim_labels(state: ClusterState, claim: NodeClaim) -> Mapping[str, str]:
    node = state.node_by_name.get(claim.node_name or "")
    return node.labels if node is not None else claim.meta.labels


def _pool_drift(state: ClusterState, applied: Applied, now: datetime) -> Drift | None:
    name = applied.change.name
    claims = state.nodeclaims_by_pool.get(name, ())
    if not claims or applied.before is None:
        return None
    if applied.after is None:
        return _drift(state, name, "NodePoolDeleted", ("deleted",), claims, True, now)
    fields = _hash_changes(applied.before, applied.after)
    if fields:
        return _drift(state, name, "NodePoolDrifted", tuple(fields), claims, True, now)
    reqs = _d(applied.after, "spec", "template", "spec", "requirements")
    if reqs == _d(applied.before, "spec", "template", "spec", "requirements"):
        return None
    off = tuple(c for c in claims if _unsatisfied(c, _claim_labels(state, c), reqs))
    if not off:
        return None
    return _drift(state, name, "RequirementsDrifted", ("spec.template.spec.requirements",), off, True, now)


def _class_drifts(state: ClusterState, applied: Applied, now: datetime) -> list[Drift]:
    if applied.before is None or applied.after is None:
        return []
    changed = spec_changes(applied.before, applied.after)
    if not changed:
        return []
    static = tuple(k for k in changed if k not in _DYNAMIC)
    reason = "NodeClassDrift" if static else _DYNAMIC[changed[0]]
    out = []
    for pool in state.nodepools:
        ref = pool.node_class_ref
        if ref is None or ref.kind != applied.change.kind or ref.name != applied.change.name:
            continue
        claims = state.nodeclaims_by_pool.get(pool.name, ())
        if claims:
            fields = tuple(f"spec.{k}" for k in (static or changed))
            out.append(_drift(state, pool.name, reason, fields, claims, bool(static), now))
    return out


def _drift(
    state: ClusterState,
    pool: str,
    reason: str,
    fields: tuple[str, ...],
    claims: Sequence[NodeClaim],
    certain: bool,
    now: datetime,
) -> Drift:
    def pods_on(claim: NodeClaim) -> list[Any]:
        return [p for p in state.pods_by_node.get(claim.node_name or "", ()) if not p.terminated]

    ordered = sorted(claims, key=lambda c: (len(pods_on(c)), c.name))
    gpu, held = [], []
    for claim in ordered:
        node = state.node_by_name.get(claim.node_name or "")
        if node is not None and node.meta.annotations.get("karpenter.sh/do-not-disrupt") == "true":
            held.append(f"node/{node.name}")
        for pod in pods_on(claim):
            if pod.phase == "Running" and any(pod.requests.get(r) for r in _GPU):
                gpu.append(f"{pod.namespace}/{pod.name}")
            if pod.meta.annotations.get("karpenter.sh/do-not-disrupt") == "true":
                held.append(f"{pod.namespace}/{pod.name}")
    model = state.nodepool_by_name.get(pool)
    per_wave: int | None = None
    first: datetime | None = now
    if model is not None and reason != "NodePoolDeleted":
        budgets = PoolBudgets(model.budgets)
        total, disrupting = pool_disruption_counts(state, pool)
        allowed = budgets.effective("Drifted", now, total, disrupting)
        per_wave = None if allowed >= 2**31 - 1 else allowed
        first = budgets.next_allowed("Drifted", now, total, disrupting)
    return Drift(
        pool,
        reason,
        fields,
        tuple(c.name for c in ordered),
        tuple(c.node_name for c in ordered if c.node_name),
        tuple(gpu),
        certain,
        per_wave,
        first,
        tuple(held),
    )


def drifts(before: ClusterState, applied: Sequence[Applied], now: datetime) -> list[Drift]:
    """Every pool's drift the changes cause (read on the state before them: its NodeClaims and budgets)."""
    out: list[Drift] = []
    for item in applied:
        if item.change.kind == "NodePool":
            found = _pool_drift(before, item, now)
            out += [found] if found else []
        elif item.change.kind in ("NodeClass", "EC2NodeClass"):
            out += _class_drifts(before, item, now)
    return out


def drifted_state(state: ClusterState, found: Sequence[Drift], now: datetime) -> ClusterState:
    """The state with the NodeClaims the changes drift marked Drifted=True (the certain drifts only), so the
    lifecycle analysis sees the replacement the change starts."""
    import dataclasses

    marks = {
        name: d.reason for d in found if d.certain and d.reason != "NodePoolDeleted" for name in d.claims
    }
    if not marks:
        return state
    stamp = now.isoformat().replace("+00:00", "Z")

    def marked(claim: NodeClaim) -> NodeClaim:
        reason = marks.get(claim.name)
        if reason is None or any(c.type == "Drifted" and c.is_true for c in claim.conditions):
            return claim
        kept = tuple(c for c in claim.conditions if c.type != "Drifted")
        drifted = Condition("Drifted", "True", reason, "simulated: the change drifts it", stamp)
        return msgspec.structs.replace(claim, conditions=(*kept, drifted))

    claims = tuple(marked(c) for c in state.nodeclaims)
    return dataclasses.replace(state, nodeclaims=claims, _memo={}, _parsed_probes={})
