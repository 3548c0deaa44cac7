"""Pending GPU pods and long NodePool requirement lists, for `bench/shapes.py`."""

from __future__ import annotations

import random

from shapes_cluster import GPU_TAINT, GPU_TOLERATION, IMAGES, Cluster, Pool
from shapes_objects import GPU_FAMILIES, ZONES, Ids, Obj, gpu_types
from shapes_workloads import PodSpec, failed_scheduling, nodepool, pod, requirement

GPU_NAMES = sorted({t.gpu_name for t in gpu_types()})
# Names a NodePool may carry that no catalog lists: newer generations, other sizes, typos.
_FUTURE = ("g7", "g7e", "p6", "p6e", "p5d", "g6f", "gr7", "g5n", "p4e", "trn3", "inf3", "g8", "p7")
_SIZES = ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")


def add_pending(c: Cluster, specs: list[PodSpec], per_shape: int, event_every: int) -> None:
    """`per_shape` Pending pods of every spec; a FailedScheduling event for every `event_every`-th pod."""
    nodes = len(c.nodes)
    count = 0
    for spec in specs:
        for _ in range(max(1, per_shape)):
            obj = pod(c.ids, spec, None)
            c.pods.append(obj)
            if count % event_every == 0:
                why = _why(spec, nodes)
                c.events.append(failed_scheduling(c.ids, obj, nodes, why))
            count += 1


def _why(spec: PodSpec, nodes: int) -> str:
    if not any(t.get("key") == "nvidia.com/gpu" for t in spec.tolerations):
        return f"{nodes} node(s) had untolerated taint {{nvidia.com/gpu: }}"
    if spec.node_selector or spec.affinity:
        return f"{nodes} node(s) didn't match Pod's node affinity/selector"
    return f"{nodes} Insufficient nvidia.com/gpu"


def shape_specs(
    rng: random.Random, pools: list[Pool], count: int, namespaces: list[str], full: bool = False
) -> list[PodSpec]:
    """`count` Pending GPU shapes of the kinds users meet: no GPU toleration, a GPU name or pool no pool
    offers, more GPUs than any node has, a capacity type the pool does not sell, or just no room."""
    out = []
    for i in range(count):
        p = rng.choice(pools)
        gpus = rng.choice((1, 1, 2, 4, 8, 16))
        tolerations = [GPU_TOLERATION, *p.taints[1:]]
        selector: dict[str, str] = {}
        kind = i % 5
        if kind == 0:
            tolerations = []
        elif kind == 1:
            selector["eks.amazonaws.com/instance-gpu-name"] = rng.choice(GPU_NAMES)
        elif kind == 2:
            selector["karpenter.sh/nodepool"] = p.name
        elif kind == 3:
            selector["karpenter.sh/capacity-type"] = rng.choice(("spot", "on-demand"))
        out.append(
            PodSpec(
                f"pending-{i:04d}",
                rng.choice(namespaces),
                rng.choice(IMAGES),
                {"cpu": str(4 * gpus), "memory": f"{16 * gpus}Gi", "nvidia.com/gpu": str(gpus)},
                node_selector=selector,
                tolerations=tolerations,
                full=full,
            )
        )
    return out


