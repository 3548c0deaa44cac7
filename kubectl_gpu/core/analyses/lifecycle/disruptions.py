"""Disruption timing: every way a node (or one pod on it) can be taken away - expiry, drift, consolidation -
each at its earliest time, given the pool's budgets, terminationGracePeriod and do-not-disrupt."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from kubectl_gpu.core.analyses.lifecycle.report import Disruption, NodeLifecycle
from kubectl_gpu.core.k8s.durations import FOREVER
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.karpenter.budgets import PoolBudgets
from kubectl_gpu.core.karpenter.do_not_disrupt import Protection, block_until

__all__ = ["NodeContext", "disruptions_for"]

_DEFAULT_POD_TGPS = 30


@dataclass
class NodeContext:
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
    life = ctx.life
    key = f"{pod.namespace}/{pod.name}" if pod is not None else None
    own = ctx.protections.get(key) if key is not None else None
    pod_tgps = _pod_tgps(pod) if pod is not None else timedelta(0)
    out: list[Disruption] = []
    node_blocked = life.node_do_not_disrupt == "true"

    # Expiry (forceful): the drain starts at expiresAt whatever the budgets and annotations say.
    if life.expires_at is not None and life.expiry_reason is not None:
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
                detail += "; do-not-disrupt holds this pod until the terminationGracePeriod (or its duration) runs out"
        if at is not None:  # None: this do-not-disrupt pod outlives the drain (see LIFECYCLE_DND_WITHOUT_TGP)
            out.append(Disruption(by, at, True, True, detail))

    # Drift (graceful, budget "Drifted"): only for a node already marked Drifted.
    others = block_until(ctx.protections.values(), now)
    if life.drifted:
        reason_text = f"NodeClaim Drifted ({life.drift_reason or 'no reason'})"
        if node_blocked:
            pass  # the node's own do-not-disrupt=true keeps drift from even selecting it
        elif ctx.tgp is not None:
            start = _next_allowed(ctx, "Drifted", now)
            if start is not None:
                at_pod: datetime | None = start
                detail = f"{reason_text}: replacement when the Drifted budget allows; terminationGracePeriod {life.termination_grace_period.value} lets drift proceed past do-not-disrupt"
                if own is not None and own.active_at(start):
                    ends = own.ends if own.ends not in (None, FOREVER) else None
                    deadline = start + ctx.tgp - pod_tgps
                    at_pod = min(t for t in (ends, deadline) if t is not None)
                out.append(Disruption("drift", at_pod, False, True, detail))
        else:
            earliest = now if others is None else max(now, others)
            if earliest != FOREVER:
                start = _next_allowed(ctx, "Drifted", earliest)
                if start is not None:
                    detail = f"{reason_text}: replacement when the Drifted budget allows"
                    if others is not None:
                        detail += " and do-not-disrupt has lapsed"
                    out.append(Disruption("drift", start, False, True, detail))

    # Consolidation (graceful, budget "Underutilized"): may happen when the pods fit elsewhere.
    if ctx.consolidation_enabled:
        earliest = now if others is None else max(now, others)
        if earliest != FOREVER:
            start = _next_allowed(ctx, "Underutilized", earliest)
            if start is not None:
                out.append(
                    Disruption(
                        "consolidation",
                        start,
                        False,
                        False,
                        f"consolidationPolicy {ctx.policy}: the node may be removed or replaced with a cheaper one "
                        "when its pods fit elsewhere (budget Underutilized)",
                    )
                )

    # A future drift (new AMI) cannot be dated; say it is possible where it is.
    if (
        not life.drifted
        and ctx.ami_drift_expected
        and not node_blocked
        and not (ctx.budgets is not None and ctx.budgets.blocked_always("Drifted"))
        and (ctx.tgp is not None or others is None or others != FOREVER)
    ):
        source = (
            "EKS Auto Mode ships a new AMI about weekly"
            if life.compute_type == "auto"
            else ("the EC2NodeClass follows an @latest AMI alias")
        )
        out.append(
            Disruption(
                "drift",
                None,
                False,
                False,
                f"{source}: the node will be marked Drifted and replaced within the Drifted budget",
            )
        )
    return tuple(sorted(out, key=Disruption.sort_key))


def _pod_tgps(pod: Pod) -> timedelta:
    value = pod.termination_grace_period_seconds
    seconds = value if value is not None else _DEFAULT_POD_TGPS
    return timedelta(seconds=seconds)
