"""What a NodePool answers whatever the pod: its NodeClass, its readiness, whether it launches at all (static,
deleting), and its recent InsufficientCapacityError (EC2 had none of what the pool launches)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, SPEC, Check
from kubectl_gpu.core.analyses.pending.targets.pools.memo import PoolMemo
from kubectl_gpu.core.analyses.pending.times import minutes_ago
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.k8s.models import Event, NodePool
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = [
    "CAPACITY_EVENT_WINDOW",
    "capacity_event",
    "capacity_events_key",
    "node_class_blocker",
    "ready_blocker",
    "state_blocker",
]


def _not_ready(ref: TargetRef, message: str, fix: str) -> Blocker:
    return Blocker(Verdict.NODECLASS_NOT_READY, CAPACITY, ref, message, fix)


def node_class_blocker(pool: NodePool, target: TargetRef, state: ClusterState) -> Blocker | Check:
    """NODECLASS_NOT_READY when the pool's NodeClass is missing or not Ready, else its check."""
    ref = pool.node_class_ref
    if ref is None:
        return _not_ready(
            target,
            f"NodePool {pool.name} has no nodeClassRef",
            "set spec.template.spec.nodeClassRef to an existing NodeClass",
        )
    label = f"{ref.kind} {ref.name}"
    pool_cond = next((c for c in pool.conditions if c.type == "NodeClassReady"), None)
    node_class = state.nodeclass_by_ref.get((ref.kind, ref.name))
    listed = any(c.kind == ref.kind for c in state.nodeclasses)
    if node_class is None and listed:
        return _not_ready(
            target,
            f"NodePool {pool.name} references {label}, which does not exist",
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
            f"NodePool {pool.name} reports NodeClassReady=False: {why}",
            f"kubectl describe {ref.kind.lower()} {ref.name}",
        )
    if node_class is None:
        return Check("nodeclass", None, f"{label}: not in the data (not listed or no permission)")
    readiness = "Ready" if node_class.ready else "no Ready condition reported"
    return Check("nodeclass", True, f"{label}: {readiness}")


def ready_blocker(pool: NodePool, ref: TargetRef, node_class: Blocker | Check) -> Blocker | None:
    """Karpenter's `Provisioner.NewScheduler` skips a NodePool unless its Ready condition is True
    ("ignoring nodepool, not ready"); a NodeClass problem is reported as NODECLASS_NOT_READY instead."""
    if isinstance(node_class, Blocker):
        return None
    cond = next((c for c in pool.conditions if c.type == "Ready"), None)
    if cond is None or cond.status != "False":
        return None
    why = cond.message or cond.reason or "Ready=False"
    return Blocker(
        Verdict.NODEPOOL_NOT_READY,
        CAPACITY,
        ref,
        f"NodePool {pool.name} is not Ready ({why}): Karpenter launches nothing from it",
        f"kubectl describe nodepool {pool.name}  # fix what its conditions report",
    )


def state_blocker(pool: NodePool, ref: TargetRef) -> Blocker | None:
    """`Provisioner.NewScheduler` keeps only the NodePools it may launch from for Pending pods: not a static
    one (`nodepoolutils.IsStatic`: `spec.replicas` set; its own controller keeps that many nodes) and not one
    being deleted (`np.DeletionTimestamp.IsZero()`)."""
    if pool.meta.deleting:
        return Blocker(
            Verdict.NODEPOOL_DELETING,
            SPEC,
            ref,
            f"NodePool {pool.name} is being deleted (deletionTimestamp set): Karpenter launches nothing from it",
            f"use another NodePool, or recreate {pool.name} once it is gone (kubectl get nodepool {pool.name} -o yaml "
            "shows its finalizers)",
        )
    if pool.replicas is not None:
        return Blocker(
            Verdict.STATIC_NODEPOOL,
            SPEC,
            ref,
            f"NodePool {pool.name} is static (spec.replicas: {pool.replicas}): it keeps that many nodes and never "
            "launches one for a Pending pod",
            f"raise spec.replicas of NodePool {pool.name}, or use a NodePool without replicas (dynamic)",
        )
    return None


# How far back an InsufficientCapacityError still says "the cloud is out of this".
CAPACITY_EVENT_WINDOW = timedelta(hours=1)


def recent_capacity_events(state: ClusterState, now: datetime) -> tuple[dict[str, str | None], list[Event]]:
    """NodeClaim name -> its pool (only where there are such errors), and the InsufficientCapacityErrors of
    the window (once per analysis: every pool asks)."""
    recent = []
    for event in state.events:
        if event.reason != "InsufficientCapacityError" or event.last_seen is None:
            continue
        if now - event.last_seen > CAPACITY_EVENT_WINDOW or event.last_seen > now + timedelta(minutes=5):
            continue
        recent.append(event)
    claims = {c.name: c.node_pool for c in state.nodeclaims} if recent else {}
    return claims, recent


def capacity_events_key(now: datetime) -> tuple[str, datetime]:
    """The key of `recent_capacity_events` in a PoolMemo's shared values."""
    return ("capacity events", now)


def capacity_event(
    pool: NodePool, ref: TargetRef, state: ClusterState, memo: PoolMemo, now: datetime
) -> Blocker | None:
    """The newest recent InsufficientCapacityError of this pool's NodeClaims (or the pool itself)."""
    claims, recent = memo.shared(capacity_events_key(now), lambda: recent_capacity_events(state, now))
    if not recent:
        return None
    name_of_pool = pool.name
    claim_name = re.compile(re.escape(name_of_pool) + r"-[a-z0-9]{5}")
    matching = []
    for event in recent:
        name = event.involved.name or ""
        owner: str | None
        if event.involved.kind == "NodePool":
            owner = name
        elif name in claims:
            owner = claims[name]
        else:
            # A deleted NodeClaim: Karpenter names claims <nodepool>-<5 random characters>.
            owner = name_of_pool if claim_name.fullmatch(name) else None
        if owner == name_of_pool:
            matching.append(event)
    if not matching:
        return None
    event = max(matching, key=lambda e: e.last_seen or now)
    assert event.last_seen is not None
    return Blocker(
        Verdict.CAPACITY_UNAVAILABLE,
        CAPACITY,
        ref,
        f"EC2 had no capacity for NodePool {name_of_pool} {minutes_ago(now - event.last_seen)}: {event.message}",
        "widen the pool (more instance families or sizes, more zones, spot and on-demand) or "
        "use a capacity reservation; Karpenter retries on its own",
    )
