"""`kubectl gpu cost`: what the accelerators cost per hour, how much of it is idle, and why idle GPU nodes stay.

Figures are per hour at the instant `now`, from requests (what the scheduler reserved), not from GPU
utilisation metrics. On each GPU node (a node `node_rows` lists):

* capacity: accelerators the instance has (and is billed for), in its primary resource's units;
* allocated: the share non-terminated pods request, as a fraction of the node (the largest
  requested/capacity over its accelerator resources, so Neuron cores and MIG slices count) x capacity;
* idle = capacity - allocated (a GPU the device plugin marked unhealthy is idle: it is paid for);
* idle cost per hour = the node's price x idle / capacity.

An idle GPU node has no non-terminated pod requesting an accelerator. It has been idle since the last GPU
pod on it ended (latest `containerStatuses[].state.terminated.finishedAt`), else started (`startTime`),
else since the node (or its NodeClaim) was created. What keeps it is read from its NodePool's disruption
settings, do-not-disrupt annotations, budgets and the other pods on the node (see `KEPT_BY_REASONS`).

Namespaces are charged the share of each node their pods request; the idle part of a node is split among
the namespaces running GPU pods on it in proportion to what they request ("idle share"); the idle cost
of nodes without any GPU pod is not charged to anyone (`totals.idleUnattributed`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, ClassVar, Final

from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import CATALOG_REGION, SOURCE_LIST, Price, PriceBook
from kubectl_gpu.core.fleet.accelerators import accelerator_requests
from kubectl_gpu.core.fleet.nodes import NodeRow, node_rows, usage_fraction
from kubectl_gpu.core.k8s.models import Node, NodeClaim, NodePool, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.karpenter.budgets import BudgetSpec
from kubectl_gpu.core.karpenter.do_not_disrupt import DO_NOT_DISRUPT, blocks_disruption, protection_of
from kubectl_gpu.core.karpenter.lifecycle import is_deleting
from kubectl_gpu.core.karpenter.settings import (
    Setting,
    consolidation_disabled,
    consolidation_policy_of,
    setting_duration,
)
from kubectl_gpu.core.report import FailOn, Finding, ObjectRef, ReportBase, Severity

__all__ = [
    "FINDING_CODES",
    "KEPT_BY_REASONS",
    "CostReport",
    "CostSums",
    "IdleNode",
    "KeptBy",
    "NamespaceCost",
    "NodeCost",
    "PoolCost",
    "analyse",
    "analyse_cost",
]

ZERO = Decimal(0)
HOUR = Decimal(3600)
DEFAULT_MIN_IDLE = timedelta(minutes=15)

FINDING_CODES: Final = {
    "IDLE_GPU_NODE": "a GPU node has had no GPU pod for at least --min-idle; says what keeps it",
    "IDLE_ACCELERATORS": "some accelerators of a node running GPU pods are not requested by any pod",
    "PRICE_UNKNOWN": "a GPU node's instance type has no price (catalog or --price-file): not counted",
}

# Why an idle GPU node is still there. "waiting" only appears when nothing else is found.
KEPT_BY_REASONS: Final = {
    "being-deleted": "the node is already being deleted or disrupted",
    "not-karpenter": "no NodePool label: Karpenter/Auto Mode does not manage the node",
    "nodepool-unknown": "the node's NodePool is not in the data",
    "static-nodepool": "a static NodePool (spec.replicas) keeps a fixed node count",
    "consolidation-disabled": "NodePool consolidateAfter: Never",
    "not-empty": "WhenEmpty, and non-DaemonSet pods still run on the node",
    "non-gpu-pods": "WhenEmptyOrUnderutilized, but non-GPU pods run on it and must fit elsewhere first",
    "do-not-disrupt-node": "karpenter.sh/do-not-disrupt on the node or its NodeClaim",
    "do-not-disrupt-pod": "a pod on the node has karpenter.sh/do-not-disrupt",
    "budget-zero": "a disruption budget with nodes 0 is active for this kind of disruption",
    "waiting": "consolidateAfter has not elapsed since the last pod event on the node",
}


def _money(value: Decimal | None) -> float | None:
    return None if value is None else float(value.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))


def _count(value: Decimal | None) -> int | float | None:
    if value is None:
        return None
    value = value.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN)
    return int(value) if value == value.to_integral_value() else float(value)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def _fmt_money(value: Decimal) -> str:
    return f"${value:.2f}"


def _fmt_count(value: Decimal) -> str:
    c = _count(value)
    return str(c)


# --------------------------------------------------------------------------- pods


def is_gpu_pod(pod: Pod) -> bool:
    """A pod that requests an accelerator (device plugin resource) or claims devices through DRA."""
    return bool(accelerator_requests(pod.requests)) or bool(pod.resource_claims)


def _is_daemon(pod: Pod) -> bool:
    return (
        pod.meta.owner_kind in ("DaemonSet", "Node") or "kubernetes.io/config.mirror" in pod.meta.annotations
    )


def _finished_at(pod: Pod) -> datetime | None:
    """The latest finishedAt among its containers (init containers included), if any finished."""
    finished = [c.finished_at for c in pod.container_statuses if c.finished_at is not None]
    return max(finished) if finished else None


# --------------------------------------------------------------------------- report types


@dataclass(frozen=True, slots=True)
class NodeCost:
    row: NodeRow
    capacity: Decimal
    allocated: Decimal | None
    price: Price | None
    gpu_pods: tuple[Pod, ...]

    @property
    def idle(self) -> Decimal | None:
        return None if self.allocated is None else max(self.capacity - self.allocated, ZERO)

    @property
    def unallocatable(self) -> Decimal:
        acc = self.row.accelerator
        return max(self.capacity - acc.allocatable, ZERO) if acc else ZERO

    @property
    def price_per_hour(self) -> Decimal | None:
        return self.price.usd_per_hour if self.price else None

    @property
    def idle_cost_per_hour(self) -> Decimal | None:
        idle = self.idle
        if self.price is None or idle is None or self.capacity <= 0:
            return None
        return self.price.usd_per_hour * idle / self.capacity

    def to_dict(self) -> dict[str, Any]:
        acc = self.row.accelerator
        return {
            "name": self.row.name,
            "instanceType": self.row.instance_type,
            "nodePool": self.row.node_pool,
            "capacityType": self.row.capacity_type,
            "resource": acc.resource if acc else None,
            "model": acc.model if acc else None,
            "capacity": _count(self.capacity),
            "allocatable": _count(acc.allocatable) if acc else None,
            "allocated": _count(self.allocated),
            "idle": _count(self.idle),
            "gpuPods": len(self.gpu_pods),
            "pricePerHour": self.price.as_float if self.price else None,
            "priceSource": self.price.source if self.price else None,
            "idleCostPerHour": _money(self.idle_cost_per_hour),
        }


@dataclass(frozen=True, slots=True)
class KeptBy:
    reason: str  # a KEPT_BY_REASONS key
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message, "fix": self.fix}


@dataclass(frozen=True, slots=True)
class IdleNode:
    cost: NodeCost
    node_claim: str | None
    idle_since: datetime | None
    idle_since_source: str | None  # pod-finished | pod-started | node-created | nodeclaim-created
    last_gpu_pod: str | None
    other_pods: tuple[str, ...]
    last_pod_event: datetime | None
    consolidation_policy: str | None
    consolidate_after: str | None
    kept_by: tuple[KeptBy, ...]
    now: datetime

    @property
    def name(self) -> str:
        return self.cost.row.name

    @property
    def idle_for(self) -> timedelta | None:
        return max(self.now - self.idle_since, timedelta(0)) if self.idle_since else None

    @property
    def idle_hours(self) -> Decimal | None:
        idle = self.idle_for
        return None if idle is None else Decimal(int(idle.total_seconds())) / HOUR

    @property
    def idle_cost_so_far(self) -> Decimal | None:
        """What the node has cost since it became idle (its whole price: no accelerator was in use)."""
        hours = self.idle_hours
        price = self.cost.price_per_hour
        return None if hours is None or price is None else price * hours

    @property
    def only_waiting(self) -> bool:
        return all(k.reason in ("waiting", "being-deleted") for k in self.kept_by) and bool(self.kept_by)

    def to_dict(self) -> dict[str, Any]:
        row = self.cost.row
        return {
            "name": row.name,
            "instanceType": row.instance_type,
            "nodePool": row.node_pool,
            "nodeClaim": self.node_claim,
            "idleAccelerators": _count(self.cost.idle),
            "pricePerHour": self.cost.price.as_float if self.cost.price else None,
            "priceSource": self.cost.price.source if self.cost.price else None,
            "idleSince": _iso(self.idle_since),
            "idleSinceSource": self.idle_since_source,
            "idleHours": _money(self.idle_hours),
            "idleCostSoFar": _money(self.idle_cost_so_far),
            "lastGpuPod": self.last_gpu_pod,
            "lastPodEventTime": _iso(self.last_pod_event),
            "otherPods": list(self.other_pods),
            "consolidationPolicy": self.consolidation_policy,
            "consolidateAfter": self.consolidate_after,
            "keptBy": [k.to_dict() for k in self.kept_by],
        }


@dataclass
class CostSums:
    nodes: int = 0
    capacity: Decimal = ZERO
    allocated: Decimal = ZERO
    idle: Decimal = ZERO
    price: Decimal = ZERO
    idle_cost: Decimal = ZERO
    unpriced: int = 0
    list_priced: int = 0  # nodes priced at the us-east-1 list price
    unknown: int = 0  # nodes whose allocation is unknown (DRA)
    idle_nodes: int = 0

    def add(self, cost: NodeCost) -> None:
        self.nodes += 1
        self.capacity += cost.capacity
        if cost.allocated is None:
            self.unknown += 1
        else:
            self.allocated += cost.allocated
            self.idle += cost.idle or ZERO
        if cost.price is None:
            self.unpriced += 1
        else:
            self.list_priced += cost.price.source == SOURCE_LIST
            self.price += cost.price.usd_per_hour
            self.idle_cost += cost.idle_cost_per_hour or ZERO

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "idleNodes": self.idle_nodes,
            "accelerators": _count(self.capacity),
            "allocated": _count(self.allocated),
            "idle": _count(self.idle),
            "pricePerHour": _money(self.price),
            "idleCostPerHour": _money(self.idle_cost),
            "unpricedNodes": self.unpriced,
            "listPricedNodes": self.list_priced,
            "unknownAllocationNodes": self.unknown,
        }


@dataclass(frozen=True, slots=True)
class PoolCost:
    name: str | None
    consolidation_policy: str | None
    consolidate_after: str | None
    sums: CostSums

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "consolidationPolicy": self.consolidation_policy,
            "consolidateAfter": self.consolidate_after,
            **self.sums.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class NamespaceCost:
    name: str
    gpu_pods: int
    allocated: Decimal
    cost_per_hour: Decimal
    idle_share: Decimal
    idle_share_cost_per_hour: Decimal
    unpriced_pods: int

    @property
    def priced(self) -> bool:
        """At least one of its GPU pods runs on a node with a price."""
        return self.unpriced_pods < self.gpu_pods

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "gpuPods": self.gpu_pods,
            "allocated": _count(self.allocated),
            "costPerHour": _money(self.cost_per_hour) if self.priced else None,
            "idleShare": _count(self.idle_share),
            "idleShareCostPerHour": _money(self.idle_share_cost_per_hour) if self.priced else None,
            "unpricedPods": self.unpriced_pods,
        }


@dataclass(frozen=True, slots=True)
class CostReport(ReportBase):
    """Findings are information: cost always exits 0."""

    kind: ClassVar[str] = "CostReport"
    default_fail_on: ClassVar[FailOn | None] = None
    now: datetime
    nodes: tuple[NodeCost, ...]
    pools: tuple[PoolCost, ...]
    namespaces: tuple[NamespaceCost, ...]
    idle_nodes: tuple[IdleNode, ...]
    findings: tuple[Finding, ...]
    totals: CostSums
    idle_unattributed: Decimal
    region: str | None
    price_file: str | None
    price_notes: tuple[str, ...] = field(default_factory=tuple)

    def body(self) -> dict[str, Any]:
        return {
            "now": _iso(self.now),
            "pricing": {
                "currency": "USD",
                "basis": "on-demand, per hour",
                "region": self.region,
                "listPriceRegion": CATALOG_REGION,
                "priceFile": self.price_file,
            },
            "totals": {**self.totals.to_dict(), "idleUnattributed": _money(self.idle_unattributed)},
            "nodePools": [p.to_dict() for p in self.pools],
            "namespaces": [n.to_dict() for n in self.namespaces],
            "idleNodes": [n.to_dict() for n in self.idle_nodes],
            "nodes": [n.to_dict() for n in self.nodes],
            "findings": [f.to_dict() for f in self.findings],
        }


# --------------------------------------------------------------------------- analysis


def _node_cost(row: NodeRow, state: ClusterState, prices: PriceBook) -> NodeCost:
    acc = row.accelerator
    capacity = acc.paid if acc else ZERO
    idle = row.idle_accelerators
    allocated = None if idle is None else max(capacity - idle, ZERO)
    pods = tuple(p for p in state.pods_by_node.get(row.name, []) if not p.terminated and is_gpu_pod(p))
    return NodeCost(row, capacity, allocated, prices.price(row.instance_type), pods)


def _idle_since(
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


def _last_pod_event(claim: NodeClaim | None) -> datetime | None:
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
    if consolidation_disabled(pool):
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
        f"NodePool {pool.name} consolidateAfter {after}: eligible at {_iso(since + wait)} ({policy})",
    )


def _kept_by(
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
    others = tuple(sorted(p.meta.key for p in active if not _is_daemon(p)))
    if is_deleting(node, claim):
        kept.append(KeptBy("being-deleted", f"node {node.name} is being deleted or disrupted"))
    pool = _pool_of(node, pool_name, state)
    if isinstance(pool, KeptBy):
        return (*kept, pool), None, others
    kept += _pool_settings(pool)
    policy = str(consolidation_policy_of(pool).value)
    by_pods, reason = _other_pods(pool, policy, others)
    kept += by_pods
    kept += _do_not_disrupt(node, claim, active, now)
    kept += _zero_budgets(pool, reason, now)
    if not kept and (waiting := _waiting(pool, policy, last_event or idle_since, now)) is not None:
        kept.append(waiting)
    return tuple(kept), pool, others


def _idle_node(cost: NodeCost, state: ClusterState, now: datetime) -> IdleNode:
    node = state.node_by_name[cost.row.name]
    claim = state.nodeclaim_by_node.get(node.name)
    since, source, last = _idle_since(node, claim, state.pods_by_node.get(node.name, []))
    last_event = _last_pod_event(claim)
    kept, pool, others = _kept_by(node, claim, cost.row.node_pool, state, since, last_event, now)
    return IdleNode(
        cost=cost,
        node_claim=claim.name if claim else None,
        idle_since=since,
        idle_since_source=source,
        last_gpu_pod=last,
        other_pods=others,
        last_pod_event=last_event,
        consolidation_policy=consolidation_policy_of(pool).value if pool else None,
        consolidate_after=pool.consolidate_after if pool else None,
        kept_by=kept,
        now=now,
    )


def _price_text(price: Price | None) -> str:
    if price is None:
        return "price unknown"
    mark = " us-east-1 list" if price.source == SOURCE_LIST else ""
    return f"{_fmt_money(price.usd_per_hour)}/h{mark}"


def _idle_finding(idle: IdleNode) -> Finding:
    row = idle.cost.row
    acc = row.accelerator
    what = (
        f"{_fmt_count(idle.cost.capacity)} x {acc.model or acc.resource or 'accelerator'}" if acc else "GPUs"
    )
    since = ""
    if idle.idle_for is not None and idle.idle_since is not None:
        origin = {
            "pod-finished": f"pod {idle.last_gpu_pod} finished",
            "pod-started": f"pod {idle.last_gpu_pod} started",
            "node-created": "the node was created",
            "nodeclaim-created": "its NodeClaim was created",
        }.get(idle.idle_since_source or "", "")
        since = f" for {format_age(idle.idle_for)} (since {origin} at {_iso(idle.idle_since)})"
    spent = idle.idle_cost_so_far
    cost = _price_text(idle.cost.price) + (f", {_fmt_money(spent)} so far" if spent is not None else "")
    kept = "; ".join(k.message for k in idle.kept_by) or (
        "nothing in the data keeps it: check its NodeClaim's events (DisruptionBlocked) with "
        "kubectl describe nodeclaim"
    )
    pool = f" in NodePool {row.node_pool}" if row.node_pool else ""
    fix = next((k.fix for k in idle.kept_by if k.fix), None)
    return Finding(
        code="IDLE_GPU_NODE",
        severity=Severity.INFO if idle.only_waiting else Severity.WARNING,
        object=ObjectRef("Node", row.name),
        message=(
            f"{row.instance_type or 'node'} ({what}){pool} has had no GPU pod{since}: {cost}; kept by: {kept}"
        ),
        fix=fix,
        source="cost",
    )


def _partial_finding(cost: NodeCost) -> Finding | None:
    idle = cost.idle
    if idle is None or idle <= 0 or not cost.gpu_pods:
        return None
    row = cost.row
    acc = row.accelerator
    resource = acc.resource if acc and acc.resource else "accelerators"
    extra = ""
    if cost.unallocatable > 0:
        extra = f" ({_fmt_count(cost.unallocatable)} not allocatable: unhealthy or not advertised)"
    price = cost.idle_cost_per_hour
    money = (
        f": {_fmt_money(price)}/h"
        + (" at the us-east-1 list price" if cost.price and cost.price.source == SOURCE_LIST else "")
        if price is not None
        else ""
    )
    return Finding(
        code="IDLE_ACCELERATORS",
        severity=Severity.INFO,
        object=ObjectRef("Node", row.name),
        message=(
            f"{_fmt_count(idle)} of {_fmt_count(cost.capacity)} {resource} on {row.instance_type or 'node'} "
            f"are not requested by any pod{extra}{money}"
        ),
        fix="pack GPU pods onto fewer nodes, or use a smaller instance type in the NodePool",
        source="cost",
    )


def _namespaces(costs: Sequence[NodeCost]) -> tuple[list[NamespaceCost], Decimal]:
    allocated: dict[str, Decimal] = defaultdict(lambda: ZERO)
    spend: dict[str, Decimal] = defaultdict(lambda: ZERO)
    idle_share: dict[str, Decimal] = defaultdict(lambda: ZERO)
    idle_spend: dict[str, Decimal] = defaultdict(lambda: ZERO)
    pods: dict[str, int] = defaultdict(int)
    unpriced: dict[str, int] = defaultdict(int)
    unattributed = ZERO
    for cost in costs:
        for pod in cost.gpu_pods:
            pods[pod.namespace] += 1
            if cost.price is None:
                unpriced[pod.namespace] += 1
        if cost.allocated is None:
            continue
        if not cost.gpu_pods:
            unattributed += cost.idle_cost_per_hour or ZERO
            continue
        usages = [u for u in (cost.row.accelerator, *cost.row.other_resources) if u is not None]
        fractions = [(p, usage_fraction(usages, p.requests)) for p in cost.gpu_pods]
        total = sum((f for _, f in fractions), ZERO)
        if total <= 0:
            unattributed += cost.idle_cost_per_hour or ZERO
            continue
        idle = cost.idle or ZERO
        for pod, fraction in fractions:
            part = fraction / total
            allocated[pod.namespace] += cost.allocated * part
            idle_share[pod.namespace] += idle * part
            if cost.price is not None and cost.capacity > 0:
                spend[pod.namespace] += cost.price.usd_per_hour * cost.allocated * part / cost.capacity
                idle_spend[pod.namespace] += (cost.idle_cost_per_hour or ZERO) * part
    rows = [
        NamespaceCost(
            name=ns,
            gpu_pods=pods[ns],
            allocated=allocated[ns],
            cost_per_hour=spend[ns],
            idle_share=idle_share[ns],
            idle_share_cost_per_hour=idle_spend[ns],
            unpriced_pods=unpriced[ns],
        )
        for ns in pods
    ]
    rows.sort(key=lambda r: (-(r.cost_per_hour + r.idle_share_cost_per_hour), r.name))
    return rows, unattributed


def analyse_cost(
    state: ClusterState,
    catalog: Catalog,
    prices: PriceBook,
    now: datetime,
    *,
    min_idle: timedelta = DEFAULT_MIN_IDLE,
    namespace: str | None = None,
    price_file: str | None = None,
) -> CostReport:
    """The cost report at `now`. `namespace` limits the namespace rows (node figures use every pod)."""
    rows = node_rows(state, catalog, prices=prices)
    costs = [_node_cost(row, state, prices) for row in rows]
    idle_nodes = [_idle_node(c, state, now) for c in costs if not c.gpu_pods]
    idle_names = {i.name for i in idle_nodes}
    findings: list[Finding] = []
    for idle in idle_nodes:
        if idle.idle_for is None or idle.idle_for >= min_idle:
            findings.append(_idle_finding(idle))
    for cost in costs:
        partial = _partial_finding(cost)
        if partial is not None:
            findings.append(partial)
        if cost.price is None:
            findings.append(
                Finding(
                    code="PRICE_UNKNOWN",
                    severity=Severity.INFO,
                    object=ObjectRef("Node", cost.row.name),
                    message=(
                        f"no price for {cost.row.instance_type or 'this node (no instance-type label)'}: "
                        "its cost is not counted"
                    ),
                    fix="add the instance type to a --price-file",
                    source="cost",
                )
            )
    totals = CostSums(idle_nodes=len(idle_nodes))
    pool_sums: dict[str | None, CostSums] = {}
    for cost in costs:
        totals.add(cost)
        sums = pool_sums.setdefault(cost.row.node_pool, CostSums())
        sums.add(cost)
        sums.idle_nodes += cost.row.name in idle_names
    pools = []
    for name, sums in pool_sums.items():
        pool = state.nodepool_by_name.get(name) if name else None
        pools.append(
            PoolCost(
                name=name,
                consolidation_policy=consolidation_policy_of(pool).value if pool else None,
                consolidate_after=pool.consolidate_after if pool else None,
                sums=sums,
            )
        )
    pools.sort(key=lambda p: (p.name is None, -p.sums.idle_cost, p.name or ""))
    namespaces, unattributed = _namespaces(costs)
    if namespace is not None:
        namespaces = [n for n in namespaces if n.name == namespace]
    idle_nodes.sort(key=lambda i: (-(i.cost.price_per_hour or ZERO), i.name))
    notes = prices.notes(c.row.instance_type for c in costs)
    spot = sum(
        1 for c in costs if c.row.capacity_type == "spot" and c.price and c.price.source == SOURCE_LIST
    )
    if spot:
        notes.append(f"{spot} spot node(s) are priced at the on-demand list price: spot costs less")
    return CostReport(
        now=now,
        nodes=tuple(costs),
        pools=tuple(pools),
        namespaces=tuple(namespaces),
        idle_nodes=tuple(idle_nodes),
        findings=tuple(sorted(findings, key=Finding.sort_key)),
        totals=totals,
        idle_unattributed=unattributed,
        region=prices.region,
        price_file=price_file,
        price_notes=tuple(notes),
    )


def analyse(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    prices: PriceBook | None = None,
    min_idle: timedelta = DEFAULT_MIN_IDLE,
    namespace: str | None = None,
    price_file: str | None = None,
) -> CostReport:
    return analyse_cost(
        state,
        catalog,
        prices or PriceBook(catalog),
        now,
        min_idle=min_idle,
        namespace=namespace,
        price_file=price_file,
    )
