"""The cost report: per node, pool and namespace figures, idle GPU nodes and what keeps them."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, ClassVar, Final

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow
from kubectl_gpu.core.catalog.pricing import CATALOG_REGION, SOURCE_LIST, Price
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.report import FailOn, Finding, ReportBase

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


def money_value(value: Decimal | None) -> float | None:
    return None if value is None else float(value.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))


def count_value(value: Decimal | None) -> int | float | None:
    if value is None:
        return None
    value = value.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN)
    return int(value) if value == value.to_integral_value() else float(value)


def iso_time(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def format_money(value: Decimal) -> str:
    return f"${value:.2f}"


def format_count(value: Decimal) -> str:
    c = count_value(value)
    return str(c)


class NodeCost(msgspec.Struct, frozen=True):
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
            "capacity": count_value(self.capacity),
            "allocatable": count_value(acc.allocatable) if acc else None,
            "allocated": count_value(self.allocated),
            "idle": count_value(self.idle),
            "gpuPods": len(self.gpu_pods),
            "pricePerHour": self.price.as_float if self.price else None,
            "priceSource": self.price.source if self.price else None,
            "idleCostPerHour": money_value(self.idle_cost_per_hour),
        }


class KeptBy(msgspec.Struct, frozen=True):
    reason: str  # a KEPT_BY_REASONS key
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message, "fix": self.fix}


class IdleNode(msgspec.Struct, frozen=True):
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
            "idleAccelerators": count_value(self.cost.idle),
            "pricePerHour": self.cost.price.as_float if self.cost.price else None,
            "priceSource": self.cost.price.source if self.cost.price else None,
            "idleSince": iso_time(self.idle_since),
            "idleSinceSource": self.idle_since_source,
            "idleHours": money_value(self.idle_hours),
            "idleCostSoFar": money_value(self.idle_cost_so_far),
            "lastGpuPod": self.last_gpu_pod,
            "lastPodEventTime": iso_time(self.last_pod_event),
            "otherPods": list(self.other_pods),
            "consolidationPolicy": self.consolidation_policy,
            "consolidateAfter": self.consolidate_after,
            "keptBy": [k.to_dict() for k in self.kept_by],
        }


class CostSums(msgspec.Struct, dict=True):
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
            "accelerators": count_value(self.capacity),
            "allocated": count_value(self.allocated),
            "idle": count_value(self.idle),
            "pricePerHour": money_value(self.price),
            "idleCostPerHour": money_value(self.idle_cost),
            "unpricedNodes": self.unpriced,
            "listPricedNodes": self.list_priced,
            "unknownAllocationNodes": self.unknown,
        }


class PoolCost(msgspec.Struct, frozen=True):
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


class NamespaceCost(msgspec.Struct, frozen=True):
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
            "allocated": count_value(self.allocated),
            "costPerHour": money_value(self.cost_per_hour) if self.priced else None,
            "idleShare": count_value(self.idle_share),
            "idleShareCostPerHour": money_value(self.idle_share_cost_per_hour) if self.priced else None,
            "unpricedPods": self.unpriced_pods,
        }


class CostReport(msgspec.Struct, ReportBase, frozen=True):
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
    price_notes: tuple[str, ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            "evaluatedAt": iso_time(self.now),
            "now": iso_time(self.now),  # deprecated (issue 23): evaluatedAt; dropped in a later version
            "pricing": {
                "currency": "USD",
                "basis": "on-demand, per hour",
                "region": self.region,
                "listPriceRegion": CATALOG_REGION,
                "priceFile": self.price_file,
            },
            "totals": {**self.totals.to_dict(), "idleUnattributed": money_value(self.idle_unattributed)},
            "nodePools": [p.to_dict() for p in self.pools],
            "namespaces": [n.to_dict() for n in self.namespaces],
            "idleNodes": [n.to_dict() for n in self.idle_nodes],
            "nodes": [n.to_dict() for n in self.nodes],
            "findings": [f.to_dict() for f in self.findings],
        }
