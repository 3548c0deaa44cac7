"""`kubectl gpu usage`: how busy the allocated GPUs are over a window, what the idle ones cost, and $ per
million tokens per inference workload. Pure: the window's raw texts come in a `ScrapeSet`, `now` is given.

Per node (a GPU node `node_rows` lists): its GPUs (what the instance has, billed), those its pods hold
(requests, as `cost` counts them), and its price (the same price book as `cost`: --price-file, else the
us-east-1 list price). Figures come from the best source that covered the node: the DCGM exporter on it
("dcgm"), a sampled nvidia-smi ("smi"), else none ("allocation-only": utilisation unknown, never idle or
busy). Held cost per hour = node $/h x GPUs held / node GPUs. A pod is idle when its GPUs' utilisation
stayed below `idle_below` percent over the window (see `attribution` for how GPUs are joined to pods);
a node with no GPU pod has every GPU idle whatever its utilisation. Namespaces and workloads sum their
pods. Findings: USAGE_IDLE_GPUS per idle pod, USAGE_EMPTY_GPU_NODE per node without GPU pods,
USAGE_READ_FAILED per endpoint that could not be read, USAGE_SERVER_UNRECOGNISED per inference workload
without a token rate it could be priced by.

Only what is believed is counted (`core.usage.trust`): DCGM exporters owned by a DaemonSet or in an
`exporter_namespaces` namespace (with those the window was read with), one exporter per GPU, a GPU on the
node its ResourceSlice names; what is not believed is said in the notes, naming the pods.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from datetime import datetime
from decimal import Decimal

from kubectl_gpu.core.accelerators.nodes import NodeRow, node_rows
from kubectl_gpu.core.analyses.usage.attribution import gpu_pods, gpu_rows, held_by, pod_figures, workload_of
from kubectl_gpu.core.analyses.usage.findings import findings_of
from kubectl_gpu.core.analyses.usage.report import (
    DEFAULT_IDLE_BELOW,
    ZERO,
    GpuUsage,
    GroupUsage,
    NodeUsage,
    PodUsage,
    UsageReport,
    UsageTotals,
    Workload,
)
from kubectl_gpu.core.analyses.usage.tokens import token_costs
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import Price, PriceBook
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.overlay_prices import node_price, overlay_notes
from kubectl_gpu.core.usage.rates import gauge_mean
from kubectl_gpu.core.usage.scrape import ScrapeSet
from kubectl_gpu.core.usage.trust import gpu_homes, scrape_rank
from kubectl_gpu.core.usage.window import GpuWindow, Window, read_window

__all__ = ["NOT_READ", "analyse"]


def _share(price: Price | None, gpus: Decimal, part: Decimal) -> Decimal | None:
    if price is None or gpus <= 0:
        return None
    return price.usd_per_hour * part / gpus


def _best_source(windows: Sequence[GpuWindow]) -> list[GpuWindow]:
    """The windows of the best source that measured the node (dcgm before smi)."""
    for source in ("dcgm", "smi"):
        chosen = [w for w in windows if w.source == source]
        if chosen:
            return chosen
    return []


def _node(
    row: NodeRow, pods: list[Pod], gpus: list[GpuUsage], price: Price | None, idle_below: float
) -> tuple[NodeUsage, list[PodUsage]]:
    acc = row.accelerator
    capacity = acc.paid if acc else ZERO
    pod_rows = []
    for pod in pods:
        held = held_by(row, pod)
        figures = pod_figures(pod, gpus, idle_below)
        util = figures.util_percent
        pod_rows.append(
            PodUsage(
                namespace=pod.namespace,
                name=pod.name,
                node=row.name,
                workload=workload_of(pod),
                held=held,
                source=figures.source,
                util_percent=util,
                attribution=figures.attribution,
                memory_used_mib=figures.memory_used_mib,
                held_cost_per_hour=_share(price, capacity, held),
                idle=None if util is None else util < idle_below,
            )
        )
    held_total = None if row.idle_accelerators is None else max(capacity - row.idle_accelerators, ZERO)
    util = gauge_mean(g.util_percent for g in gpus)
    if not pods:
        state = "empty"
        # Measured above zero, the GPUs are not idle (something outside the GPU pods uses them).
        busy = util is not None and util > 0
        idle_cost = price.usd_per_hour if price and not busy else None
    else:
        state = "unknown" if util is None else ("idle" if util < idle_below else "busy")
        idle_parts = [p.idle_cost_per_hour for p in pod_rows if p.idle is not None]
        idle_cost = None if price is None or not idle_parts else sum((c or ZERO for c in idle_parts), ZERO)
    used = [g.memory_used_mib for g in gpus if g.memory_used_mib is not None]
    totals = [g.memory_total_mib for g in gpus if g.memory_total_mib is not None]
    powers = [g.power_w for g in gpus if g.power_w is not None]
    node = NodeUsage(
        name=row.name,
        instance_type=row.instance_type,
        node_pool=row.node_pool,
        model=(acc.model if acc else None) or next((g.model for g in gpus if g.model), None),
        gpus=capacity,
        held=held_total,
        gpu_pods=len(pods),
        source=gpus[0].source if gpus else "allocation-only",
        util_percent=util,
        memory_used_mib=sum(used) if used else None,
        memory_total_mib=sum(totals) if totals else None,
        power_w=sum(powers) if powers else None,
        price_per_hour=price.usd_per_hour if price else None,
        price_source=price.source if price else None,
        held_cost_per_hour=_share(price, capacity, held_total) if held_total is not None else None,
        idle_cost_per_hour=idle_cost,
        state=state,
    )
    return node, pod_rows


def _group(name: str, workload: Workload | None, pods: list[PodUsage]) -> GroupUsage:
    measured = [p for p in pods if p.util_percent is not None]
    weight = sum((p.held for p in measured), ZERO)
    util = (
        sum(p.util_percent * float(p.held) for p in measured if p.util_percent is not None) / float(weight)
        if weight > 0
        else gauge_mean(p.util_percent for p in measured)
    )
    return GroupUsage(
        name=name,
        workload=workload,
        pods=len(pods),
        held=sum((p.held for p in pods), ZERO),
        measured=weight,
        util_percent=util,
        idle_gpus=sum((p.held for p in pods if p.idle), ZERO),
        held_cost_per_hour=sum((p.held_cost_per_hour or ZERO for p in pods), ZERO),
        idle_cost_per_hour=sum((p.idle_cost_per_hour or ZERO for p in measured), ZERO) if measured else None,
        unpriced_pods=sum(1 for p in pods if p.held_cost_per_hour is None),
    )


def _groups(pods: list[PodUsage], scope_namespace: str | None) -> tuple[list[GroupUsage], list[GroupUsage]]:
    by_ns: dict[str, list[PodUsage]] = defaultdict(list)
    by_workload: dict[Workload, list[PodUsage]] = defaultdict(list)
    for pod in pods:
        if scope_namespace is None or pod.namespace == scope_namespace:
            by_ns[pod.namespace].append(pod)
            by_workload[pod.workload].append(pod)
    namespaces = [_group(ns, None, members) for ns, members in by_ns.items()]
    workloads = [_group(str(w), w, members) for w, members in by_workload.items()]
    for rows in (namespaces, workloads):
        rows.sort(key=lambda g: (-(g.idle_cost_per_hour or ZERO), -g.held_cost_per_hour, g.name))
    return namespaces, workloads


def _totals(nodes: list[NodeUsage], pods: list[PodUsage]) -> UsageTotals:
    empty = [n for n in nodes if n.state == "empty"]
    return UsageTotals(
        gpus=sum((n.gpus for n in nodes), ZERO),
        held=sum((p.held for p in pods), ZERO),
        measured=sum((p.held for p in pods if p.util_percent is not None), ZERO),
        idle_held=sum((p.held for p in pods if p.idle), ZERO),
        empty_node_gpus=sum((n.gpus for n in empty), ZERO),
        held_cost=sum((p.held_cost_per_hour or ZERO for p in pods), ZERO),
        idle_held_cost=sum((p.idle_cost_per_hour or ZERO for p in pods), ZERO),
        empty_node_cost=sum((n.price_per_hour or ZERO for n in empty), ZERO),
        unpriced_nodes=sum(1 for n in nodes if n.price_per_hour is None),
    )


_REASONS = ("no DCGM exporter found", "--sample not given")
NOT_READ = "usage window not read"


def _notes(window: Window) -> tuple[str, ...]:
    """One line per fact; the reasons utilisation is unknown are said once, plainly."""
    if not window.looked:
        notes = []  # the window's notes are in the could-not-look line
    elif window.measured:
        notes = [n for n in window.notes if n != "--sample not given"]
    else:
        reasons = [r for r in _REASONS if r in window.notes] or ["no GPU was measured"]
        notes = [
            f"utilisation unknown: {', '.join(reasons)}",
            *(n for n in window.notes if n not in _REASONS),
        ]
    if window.skipped_lines:
        notes.append(f"{window.skipped_lines} /metrics line(s) did not parse and were skipped")
    if window.rejected_values:
        notes.append(
            f"{window.rejected_values} /metrics value(s) were not believed (NaN, infinite, negative or out of "
            "their field's range) and were left out"
        )
    notes.extend(window.trust_notes)
    return tuple(notes)


def _gpu_order(gpu: GpuUsage) -> tuple[str, int, str]:
    """Node, then device index as a number (0, 1, ... 10), then MIG profile: the order nvidia-smi lists."""
    index = gpu.index or ""
    return (gpu.node or "", int(index) if index.isdigit() else 1 << 30, f"{index}/{gpu.mig_profile or ''}")


def _could_not_look(window: Window) -> tuple[str, ...]:
    out = [] if window.looked else [f"{NOT_READ}: {'; '.join(window.notes) or 'the adapter could not look'}"]
    out += [f"{f.source} {f.namespace}/{f.pod}: {f.error}" for f in window.failed if f.forbidden]
    return tuple(out)


def analyse(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    scrapes: ScrapeSet,
    prices: PriceBook | None = None,
    idle_below: float = DEFAULT_IDLE_BELOW,
    price_file: str | None = None,
    exporter_namespaces: Collection[str] = (),
) -> UsageReport:
    """The usage report of the window `scrapes` holds, at `now`. -n narrows pods and groups, never nodes.
    `exporter_namespaces`: where DCGM exporters are believed whatever owns them (`core.usage.trust`)."""
    book = prices or PriceBook(catalog)
    named = frozenset((*exporter_namespaces, *scrapes.exporter_namespaces))
    window = read_window(scrapes, rank=scrape_rank(state.pods, named), homes=gpu_homes(state.resourceslices))
    by_node: dict[str | None, list[GpuWindow]] = defaultdict(list)
    for gpu in window.gpus:
        by_node[gpu.node].append(gpu)
    nodes, pods, gpus = [], [], []
    priced: list[tuple[str, Price | None]] = []
    for row in node_rows(state, catalog, prices=book):
        on_node = gpu_pods(state.pods_by_node.get(row.name, []))
        held_all = on_node[0] if len(on_node) == 1 and row.idle_accelerators == 0 else None
        rows = gpu_rows(_best_source(by_node.get(row.name, [])), held_all)
        labels = node_obj.labels if (node_obj := state.node_by_name.get(row.name)) else {}
        price = node_price(row.instance_type, labels, book, state.nodeoverlays)
        priced.append((row.name, price))
        node, pod_rows = _node(row, on_node, rows, price, idle_below)
        nodes.append(node)
        pods.extend(pod_rows)
        gpus.extend(rows)
    scope = state.scope.namespace
    listed = [p for p in pods if scope is None or p.namespace == scope]
    namespaces, workloads = _groups(pods, scope)
    by_key = {(p.namespace, p.name): p for p in state.pods}
    costs = {(p.namespace, p.name): p.held_cost_per_hour for p in pods}
    servers = [s for s in window.servers if scope is None or s.namespace == scope]
    inference = token_costs(servers, by_key, workload_of, lambda p: costs.get((p.namespace, p.name)))
    static = {p.name for p in state.nodepools if p.replicas is not None}  # never consolidated
    findings = findings_of(nodes, listed, inference, window.failed, catalog, idle_below, static)
    return UsageReport(
        now=now,
        window_s=window.window_s,
        idle_below=idle_below,
        looked=window.looked,
        measured=window.measured,
        gpus=tuple(sorted(gpus, key=_gpu_order)),
        nodes=tuple(nodes),
        pods=tuple(sorted(listed, key=lambda p: (p.namespace, p.name))),
        namespaces=tuple(namespaces),
        workloads=tuple(workloads),
        inference=tuple(inference),
        failed=window.failed,
        totals=_totals(nodes, pods),
        findings=findings,
        region=book.region,
        price_file=price_file,
        notes=(*_notes(window), *overlay_notes(priced)),
        could_not_look=_could_not_look(window),
    )
