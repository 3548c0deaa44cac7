"""A cluster of GPU and CPU NodePools, their nodes, NodeClaims and pods, for `bench/shapes.py`."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from shapes_objects import GPU_FAMILIES, ZONES, Ids, InstanceType, Obj, cpu_types, gpu_types, node
from shapes_workloads import PodSpec, nodeclaim, nodepool, pod, requirement

GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}
IMAGES = (
    "vllm/vllm-openai:v0.9.2",
    "nvcr.io/nvidia/pytorch:25.01-py3",
    "nvcr.io/nvidia/tritonserver:25.02-py3",
    "public.ecr.aws/acme/trainer:2.4.1",
    "ghcr.io/huggingface/text-generation-inference:3.3.4",
)
CPU_IMAGES = (
    "public.ecr.aws/nginx/nginx:1.27",
    "registry.k8s.io/pause:3.10",
    "public.ecr.aws/acme/api:7.2.0",
    "redis:7.4-alpine",
    "public.ecr.aws/acme/worker:3.1.9",
)
CAPACITY = (["spot"], ["on-demand"], ["spot", "on-demand"])


@dataclass
class Pool:
    name: str
    types: list[InstanceType]
    requirements: list[Obj]
    capacity: list[str]
    taints: list[Obj] = field(default_factory=list)
    zones: list[str] = field(default_factory=lambda: list(ZONES))

    @property
    def gpu(self) -> bool:
        return any(t.gpus for t in self.types)


@dataclass
class Cluster:
    ids: Ids
    pools: list[Pool]
    nodepools: list[Obj] = field(default_factory=list)
    nodes: list[Obj] = field(default_factory=list)
    nodeclaims: list[Obj] = field(default_factory=list)
    pods: list[Obj] = field(default_factory=list)
    events: list[Obj] = field(default_factory=list)
    node_pool: dict[str, Pool] = field(default_factory=dict)  # node name -> its pool

    def items(self) -> list[Obj]:
        """Grouped by kind, in the order `kubectl get nodes,pods,nodepools,nodeclaims,events` prints them."""
        return [*self.nodes, *self.pods, *self.nodepools, *self.nodeclaims, *self.events]


def builtin_pools() -> list[Pool]:
    """Auto Mode's two built-in pools: general-purpose (c/m/r, gen > 4, on-demand) and system (tainted)."""
    cpu = [t for t in cpu_types() if t.family[0] in "cmr" and not t.family.endswith("g")]
    general = [
        requirement("karpenter.sh/capacity-type", "In", ["on-demand"]),
        requirement("eks.amazonaws.com/instance-category", "In", ["c", "m", "r"]),
        requirement("eks.amazonaws.com/instance-generation", "Gt", ["4"]),
        requirement("kubernetes.io/arch", "In", ["amd64"]),
        requirement("kubernetes.io/os", "In", ["linux"]),
    ]
    system_taint = {"effect": "NoSchedule", "key": "CriticalAddonsOnly"}
    return [
        Pool("general-purpose", cpu, general, ["on-demand"]),
        Pool(
            "system",
            cpu[:8],
            [*general[:1], requirement("kubernetes.io/arch", "In", ["amd64", "arm64"])],
            ["on-demand"],
            [system_taint],
        ),
    ]


def gpu_pool(rng: random.Random, name: str, families: list[str], **more: object) -> Pool:
    """A GPU NodePool over `families`: capacity types, instance families, the GPU taint; `more` may add a
    zone list (`zones`), a GPU-count floor (`gpu_gt`) and a second taint (`taint`)."""
    capacity = list(rng.choice(CAPACITY))
    reqs = [
        requirement("karpenter.sh/capacity-type", "In", capacity),
        requirement("eks.amazonaws.com/instance-family", "In", families),
        requirement("kubernetes.io/arch", "In", ["amd64"]),
        requirement("kubernetes.io/os", "In", ["linux"]),
    ]
    types = gpu_types(tuple(families))
    zones = list(ZONES)
    if more.get("zones"):
        zones = sorted(rng.sample(ZONES, rng.randint(1, 3)))
        reqs.append(requirement("topology.kubernetes.io/zone", "In", zones))
    gt = more.get("gpu_gt")
    if isinstance(gt, int):
        reqs.append(requirement("eks.amazonaws.com/instance-gpu-count", "Gt", [str(gt)]))
        types = [t for t in types if t.gpus > gt] or types
    taints = [GPU_TAINT]
    if isinstance(more.get("taint"), dict):
        taints.append(more["taint"])  # type: ignore[arg-type]
    return Pool(name, types, reqs, capacity, taints, zones)


def add_pools(
    c: Cluster, limits: dict[str, dict[str, str]] | None = None, weights: dict[str, int] | None = None
) -> None:
    for p in c.pools:
        c.nodepools.append(
            nodepool(
                c.ids,
                p.name,
                p.requirements,
                taints=p.taints,
                limits=(limits or {}).get(p.name),
                weight=(weights or {}).get(p.name),
            )
        )