def many_pending_specs(
    rng: random.Random, pools: list[Pool], count: int, namespaces: list[str]
) -> list[PodSpec]:
    """(b)'s shapes: GPU 1-16, cpu, memory, 0-3 tolerations, selectors on GPU name / family / nodepool /
    capacity type / zone, 30 % with a required node affinity (In / NotIn / Gt)."""
    extra_taints = sorted({(t["key"], t.get("value", "")) for p in pools for t in p.taints[1:]})
    out = []
    for i in range(count):
        p = rng.choice(pools)
        gpus = rng.randint(1, 16)
        cands = [
            GPU_TOLERATION,
            *({"effect": "NoSchedule", "key": k, "operator": "Equal", "value": v} for k, v in extra_taints),
            {"effect": "NoExecute", "key": "acme.io/maintenance", "operator": "Exists"},
        ]
        tolerations = rng.sample(cands, min(len(cands), rng.randint(0, 3)))
        pick = rng.choice(p.types)
        options = {
            "eks.amazonaws.com/instance-gpu-name": pick.gpu_name,
            "eks.amazonaws.com/instance-family": pick.family,
            "karpenter.sh/nodepool": p.name,
            "karpenter.sh/capacity-type": rng.choice(p.capacity),
            "topology.kubernetes.io/zone": rng.choice(p.zones),
        }
        keys = rng.sample(sorted(options), rng.randint(0, 3))
        affinity = []
        if rng.random() < 0.3:
            affinity = [
                rng.choice(
                    (
                        requirement(
                            "eks.amazonaws.com/instance-family", "In", pick_some(rng, GPU_FAMILIES, 1, 4)
                        ),
                        requirement("karpenter.sh/capacity-type", "NotIn", ["spot"]),
                        requirement(
                            "eks.amazonaws.com/instance-gpu-count", "Gt", [str(rng.choice((0, 1, 3, 7)))]
                        ),
                        requirement(
                            "eks.amazonaws.com/instance-gpu-name", "NotIn", pick_some(rng, GPU_NAMES, 1, 3)
                        ),
                    )
                )
            ]
        out.append(
            PodSpec(
                f"job-{i:04d}",
                rng.choice(namespaces),
                rng.choice(IMAGES),
                {
                    "cpu": str(rng.choice((1, 2, 4, 8, 16, 32)) * max(1, gpus // 4)),
                    "memory": f"{rng.choice((8, 16, 32, 64, 128))}Gi",
                    "nvidia.com/gpu": str(gpus),
                },
                node_selector={k: options[k] for k in keys},
                affinity=affinity,
                tolerations=tolerations,
            )
        )
    return out


def pick_some(rng: random.Random, among: tuple[str, ...] | list[str], low: int, high: int) -> list[str]:
    return sorted(rng.sample(list(among), min(len(among), rng.randint(low, high))))


def _unknown_types(rng: random.Random, count: int) -> list[str]:
    known = [t.name for t in gpu_types()]
    out = []
    for _ in range(count):
        if rng.random() < 0.7:
            out.append(f"{rng.choice(_FUTURE)}.{rng.choice(_SIZES)}")
        else:  # a typo of a real one
            name = rng.choice(known)
            cut = rng.randrange(1, len(name))
            out.append(name[:cut] + name[cut + 1 :])
    return out


def _requirements(rng: random.Random, i: int) -> tuple[list[Obj], list[str], list[str]]:
    """10-18 requirements of a GPU pool; (requirements, capacity types, its known GPU types)."""
    families = pick_some(rng, GPU_FAMILIES, 1, 6)
    known = [t.name for t in gpu_types(tuple(families))]
    names = sorted(
        set(rng.sample(known, min(len(known), rng.randint(3, 30))) + _unknown_types(rng, rng.randint(5, 30)))
    )
    capacity = rng.choice((["spot"], ["on-demand"], ["spot", "on-demand"]))
    always = [
        requirement("karpenter.sh/capacity-type", "In", capacity),
        requirement(
            "eks.amazonaws.com/instance-family",
            "In",
            sorted(set(families) | set(pick_some(rng, _FUTURE, 0, 8))),
        ),
        requirement("node.kubernetes.io/instance-type", "In", names),
        requirement("kubernetes.io/arch", "In", ["amd64"]),
        requirement("kubernetes.io/os", "In", ["linux"]),
        requirement("eks.amazonaws.com/instance-gpu-manufacturer", "In", ["nvidia"]),
        requirement(
            "eks.amazonaws.com/instance-size", "In", pick_some(rng, (*_SIZES, "metal", "xlarg"), 2, 8)
        ),
        requirement("topology.kubernetes.io/zone", "In", pick_some(rng, ZONES, 1, 4)),
        requirement(
            "eks.amazonaws.com/instance-gpu-name", "In", pick_some(rng, [*GPU_NAMES, "b200", "h20"], 1, 5)
        ),
        requirement("acme.io/team", "In", [f"team-{i % 23}", f"team-{(i + 5) % 23}"]),
    ]
    optional = [
        requirement("eks.amazonaws.com/instance-gpu-count", "Gt", [str(rng.choice((0, 1, 3)))]),
        requirement("eks.amazonaws.com/instance-gpu-memory", "Gt", ["16000"]),
        requirement("eks.amazonaws.com/instance-generation", "Gt", ["3"]),
        requirement("eks.amazonaws.com/instance-cpu", "Lt", ["200"]),
        requirement("eks.amazonaws.com/instance-memory", "Gt", ["8000"]),
        requirement("eks.amazonaws.com/instance-category", "In", ["g", "p"]),
        requirement("eks.amazonaws.com/instance-hypervisor", "In", ["nitro"]),
        requirement("acme.io/cost-center", "NotIn", [f"cc-{j}" for j in range(rng.randint(1, 60))]),
    ]
    reqs = always + rng.sample(optional, rng.randint(0, 8))
    return reqs, capacity, names


def pool_shapes(ids: Ids, count: int) -> tuple[list[Pool], list[Obj]]:
    """(c)'s GPU pools: the Pools nodes are placed in, and their NodePool objects as written."""
    rng = ids.rng
    pools: list[Pool] = []
    objs: list[Obj] = []
    by_name = {t.name: t for t in gpu_types()}
    for i in range(count):
        reqs, capacity, names = _requirements(rng, i)
        zones = next(r["values"] for r in reqs if r["key"] == "topology.kubernetes.io/zone")
        types = [by_name[n] for n in names if n in by_name] or [by_name["g5.xlarge"]]
        pool = Pool(f"gpu-{i:03d}", types, reqs, capacity, [GPU_TAINT], zones)
        pools.append(pool)
        objs.append(
            nodepool(
                ids,
                pool.name,
                reqs,
                taints=pool.taints,
                labels={"acme.io/team": f"team-{i % 23}"},
                weight=rng.randint(1, 100),
            )
        )
    return pools, objs
