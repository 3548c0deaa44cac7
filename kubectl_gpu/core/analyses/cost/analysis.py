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
from datetime import datetime, timedelta
from decimal import Decimal

from kubectl_gpu.core.accelerators.nodes import NodeRow, node_rows, usage_fraction
from kubectl_gpu.core.accelerators.resources import PerRequests
from kubectl_gpu.core.analyses.cost.idle import (
    idle_start,
    is_gpu_pod,
    last_pod_event_of,
    requests_accelerator,
    what_keeps,
)
from kubectl_gpu.core.analyses.cost.report import (
    DEFAULT_MIN_IDLE,
    FINDING_CODES,
    KEPT_BY_REASONS,
    ZERO,
    CostReport,
    CostSums,
    IdleNode,
    KeptBy,
    NamespaceCost,
    NodeCost,
    PoolCost,
    format_count,
    format_money,
    iso_time,
)
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import SOURCE_LIST, Price, PriceBook
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.karpenter.settings import consolidation_policy_of
from kubectl_gpu.core.report import Finding, ObjectRef, Severity
from kubectl_gpu.core.scheduling.overlay_prices import node_price, overlay_notes

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


def _node_costs(rows: Iterable[NodeRow], state: ClusterState, prices: PriceBook) -> list[NodeCost]:
    """Each row's cost; a pod's requests asked once per requests object (a template's pods share theirs)."""
    requested = PerRequests(requests_accelerator)
    return [_node_cost(row, state, prices, requested) for row in rows]


def _node_cost(
    row: NodeRow, state: ClusterState, prices: PriceBook, requested: PerRequests[bool]
) -> NodeCost:
    acc = row.accelerator
    capacity = acc.paid if acc else ZERO
    idle = row.idle_accelerators
    allocated = None if idle is None else max(capacity - idle, ZERO)
    pods = tuple(
        p for p in state.pods_by_node.get(row.name, []) if not p.terminated and is_gpu_pod(p, requested)
    )
    node = state.node_by_name.get(row.name)
    labels = node.labels if node is not None else {}
    price = node_price(row.instance_type, labels, prices, state.nodeoverlays)
    return NodeCost(row, capacity, allocated, price, pods)


def _idle_node(cost: NodeCost, state: ClusterState, now: datetime) -> IdleNode:
    node = state.node_by_name[cost.row.name]
    claim = state.nodeclaim_by_node.get(node.name)
    since, source, last = idle_start(node, claim, state.pods_by_node.get(node.name, []))
    last_event = last_pod_event_of(claim)
    kept, pool, others = what_keeps(node, claim, cost.row.node_pool, state, since, last_event, now)
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
    return f"{format_money(price.usd_per_hour)}/h{mark}"


def _idle_finding(idle: IdleNode) -> Finding:
    row = idle.cost.row
    acc = row.accelerator
    what = (
        f"{format_count(idle.cost.capacity)} x {acc.model or acc.resource or 'accelerator'}"
        if acc
        else "GPUs"
    )
    since = ""
    if idle.idle_for is not None and idle.idle_since is not None:
        origin = {
            "pod-finished": f"pod {idle.last_gpu_pod} finished",
            "pod-started": f"pod {idle.last_gpu_pod} started",
            "node-created": "the node was created",
            "nodeclaim-created": "its NodeClaim was created",
        }.get(idle.idle_since_source or "", "")
        since = f" for {format_age(idle.idle_for)} (since {origin} at {iso_time(idle.idle_since)})"
    spent = idle.idle_cost_so_far
    cost = _price_text(idle.cost.price) + (f", {format_money(spent)} so far" if spent is not None else "")
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
        extra = f" ({format_count(cost.unallocatable)} not allocatable: unhealthy or not advertised)"
    price = cost.idle_cost_per_hour
    money = (
        f": {format_money(price)}/h"
        + (" at the us-east-1 list price" if cost.price and cost.price.source == SOURCE_LIST else "")
        if price is not None
        else ""
    )
    return Finding(
        code="IDLE_ACCELERATORS",
        severity=Severity.INFO,
        object=ObjectRef("Node", row.name),
        message=(
            f"{format_count(idle)} of {format_count(cost.capacity)} {resource} on {row.instance_type or 'node'} "
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
    costs = _node_costs(rows, state, prices)
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
    notes += overlay_notes((c.row.name, c.price) for c in costs)
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
