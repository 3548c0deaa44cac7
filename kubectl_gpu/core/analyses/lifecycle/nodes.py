"""Per node: its pool, NodeClaim, expiry, drift, consolidation settings and budgets, read from the cluster
into a `NodeContext` whose `NodeLifecycle` carries the node's disruptions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from kubectl_gpu.core.analyses.lifecycle.disruptions import NodeContext, disruptions_for
from kubectl_gpu.core.analyses.lifecycle.pods import wants_accelerator
from kubectl_gpu.core.analyses.lifecycle.report import Allowance, Disruption, NodeLifecycle
from kubectl_gpu.core.fleet.nodes import compute_type
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
from kubectl_gpu.core.karpenter.do_not_disrupt import DO_NOT_DISRUPT, protection_of
from kubectl_gpu.core.karpenter.settings import (
    AUTO_MODE_MAX_LIFETIME,
    DEFAULT_POLICY,
    Setting,
    expire_after_of,
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


@dataclass(frozen=True, slots=True)
class PoolView:
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


def node_context(node: Node, state: ClusterState, now: datetime, pools: dict[str, PoolView]) -> NodeContext:
    labels = node.labels
    claim = state.nodeclaim_by_node.get(node.name)
    pool_name = labels.get("karpenter.sh/nodepool") or (claim.node_pool if claim else None)
    pool = state.nodepool_by_name.get(pool_name) if pool_name else None
    ctype = compute_type(labels)
    notes: list[str] = []
    if pool_name is None and claim is None:
        notes.append(
            "not managed by Karpenter or EKS Auto Mode (no karpenter.sh/nodepool label, no NodeClaim)"
        )
    elif pool is None:
        notes.append(f"NodePool {pool_name} was not read: budgets and consolidation policy unknown")
    if pool_name and claim is None and "nodeclaims" not in state.absent:
        notes.append(
            "no NodeClaim for this node was read: drift status and the NodeClaim's own settings unknown"
        )

    blocked = _blocked_events(state, node, claim, now)
    notes.extend(blocked)
    created = claim.meta.created if claim is not None and claim.meta.created else node.meta.created
    expire = expire_after_of(claim, pool)
    tgp_setting = termination_grace_of(claim, pool)
    expire_delta = setting_duration(expire)
    tgp = setting_duration(tgp_setting)
    cap = AUTO_MODE_MAX_LIFETIME if ctype == "auto" else None

    expires_at: datetime | None = None
    reason: str | None = None
    forced_by: datetime | None = None
    if created is not None:
        by_expire = created + expire_delta if expire_delta is not None else None
        by_cap = created + cap if cap is not None else None
        if by_expire is not None and (by_cap is None or by_expire <= by_cap):
            expires_at, reason = by_expire, "expireAfter"
        elif by_cap is not None:
            expires_at, reason = by_cap, "maxLifetime"
        if expires_at is not None:
            forced_by = expires_at + tgp if tgp is not None and reason == "expireAfter" else None
            if reason == "maxLifetime":
                forced_by = expires_at
            elif by_cap is not None:
                forced_by = min(forced_by, by_cap) if forced_by is not None else by_cap

    drifted: bool | None = None
    drift_reason = None
    drifted_since = None
    if claim is not None:
        cond = claim.condition("Drifted")
        drifted = cond is not None and cond.is_true
        if cond is not None and cond.is_true:
            drift_reason = cond.reason
            drifted_since = cond.last_transition

    if pool is not None:
        policy = Setting(
            pool.consolidation_policy or DEFAULT_POLICY,
            "nodepool" if pool.consolidation_policy else "karpenter-default",
        )
        after = Setting(
            pool.consolidate_after or "0s", "nodepool" if pool.consolidate_after else "karpenter-default"
        )
    else:
        policy = Setting(None, "unknown")
        after = Setting(None, "unknown")

    pods = [p for p in state.pods_by_node.get(node.name, []) if not p.terminated]
    protections = {f"{p.namespace}/{p.name}": prot for p in pods if (prot := protection_of(p)) is not None}
    gpu_pods = sum(1 for p in pods if wants_accelerator(p))
    node_dnd = node.meta.annotations.get(DO_NOT_DISRUPT)
    node_blocked = node_dnd == "true"

    view = pool_view(pool, state, now, pools) if pool is not None else None
    budgets = view.budgets if view is not None else None
    pool_nodes, pool_disrupting = (view.nodes, view.disrupting) if view is not None else (0, 0)
    allowances = list(view.allowances) if view is not None else []

    consolidation_enabled = (
        policy.value in ("WhenEmptyOrUnderutilized", "Balanced")
        and after.value != "Never"
        and not node_blocked
    )
    node_class = None
    if pool is not None and pool.node_class_ref is not None:
        node_class = state.nodeclass_by_ref.get((pool.node_class_ref.kind, pool.node_class_ref.name))
    ami_drift_expected = ctype == "auto" or _ami_tracks_latest(node_class)

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
        node_do_not_disrupt=node_dnd,
        protections=tuple(sorted(protections.values(), key=lambda p: (p.namespace, p.name))),
        budgets=view.states if view is not None else None,
        budgets_defaulted=budgets.defaulted if budgets is not None else False,
        allowances=tuple(allowances),
        pool_nodes=pool_nodes,
        pool_disrupting=pool_disrupting,
        disruptions=(),
        gpu_pods=gpu_pods,
        notes=tuple(notes),
    )
    ctx = NodeContext(
        node,
        life,
        budgets,
        tgp,
        policy.value,
        consolidation_enabled and pool is not None,
        ami_drift_expected,
        protections,
    )
    node_disruptions = disruptions_for(ctx, None, now)
    ctx.life = _replace_disruptions(life, node_disruptions)
    return ctx


def _replace_disruptions(life: NodeLifecycle, disruptions: tuple[Disruption, ...]) -> NodeLifecycle:
    return replace(life, disruptions=disruptions)
