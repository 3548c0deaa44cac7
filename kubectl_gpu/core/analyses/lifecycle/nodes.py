"""Per node: its pool, NodeClaim, expiry, drift, consolidation settings and budgets, read from the cluster
into a `NodeContext` whose `NodeLifecycle` carries the node's disruptions."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from kubectl_gpu.core.accelerators.nodes import compute_type
from kubectl_gpu.core.analyses.lifecycle.disruptions import NodeContext, disruptions_for
from kubectl_gpu.core.analyses.lifecycle.pods import accelerator_pods
from kubectl_gpu.core.analyses.lifecycle.report import Allowance, Disruption, NodeLifecycle
from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.core.k8s.models import Node, NodeClaim, NodeClass, NodePool
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import (
    REASONS,
    UNBOUNDED,
    BudgetState,
    PoolBudgets,
    pool_disruption_counts,
)
from kubectl_gpu.core.karpenter.do_not_disrupt import DO_NOT_DISRUPT, blocks_disruption, protection_of
from kubectl_gpu.core.karpenter.settings import (
    AUTO_MODE_MAX_LIFETIME,
    consolidate_after_of,
    consolidation_policy_of,
    expire_after_of,
    is_static,
    setting_duration,
    termination_grace_of,
)

__all__ = ["EVENT_WINDOW", "PoolView", "node_context"]


_BLOCK_REASONS = ("DisruptionBlocked", "Unconsolidatable")
EVENT_WINDOW = timedelta(hours=1)


def _blocked_events(state: ClusterState, node: Node, claim: NodeClaim | None, now: datetime) -> list[str]:
    """What Karpenter / Auto Mode said in the last hour about why it could not disrupt this node (PDBs and
    other blockers this tool does not evaluate itself)."""
    events = list(state.events_for("Node", node.name))
    if claim is not None:
        events += state.events_for("NodeClaim", claim.name)
    latest: dict[str, tuple[datetime, str]] = {}
    for event in events:
        seen = event.last_seen
        if event.reason not in _BLOCK_REASONS or seen is None or not now - EVENT_WINDOW <= seen <= now:
            continue
        if event.reason not in latest or seen > latest[event.reason][0]:
            latest[event.reason] = (seen, event.message)
    return [f"{reason} at {timestamp(seen)}: {message}" for reason, (seen, message) in sorted(latest.items())]


def _ami_tracks_latest(node_class: NodeClass | None) -> bool:
    """A self-managed EC2NodeClass whose AMI alias follows `@latest` drifts on every new AMI."""
    if node_class is None or node_class.kind != "EC2NodeClass":
        return False
    return any(alias.endswith("@latest") for alias in node_class.ami_aliases)


class PoolView(msgspec.Struct, frozen=True):
    """A NodePool's budgets evaluated once per report (every node of the pool shares them)."""

    budgets: PoolBudgets
    nodes: int
    disrupting: int
    allowances: tuple[Allowance, ...]
    states: tuple[BudgetState, ...]


def pool_view(pool: NodePool, state: ClusterState, now: datetime, cache: dict[str, PoolView]) -> PoolView:
    view = cache.get(pool.name)
    if view is None:
        budgets = PoolBudgets(pool.budgets)
        nodes, disrupting = pool_disruption_counts(state, pool.name)
        allowances = []
        for reason in REASONS:
            allowed = budgets.effective(reason, now, max(nodes, 1), disrupting)
            allowances.append(
                Allowance(
                    reason,
                    None if allowed == UNBOUNDED else allowed,
                    budgets.next_allowed(reason, now, max(nodes, 1), disrupting),
                )
            )
        view = cache[pool.name] = PoolView(
            budgets, nodes, disrupting, tuple(allowances), tuple(budgets.states(now))
        )
    return view


def _notes(
    state: ClusterState, claim: NodeClaim | None, pool_name: str | None, pool: NodePool | None
) -> list[str]:
    notes: list[str] = []
    if pool_name is None and claim is None:
        notes.append(
            "not managed by Karpenter or EKS Auto Mode (no karpenter.sh/nodepool label, no NodeClaim)"
        )
    elif pool is None:
        notes.append(f"NodePool {pool_name} was not read: budgets and consolidation policy unknown")
    elif is_static(pool):
        notes.append(
            f"NodePool {pool_name} is static (replicas {pool.replicas}): Karpenter never consolidates its nodes "
            "(its consolidationPolicy is ignored); drift and expiry still replace them"
        )
    if pool_name and claim is None and "nodeclaims" not in state.absent:
        notes.append(
            "no NodeClaim for this node was read: drift status and the NodeClaim's own settings unknown"
        )
    return notes


