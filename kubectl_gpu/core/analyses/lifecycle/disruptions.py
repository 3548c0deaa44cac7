"""Disruption timing: every way a node (or one pod on it) can be taken away - expiry, drift, consolidation -
each at its earliest time, given the pool's budgets, terminationGracePeriod and do-not-disrupt."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from kubectl_gpu.core.analyses.lifecycle.report import Disruption, NodeLifecycle
from kubectl_gpu.core.k8s.durations import FOREVER
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.do_not_disrupt import Protection, block_until, blocks_disruption

__all__ = ["NodeContext", "disruptions_for"]

_DEFAULT_POD_TGPS = 30


class NodeContext(msgspec.Struct, dict=True):
    """What one node's analysis computed, reused for its pods."""

    node: Node
    life: NodeLifecycle
    budgets: PoolBudgets | None
    tgp: timedelta | None
    policy: str | None
    consolidation_enabled: bool
    ami_drift_expected: bool
    protections: dict[str, Protection]  # pod key -> protection


def _next_allowed(ctx: NodeContext, reason: str, start: datetime) -> datetime | None:
    if ctx.budgets is None:
        return start
    life = ctx.life
    return ctx.budgets.next_allowed(reason, start, max(life.pool_nodes, 1), life.pool_disrupting)


def disruptions_for(ctx: NodeContext, pod: Pod | None, now: datetime) -> tuple[Disruption, ...]:
    """Every way the node - or, with `pod`, that pod - can be disrupted, each at its earliest time."""
    key = f"{pod.namespace}/{pod.name}" if pod is not None else None
    own = ctx.protections.get(key) if key is not None else None
    pod_tgps = _pod_tgps(pod) if pod is not None else timedelta(0)
    node_blocked = blocks_disruption(ctx.node.meta.annotations)
    others = block_until(ctx.protections.values(), now)
    found = [
        _expiry(ctx, own, pod_tgps),
        _drift(ctx, own, pod_tgps, others, now) if ctx.life.drifted and not node_blocked else None,
        _consolidation(ctx, others, now),
        _future_drift(ctx, others, node_blocked),
    ]
    return tuple(sorted((d for d in found if d is not None), key=Disruption.sort_key))


def _expiry(ctx: NodeContext, own: Protection | None, pod_tgps: timedelta) -> Disruption | None:
    """Expiry (forceful): the drain starts at expiresAt whatever the budgets and annotations say."""
    life = ctx.life
    if life.expires_at is None or life.expiry_reason is None:
        return None
    by = life.expiry_reason if life.expiry_reason == "maxLifetime" else "expiry"
    what = (
        "EKS Auto Mode's 21-day maximum node lifetime"
        if by == "maxLifetime"
        else f"expireAfter {life.expire_after.value} ({life.expire_after.source})"
    )
    at: datetime | None = life.expires_at
    detail = f"{what}: forceful, not limited by disruption budgets or do-not-disrupt"
    if own is not None and own.active_at(life.expires_at) and by == "expiry":
        ends = own.ends if own.ends is not None and own.ends != FOREVER else None
        forced = life.forced_by - pod_tgps if life.forced_by is not None else None
        candidates = [t for t in (ends, forced) if t is not None]
        at = max(min(candidates), life.expires_at) if candidates else None
        if at is None:
            detail += (
                "; the drain starts then but cannot evict this do-not-disrupt pod (no terminationGracePeriod): "
                "the node stays half-drained until the pod ends"
            )
        else:
            detail += (
                "; do-not-disrupt holds this pod until the terminationGracePeriod (or its duration) runs out"
            )
    # None: this do-not-disrupt pod outlives the drain (see LIFECYCLE_DND_WITHOUT_TGP)
    return Disruption(by, at, True, True, detail) if at is not None else None


def _drift(
    ctx: NodeContext, own: Protection | None, pod_tgps: timedelta, others: datetime | None, now: datetime
) -> Disruption | None:
    """Drift (graceful, budget "Drifted") of a node already marked Drifted whose own do-not-disrupt does not
    keep drift from selecting it."""
    life = ctx.life
    reason_text = f"NodeClaim Drifted ({life.drift_reason or 'no reason'})"
    if ctx.tgp is not None:
        start = _next_allowed(ctx, "Drifted", now)
        if start is None:
            return None
        at_pod: datetime | None = start
        detail = f"{reason_text}: replacement when the Drifted budget allows; terminationGracePeriod {life.termination_grace_period.value} lets drift proceed past do-not-disrupt"
        if own is not None and own.active_at(start):
            ends = own.ends if own.ends not in (None, FOREVER) else None
            deadline = start + ctx.tgp - pod_tgps
            at_pod = min(t for t in (ends, deadline) if t is not None)
        return Disruption("drift", at_pod, False, True, detail)
    earliest = now if others is None else max(now, others)
    if earliest == FOREVER:
        return None
    start = _next_allowed(ctx, "Drifted", earliest)
    if start is None:
        return None
    detail = f"{reason_text}: replacement when the Drifted budget allows"
    if others is not None:
        detail += " and do-not-disrupt has lapsed"
    return Disruption("drift", start, False, True, detail)


def _consolidation(ctx: NodeContext, others: datetime | None, now: datetime) -> Disruption | None:
    """Consolidation (graceful, budget "Underutilized"): may happen when the pods fit elsewhere."""
    if not ctx.consolidation_enabled:
        return None
    earliest = now if others is None else max(now, others)
    if earliest == FOREVER:
        return None
    start = _next_allowed(ctx, "Underutilized", earliest)
    if start is None:
        return None
    return Disruption(
        "consolidation",
        start,
        False,
        False,
        f"consolidationPolicy {ctx.policy}: the node may be removed or replaced with a cheaper one "
        "when its pods fit elsewhere (budget Underutilized)",
    )


def _future_drift(ctx: NodeContext, others: datetime | None, node_blocked: bool) -> Disruption | None:
    """A future drift (new AMI) cannot be dated; say it is possible where it is."""
    life = ctx.life
    if (
        life.drifted
        or not ctx.ami_drift_expected
        or node_blocked
        or (ctx.budgets is not None and ctx.budgets.blocked_always("Drifted"))
        or not (ctx.tgp is not None or others is None or others != FOREVER)
    ):
        return None
    source = (
        "EKS Auto Mode ships a new AMI about weekly"
        if life.compute_type == "auto"
        else ("the EC2NodeClass follows an @latest AMI alias")
    )
    return Disruption(
        "drift",
        None,
        False,
        False,
        f"{source}: the node will be marked Drifted and replaced within the Drifted budget",
    )


def _pod_tgps(pod: Pod) -> timedelta:
    value = pod.termination_grace_period_seconds
    seconds = value if value is not None else _DEFAULT_POD_TGPS
    return timedelta(seconds=seconds)