def add_nodes(
    c: Cluster,
    count: int,
    gpu_share: float,
    labels: Callable[[random.Random], dict[str, str]] | None = None,
    taints: Callable[[random.Random], list[Obj]] | None = None,
) -> None:
    """`count` nodes, `gpu_share` of them in the GPU pools (spread evenly), the rest general-purpose; each
    with its registered NodeClaim; `labels` / `taints` draw more of them for every node."""
    rng = c.ids.rng
    gpu_pools = [p for p in c.pools if p.gpu] or c.pools
    cpu_pools = [p for p in c.pools if not p.gpu] or c.pools
    gpu_count = round(count * gpu_share)
    for i in range(count):
        p = gpu_pools[i % len(gpu_pools)] if i < gpu_count else cpu_pools[0]
        it = rng.choice(p.types)
        zone = rng.choice(p.zones)
        cap = rng.choice(p.capacity)
        claim = f"{p.name}-{c.ids.suffix()}"
        extra_labels = labels(rng) if labels else {}
        extra_taints = taints(rng) if taints else []
        n = node(
            c.ids,
            it,
            p.name,
            zone,
            cap,
            claim=claim,
            labels=extra_labels,
            taints=[t for t in p.taints if t is not GPU_TAINT] + extra_taints,
        )
        c.nodes.append(n)
        c.node_pool[n["metadata"]["name"]] = p
        claim_obj = nodeclaim(c.ids, p.name, it, zone, cap, p.requirements, n["metadata"]["name"])
        claim_obj["metadata"]["name"] = claim
        c.nodeclaims.append(claim_obj)


def node_type(n: Obj) -> tuple[int, int]:
    """(GPUs, vCPUs) of a generated node."""
    cap = n["status"]["capacity"]
    return int(cap.get("nvidia.com/gpu", "0")), int(cap["cpu"])


def fill_nodes(
    c: Cluster,
    pods_per_node: int,
    namespaces: list[str],
    full: bool = False,
    tolerations: list[Obj] | None = None,
) -> None:
    """`pods_per_node` Running pods on each node: GPU pods filling its GPUs (1, 2, 4 or 8 a pod, each app
    selecting its pool or family), then small CPU pods."""
    rng = c.ids.rng
    apps: dict[tuple[str, int], PodSpec] = {}
    for n in c.nodes:
        name = n["metadata"]["name"]
        gpus, cpus = node_type(n)
        ip = n["status"]["addresses"][0]["address"]
        placed = 0
        pool = c.node_pool[name]
        while gpus and placed < pods_per_node:
            size = max(s for s in (1, 2, 4, 8) if s <= gpus)
            key = (pool.name, size)
            if key not in apps:
                apps[key] = _gpu_app(rng, pool, size, namespaces, full, tolerations)
            c.pods.append(pod(c.ids, apps[key], name, ip))
            gpus -= size
            placed += 1
        for _ in range(pods_per_node - placed):
            spec = _cpu_app(rng, namespaces, full, cpus, tolerations if pool.gpu else None)
            c.pods.append(pod(c.ids, spec, name, ip))


def _gpu_app(
    rng: random.Random,
    pool: Pool,
    gpus: int,
    namespaces: list[str],
    full: bool,
    tolerations: list[Obj] | None,
) -> PodSpec:
    fam = rng.choice(pool.types).family
    selector = rng.choice(
        ({"karpenter.sh/nodepool": pool.name}, {"eks.amazonaws.com/instance-family": fam}, {})
    )
    return PodSpec(
        f"{pool.name}-serve-{gpus}g",
        rng.choice(namespaces),
        rng.choice(IMAGES),
        {"cpu": str(2 * gpus), "memory": f"{8 * gpus}Gi", "nvidia.com/gpu": str(gpus)},
        node_selector=selector,
        tolerations=[GPU_TOLERATION, *[t for t in pool.taints[1:]], *(tolerations or [])],
        full=full,
    )


_CPU_APPS: dict[tuple[str, bool], PodSpec] = {}


def _cpu_app(
    rng: random.Random, namespaces: list[str], full: bool, cpus: int, tolerations: list[Obj] | None
) -> PodSpec:
    ns = rng.choice(namespaces)
    app = f"{rng.choice(('api', 'web', 'worker', 'cache', 'sidecar', 'ingest'))}-{rng.randint(0, 40)}"
    return PodSpec(
        app,
        ns,
        rng.choice(CPU_IMAGES),
        {"cpu": f"{rng.choice((50, 100, 250, 500))}m", "memory": f"{rng.choice((64, 128, 256, 512))}Mi"},
        tolerations=[GPU_TOLERATION, *(tolerations or [])] if tolerations is not None else [],
        full=full,
    )


def in_flight(c: Cluster, count: int, pools: list[Pool] | None = None) -> None:
    """`count` NodeClaims launched in the last 10 minutes and not registered yet."""
    rng = c.ids.rng
    pools = pools or [p for p in c.pools if p.gpu]
    for _ in range(count):
        p = rng.choice(pools)
        c.nodeclaims.append(
            nodeclaim(
                c.ids,
                p.name,
                rng.choice(p.types),
                rng.choice(p.zones),
                rng.choice(p.capacity),
                p.requirements,
            )
        )


def pick_families(
    rng: random.Random, low: int, high: int, among: tuple[str, ...] = GPU_FAMILIES
) -> list[str]:
    return sorted(rng.sample(among, rng.randint(low, high)))