def _expiry(
    created: datetime | None, expire: timedelta | None, cap: timedelta | None, tgp: timedelta | None
) -> tuple[datetime | None, str | None, datetime | None]:
    """(expires at, "expireAfter" | "maxLifetime", instance terminated by at the latest)."""
    if created is None:
        return None, None, None
    by_expire = created + expire if expire is not None else None
    by_cap = created + cap if cap is not None else None
    if by_expire is not None and (by_cap is None or by_expire <= by_cap):
        expires_at, reason = by_expire, "expireAfter"
    elif by_cap is not None:
        expires_at, reason = by_cap, "maxLifetime"
    else:
        return None, None, None
    if reason == "maxLifetime":
        return expires_at, reason, expires_at
    forced_by = expires_at + tgp if tgp is not None else None
    if by_cap is not None:
        forced_by = min(forced_by, by_cap) if forced_by is not None else by_cap
    return expires_at, reason, forced_by


def _drift(claim: NodeClaim | None) -> tuple[bool | None, str | None, datetime | None]:
    """(drifted, its reason, since when); drifted is None without a NodeClaim to tell."""
    if claim is None:
        return None, None, None
    cond = claim.condition("Drifted")
    if cond is None or not cond.is_true:
        return False, None, None
    return True, cond.reason, cond.last_transition


def node_context(node: Node, state: ClusterState, now: datetime, pools: dict[str, PoolView]) -> NodeContext:
    labels = node.labels
    claim = state.nodeclaim_by_node.get(node.name)
    pool_name = labels.get("karpenter.sh/nodepool") or (claim.node_pool if claim else None)
    pool = state.nodepool_by_name.get(pool_name) if pool_name else None
    ctype = compute_type(labels)
    notes = _notes(state, claim, pool_name, pool)
    notes.extend(_blocked_events(state, node, claim, now))
    created = claim.meta.created if claim is not None and claim.meta.created else node.meta.created
    expire = expire_after_of(claim, pool)
    tgp_setting = termination_grace_of(claim, pool)
    tgp = setting_duration(tgp_setting)
    cap = AUTO_MODE_MAX_LIFETIME if ctype == "auto" else None
    expires_at, reason, forced_by = _expiry(created, setting_duration(expire), cap, tgp)
    drifted, drift_reason, drifted_since = _drift(claim)
    policy, after = consolidation_policy_of(pool), consolidate_after_of(pool)

    pods = [p for p in state.pods_by_node.get(node.name, []) if not p.terminated]
    wanting = accelerator_pods(state)
    protections = {f"{p.namespace}/{p.name}": prot for p in pods if (prot := protection_of(p)) is not None}
    view = pool_view(pool, state, now, pools) if pool is not None else None
    budgets = view.budgets if view is not None else None
    consolidation_enabled = (
        policy.value in ("WhenEmptyOrUnderutilized", "Balanced")
        and after.value != "Never"
        and (pool is None or not is_static(pool))  # a static pool is never consolidated
        and not blocks_disruption(node.meta.annotations)
    )
    node_class = None
    if pool is not None and pool.node_class_ref is not None:
        node_class = state.nodeclass_by_ref.get((pool.node_class_ref.kind, pool.node_class_ref.name))

    life = NodeLifecycle(
        name=node.name,
        node_pool=pool_name,
        node_claim=claim.name if claim else None,
        instance_type=labels.get("node.kubernetes.io/instance-type"),
        compute_type=ctype,
        created=created,
        expire_after=expire,
        max_lifetime=cap,
        termination_grace_period=tgp_setting,
        expires_at=expires_at,
        expiry_reason=reason,
        forced_by=forced_by,
        drifted=drifted,
        drift_reason=drift_reason,
        drifted_since=drifted_since,
        consolidation_policy=policy,
        consolidate_after=after,
        node_do_not_disrupt=node.meta.annotations.get(DO_NOT_DISRUPT),
        protections=tuple(sorted(protections.values(), key=lambda p: (p.namespace, p.name))),
        budgets=view.states if view is not None else None,
        budgets_defaulted=budgets.defaulted if budgets is not None else False,
        allowances=view.allowances if view is not None else (),
        pool_nodes=view.nodes if view is not None else 0,
        pool_disrupting=view.disrupting if view is not None else 0,
        disruptions=(),
        gpu_pods=sum(1 for p in pods if id(p) in wanting),
        notes=tuple(notes),
    )
    ami_drift_expected = ctype == "auto" or _ami_tracks_latest(node_class)
    enabled = consolidation_enabled and pool is not None
    ctx = NodeContext(node, life, budgets, tgp, policy.value, enabled, ami_drift_expected, protections)
    ctx.life = _replace_disruptions(life, disruptions_for(ctx, None, now))
    return ctx


def _replace_disruptions(life: NodeLifecycle, disruptions: tuple[Disruption, ...]) -> NodeLifecycle:
    return msgspec.structs.replace(life, disruptions=disruptions)
