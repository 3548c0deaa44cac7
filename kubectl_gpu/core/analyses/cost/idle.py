"""Idle GPU nodes: since when a node has had no GPU pod, and what keeps it (`KEPT_BY_REASONS`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from decimal import Decimal

from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.analyses.cost.report import KeptBy, iso_time
from kubectl_gpu.core.k8s.models import Node, NodeClaim, NodePool, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import BudgetSpec
from kubectl_gpu.core.karpenter.do_not_disrupt import DO_NOT_DISRUPT, blocks_disruption, protection_of
from kubectl_gpu.core.karpenter.lifecycle import is_deleting
from kubectl_gpu.core.karpenter.settings import (
    Setting,
    consolidation_disabled,
    consolidation_policy_of,
    setting_duration,
)


def requests_accelerator(requests: Mapping[str, Decimal]) -> bool:
    """Whether these requests name an accelerator (device plugin resource) above zero."""
    return bool(accelerator_requests(requests))


def is_gpu_pod(pod: Pod, requested: Callable[[Mapping[str, Decimal]], bool] = requests_accelerator) -> bool:
    """A pod that requests an accelerator (device plugin resource) or claims devices through DRA; `requested`:
    `requests_accelerator`, or the same once per requests object (`PerRequests`)."""
    return requested(pod.requests) or bool(pod.resource_claims)


def is_daemon_pod(pod: Pod) -> bool:
    return (
        pod.meta.owner_kind in ("DaemonSet", "Node") or "kubernetes.io/config.mirror" in pod.meta.annotations
    )


def _finished_at(pod: Pod) -> datetime | None:
    """The latest finishedAt among its containers (init containers included), if any finished."""
    finished = [c.finished_at for c in pod.container_statuses if c.finished_at is not None]
    return max(finished) if finished else None


def idle_start(
    node: Node, claim: NodeClaim | None, pods: Iterable[Pod]
) -> tuple[datetime | None, str | None, str | None]:
    """(since, source, last GPU pod key) for a node without running GPU pods."""
    best: tuple[datetime | None, str | None, str | None] = (None, None, None)
    if node.meta.created:
        best = (node.meta.created, "node-created", None)
    elif claim and claim.meta.created:
        best = (claim.meta.created, "nodeclaim-created", None)
    for pod in pods:
        if not is_gpu_pod(pod):
            continue
        finished = _finished_at(pod)
        when, source = (finished, "pod-finished") if finished else (pod.started, "pod-started")
        if when is not None and (best[0] is None or when >= best[0]):
            best = (when, source, pod.meta.key)
    return best


def last_pod_event_of(claim: NodeClaim | None) -> datetime | None:
    return claim.last_pod_event if claim is not None else None


def _pool_of(node: Node, pool_name: str | None, state: ClusterState) -> NodePool | KeptBy:
    """The node's NodePool, or why no Karpenter settings apply (no NodePool label, or not in the data)."""
    if pool_name is None:
        return KeptBy(
            "not-karpenter",
            f"node {node.name} has no karpenter.sh/nodepool label: no consolidation removes it",
            "scale down the node group (or delete the node) that owns it",
        )
    pool = state.nodepool_by_name.get(pool_name)
    if pool is not None:
        return pool
    why = "NodePools could not be read" if "nodepools" not in state.absent else "no NodePools exist"
    return KeptBy(
        "nodepool-unknown",
        f"NodePool {pool_name} is not in the data ({why}): its disruption settings are unknown",
        "grant list on nodepools.karpenter.sh, or include NodePools in the snapshot",
    )


def _pool_settings(pool: NodePool) -> list[KeptBy]:
    kept = []
    if pool.replicas is not None:
        kept.append(
            KeptBy(
                "static-nodepool",
                f"NodePool {pool.name} is static (replicas {pool.replicas}): it keeps that many nodes",
                f"lower spec.replicas on NodePool {pool.name}",
            )
        )
    if consolidation_disabled(pool) and pool.replicas is None:  # a static pool ignores consolidateAfter
        kept.append(
            KeptBy(
                "consolidation-disabled",
                f"NodePool {pool.name} has consolidateAfter: Never (consolidation is off)",
                f"set spec.disruption.consolidateAfter on NodePool {pool.name} to a duration, e.g. 10m",
            )
        )
    return kept


def _other_pods(pool: NodePool, policy: str, others: tuple[str, ...]) -> tuple[list[KeptBy], str]:
    """What non-GPU pods on the node do to consolidation, and the disruption reason that then applies."""
    if not others:
        return [], "Empty"
    listed = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
    taint = "taint GPU nodes (e.g. nvidia.com/gpu:NoSchedule in the NodePool) so non-GPU pods stay off"
    if policy == "WhenEmpty":
        return [
            KeptBy(
                "not-empty",
                f"NodePool {pool.name} consolidates only empty nodes (WhenEmpty) and {len(others)} "
                f"non-GPU pod(s) run on it: {listed}",
                f"{taint}, or move those pods",
            )
        ], "Empty"
    return [
        KeptBy(
            "non-gpu-pods",
            f"{len(others)} non-GPU pod(s) run on it ({listed}); Karpenter removes the node only "
            "once they fit on other nodes",
            taint,
        )
    ], "Underutilized"


