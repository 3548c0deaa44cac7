"""What a NodePool answers whatever the pod: the limits it has left (and the words of its limits check), its
NodeClass, its readiness."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from kubectl_gpu.core.analyses.pending.evaluation import CAPACITY, SPEC, ZERO, Check, short_quantity
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, Verdict
from kubectl_gpu.core.k8s.models import Resources
from kubectl_gpu.core.scheduling.instances import raw_capacity_of

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget
    from kubectl_gpu.core.analyses.pending.pool_template import LimitAnswer

__all__ = [
    "claims_usage",
    "limit_parts",
    "node_class_blocker",
    "ready_blocker",
    "remaining_limits",
    "state_blocker",
]


def claims_usage(target: PoolTarget) -> Resources:
    used: Resources = {}
    for claim in target.state.nodeclaims_by_pool.get(target.pool.name, ()):
        capacity = dict(claim.capacity)
        if not capacity:
            itype = claim.meta.labels.get("node.kubernetes.io/instance-type")
            it = target.catalog.by_name(itype) if itype else None
            if it is not None:  # "nodes" is counted once per claim below
                capacity = {r: raw_capacity_of(it, r) for r in target.pool.limits if r != "nodes"}
                if "pods" in capacity:
                    capacity["pods"] = Decimal(it.allocatable_pods or 0)
        for name, value in capacity.items():
            used[name] = used.get(name, ZERO) + value
        used["nodes"] = used.get("nodes", ZERO) + 1
    return used


def remaining_limits(target: PoolTarget) -> Resources:
    if not target.pool.limits:
        return {}
    claims = claims_usage(target)
    status = target.pool.status_resources
    return {
        name: limit - max(claims.get(name, ZERO), status.get(name, ZERO))
        for name, limit in target.pool.limits.items()
    }


def _not_ready(target: PoolTarget, message: str, fix: str) -> Blocker:
    return Blocker(Verdict.NODECLASS_NOT_READY, CAPACITY, target.ref, message, fix)


def node_class_blocker(target: PoolTarget) -> Blocker | Check:
    ref = target.pool.node_class_ref
    if ref is None:
        return _not_ready(
            target,
            f"NodePool {target.pool.name} has no nodeClassRef",
            "set spec.template.spec.nodeClassRef to an existing NodeClass",
        )
    label = f"{ref.kind} {ref.name}"
    pool_cond = next((c for c in target.pool.conditions if c.type == "NodeClassReady"), None)
    node_class = target.state.nodeclass_by_ref.get((ref.kind, ref.name))
    listed = any(c.kind == ref.kind for c in target.state.nodeclasses)
    if node_class is None and listed:
        return _not_ready(
            target,
            f"NodePool {target.pool.name} references {label}, which does not exist",
            f"create {label} or point nodeClassRef at an existing one (kubectl get {ref.kind.lower()}es)",
        )
    if node_class is not None and node_class.ready is False:
        cond = next(c for c in node_class.conditions if c.type == "Ready")
        why = cond.message or cond.reason or "Ready=False"
        return _not_ready(
            target,
            f"{label} is not Ready: {why}",
            f"kubectl describe {ref.kind.lower()} {ref.name}  # fix what its conditions report",
        )
    if pool_cond is not None and pool_cond.status == "False":
        why = pool_cond.message or pool_cond.reason or "NodeClassReady=False"
        return _not_ready(
            target,
            f"NodePool {target.pool.name} reports NodeClassReady=False: {why}",
            f"kubectl describe {ref.kind.lower()} {ref.name}",
        )
    if node_class is None:
        return Check("nodeclass", None, f"{label}: not in the data (not listed or no permission)")
    state = "Ready" if node_class.ready else "no Ready condition reported"
    return Check("nodeclass", True, f"{label}: {state}")


def ready_blocker(target: PoolTarget) -> Blocker | None:
    """Karpenter's `Provisioner.NewScheduler` skips a NodePool unless its Ready condition is True
    ("ignoring nodepool, not ready"); a NodeClass problem is reported as NODECLASS_NOT_READY instead."""
    if isinstance(target.node_class_blocker, Blocker):
        return None
    cond = next((c for c in target.pool.conditions if c.type == "Ready"), None)
    if cond is None or cond.status != "False":
        return None
    why = cond.message or cond.reason or "Ready=False"
    return Blocker(
        Verdict.NODEPOOL_NOT_READY,
        CAPACITY,
        target.ref,
        f"NodePool {target.pool.name} is not Ready ({why}): Karpenter launches nothing from it",
        f"kubectl describe nodepool {target.pool.name}  # fix what its conditions report",
    )


def state_blocker(target: PoolTarget) -> Blocker | None:
    """`Provisioner.NewScheduler` keeps only the NodePools it may launch from for Pending pods: not a static
    one (`nodepoolutils.IsStatic`: `spec.replicas` set; its own controller keeps that many nodes) and not one
    being deleted (`np.DeletionTimestamp.IsZero()`)."""
    pool = target.pool
    if pool.meta.deleting:
        return Blocker(
            Verdict.NODEPOOL_DELETING,
            SPEC,
            target.ref,
            f"NodePool {pool.name} is being deleted (deletionTimestamp set): Karpenter launches nothing from it",
            f"use another NodePool, or recreate {pool.name} once it is gone (kubectl get nodepool {pool.name} -o yaml "
            "shows its finalizers)",
        )
    if pool.replicas is not None:
        return Blocker(
            Verdict.STATIC_NODEPOOL,
            SPEC,
            target.ref,
            f"NodePool {pool.name} is static (spec.replicas: {pool.replicas}): it keeps that many nodes and never "
            "launches one for a Pending pod",
            f"raise spec.replicas of NodePool {pool.name}, or use a NodePool without replicas (dynamic)",
        )
    return None


def limit_parts(
    target: PoolTarget, answer: LimitAnswer, blockers: list[Blocker], checks: list[Check]
) -> None:
    """The limits check of a pool for a shape, and its blocker when what is left stops every fitting type."""
    remaining = target.remaining_text
    if answer.state == "none":
        checks.append(Check("limits", True, "no limits"))
    elif answer.state == "forbidden":
        checks.append(Check("limits", None, "NodeClaims could not be read (forbidden): usage unknown"))
    elif answer.state == "unfitted":
        checks.append(Check("limits", None, f"remaining {remaining}"))
    elif answer.state == "unknown":
        checks.append(Check("limits", None, f"remaining {remaining}; {answer.detail}"))
    elif answer.problem is None:
        checks.append(Check("limits", True, f"remaining {remaining}"))
    else:
        name = target.pool.name
        limits = ", ".join(f"{k}={short_quantity(v, k)}" for k, v in sorted(target.pool.limits.items()))
        message = f"NodePool {name} limits ({limits}) are used up: {answer.problem}"
        fix = f"raise spec.limits of NodePool {name} (kubectl edit nodepool {name}) or free capacity in it"
        blockers.append(Blocker(Verdict.NODEPOOL_LIMIT_REACHED, CAPACITY, target.ref, message, fix))
        checks.append(Check("limits", False, message))