def _do_not_disrupt(node: Node, claim: NodeClaim | None, active: list[Pod], now: datetime) -> list[KeptBy]:
    kept = []
    for obj, name, marks in (
        ("node", node.name, node.meta.annotations),
        ("NodeClaim", claim.name if claim else "", claim.meta.annotations if claim else {}),
    ):
        if blocks_disruption(marks):
            kept.append(
                KeptBy(
                    "do-not-disrupt-node",
                    f'{obj} {name} has {DO_NOT_DISRUPT}: "true"',
                    f"kubectl annotate {obj.lower()} {name} {DO_NOT_DISRUPT}-",
                )
            )
    held = [
        (p.meta.key, prot) for p in active if (prot := protection_of(p)) is not None and prot.active_at(now)
    ]
    if held:
        blocking = sorted(key for key, _ in held)
        value = (
            '"true"' if all(prot.kind == "permanent" for _, prot in held) else "a duration not yet run out"
        )
        kept.append(
            KeptBy(
                "do-not-disrupt-pod",
                f"pod(s) {', '.join(blocking[:3])} on it have {DO_NOT_DISRUPT}: {value}",
                f"remove the {DO_NOT_DISRUPT} annotation from those pods once they may be moved",
            )
        )
    return kept


def _zero_budgets(pool: NodePool, reason: str, now: datetime) -> list[KeptBy]:
    kept = []
    for index, budget in enumerate(pool.budgets):
        window = f" (schedule {budget.schedule!r} for {budget.duration})" if budget.schedule else ""
        spec = BudgetSpec.of(budget, index)
        if spec.error is not None:
            # Karpenter fails closed: one budget it cannot evaluate allows no disruption for any reason.
            kept.append(
                KeptBy(
                    "budget-zero",
                    f"NodePool {pool.name} has a disruption budget Karpenter cannot evaluate (nodes "
                    f"{budget.nodes!r}{window}): it then allows no disruption at all",
                    f"fix that budget's schedule, duration or nodes on NodePool {pool.name}",
                )
            )
        elif spec.zero and spec.applies_to(reason) and spec.active(now):
            kept.append(
                KeptBy(
                    "budget-zero",
                    f"NodePool {pool.name} disruption budget nodes: {budget.nodes!r}{window} is active now"
                    + (f" for {', '.join(budget.reasons)}" if budget.reasons else ""),
                    f"raise or narrow that budget on NodePool {pool.name}, or wait for its window to end",
                )
            )
    return kept


def _waiting(pool: NodePool, policy: str, since: datetime | None, now: datetime) -> KeptBy | None:
    """consolidateAfter has not elapsed since the last pod event (or, without one, the idle start)."""
    after = pool.consolidate_after
    wait = setting_duration(Setting(after, "nodepool"))
    if after is None or wait is None or since is None or since + wait <= now:
        return None
    return KeptBy(
        "waiting",
        f"NodePool {pool.name} consolidateAfter {after}: eligible at {iso_time(since + wait)} ({policy})",
    )


def what_keeps(
    node: Node,
    claim: NodeClaim | None,
    pool_name: str | None,
    state: ClusterState,
    idle_since: datetime | None,
    last_event: datetime | None,
    now: datetime,
) -> tuple[tuple[KeptBy, ...], NodePool | None, tuple[str, ...]]:
    kept: list[KeptBy] = []
    active = [p for p in state.pods_by_node.get(node.name, []) if not p.terminated]
    others = tuple(sorted(p.meta.key for p in active if not is_daemon_pod(p)))
    if is_deleting(node, claim):
        kept.append(KeptBy("being-deleted", f"node {node.name} is being deleted or disrupted"))
    pool = _pool_of(node, pool_name, state)
    if isinstance(pool, KeptBy):
        return (*kept, pool), None, others
    kept += _pool_settings(pool)
    if pool.replicas is not None:
        # A static pool is never consolidated (Karpenter's disruption controller skips it), so its policy,
        # its pods, do-not-disrupt and its budgets keep nothing more: lowering replicas is the only way.
        return tuple(kept), pool, others
    policy = str(consolidation_policy_of(pool).value)
    by_pods, reason = _other_pods(pool, policy, others)
    kept += by_pods
    kept += _do_not_disrupt(node, claim, active, now)
    kept += _zero_budgets(pool, reason, now)
    if not kept and (waiting := _waiting(pool, policy, last_event or idle_since, now)) is not None:
        kept.append(waiting)
    return tuple(kept), pool, others
