#!/usr/bin/env python3
"""Cluster shapes unlike the default mix, for the benchmark: the N-nodes / 20N-pods family, many NodePools,
and fuzzed sizes.

    python bench/family.py --nodes 1000 [--pods 20000] [--gpu-pools 8] [--pending-shapes 186] [--out F]

The default mix (`generate.py`) has five Pending shapes, a handful of GPU Deployments and six NodePools,
which flatters any code that is quadratic in workloads x nodes. Here:

* 40% of the nodes are NVIDIA nodes over `--gpu-pools` GPU NodePools (g4dn/g5/g6/g6e/p4d/p5, spot and
  on-demand), on three Auto Mode releases (three AMIs); most carry GPU feature discovery driver labels from
  four driver branches (535/550/570/580), the rest have none (driver unknown);
* many small GPU Deployments (one per ~2 GPU nodes, 1-8 replicas of 1-4 GPUs), each with its own
  nodeSelector or required node affinity (family, pool, GPU name, capacity type, In / NotIn), most with a
  declared CUDA version (`kubectl-gpu.io/cuda`) from 11.8 to 12.9;
* `--pending-shapes` distinct Pending GPU shapes (requests x selectors x tolerations), ~3% of the pods, each
  with its scheduler event; NodeClaims still launching in every GPU pool;
* CPU Deployments and DaemonSets for the rest (20 pods a node in all).

`--gpu-pools 1200` is the many-NodePools shape (a pool or two per GPU node). Same seed, same bytes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate as g
from generate import NOW, Generator, Slot, cb, redact, write_generated

__all__ = ["EXAMPLE_PENDING_POD", "FAMILY", "SHAPES", "fuzzed", "generate_family"]

Obj = dict[str, Any]
# The N-nodes / 20N-pods family, and the other named shapes: name -> keyword arguments of generate_family.
FAMILY = (250, 500, 1000, 2000, 5000)
SHAPES: dict[str, dict[str, int]] = {
    **{f"N{n}": {"nodes": n, "pods": 20 * n} for n in FAMILY},
    "pools": {"nodes": 2000, "pods": 40_000, "gpu_pools": 1200, "gpu_share_pct": 60},
}
GPU_TYPES = (
    ("g4dn.xlarge", 20),
    ("g4dn.12xlarge", 4),
    ("g5.xlarge", 20),
    ("g5.12xlarge", 6),
    ("g5.48xlarge", 2),
    ("g6.xlarge", 20),
    ("g6.4xlarge", 6),
    ("g6.12xlarge", 6),
    ("g6e.xlarge", 10),
    ("g6e.12xlarge", 4),
    ("p4d.24xlarge", 2),
    ("p5.48xlarge", 2),
)
FAMILIES = sorted({t.split(".")[0] for t, _ in GPU_TYPES})
# (driver, weight) per release: the oldest release still has 535 on some nodes.
DRIVERS = (
    (("535.230.02", 3), ("550.163.01", 7)),
    (("550.163.01", 4), ("570.172.08", 6)),
    (("570.172.08", 5), ("580.82.07", 5)),
)
CUDA_NEEDS = ("11.8", "12.2", "12.4", "12.6", "12.8", "12.9")
# The first Pending pod of every shape (shape 0 is in the first namespace).
EXAMPLE_PENDING_POD = f"{g.NAMESPACES[0]}/pending-{FAMILIES[0]}-s000-{g._hash('pending')}-xbnch"
GPU_NAMES = {"g4dn": "t4", "g5": "a10g", "g6": "l4", "g6e": "l40s", "p4d": "a100", "p5": "h100"}


@dataclass(frozen=True)
class GpuWorkload:
    namespace: str
    name: str
    gpus: int
    cuda: str | None
    selector: dict[str, str]
    affinity: Obj | None


class FamilyGenerator(Generator):
    def __init__(self, nodes: int, pods: int, seed: int, *, gpu_pools: int, gpu_share_pct: int, shapes: int):
        super().__init__(nodes, pods, seed)
        self.gpu_share = gpu_share_pct / 100
        self.n_shapes = shapes
        self.releases = (self.old, self.mid(), self.new)
        self.pools = [self._pool(i) for i in range(gpu_pools)]
        self.workloads: list[GpuWorkload] = []

    def mid(self) -> cb.OsRelease:
        amis = {k: self.ids.ami() for k in self.old.amis}
        return cb.OsRelease("2026.11.13", "6.12.57", "v1.34.2-eks-b3126f4", self.new.containerd, amis)

    def _pool(self, i: int) -> cb.NodePoolDef:
        fams = sorted(self.rng.sample(FAMILIES, self.rng.randint(1, 3)))
        capacity = ("spot", "on-demand") if i % 3 == 0 else ("on-demand",)
        return cb.NodePoolDef(
            f"gpu-{'-'.join(fams)}-{i:04d}",
            "gpu",
            (
                cb.req("eks.amazonaws.com/instance-family", "In", *fams),
                cb.req("karpenter.sh/capacity-type", "In", *capacity),
                cb.req("eks.amazonaws.com/instance-gpu-manufacturer", "In", "nvidia"),
            ),
            taints=(g.GPU_TAINT,),
            limits={"nvidia.com/gpu": str(self.rng.choice((64, 256, 1000)))},
            weight=self.rng.choice((None, 10, 50)),
        )

    def node_defs(self) -> list[cb.NodeDef]:
        accelerated = round(self.n_nodes * self.gpu_share)
        system = max(1, self.n_nodes // 50)
        general = self.n_nodes - accelerated - system
        weights = [w for _, w in GPU_TYPES]
        defs = []
        for i in range(accelerated):
            pool = self.pools[i % len(self.pools)]
            fams = pool.values("eks.amazonaws.com/instance-family") or FAMILIES
            types = [t for t, _ in GPU_TYPES if t.split(".")[0] in fams]
            itype = self.rng.choices(types, weights=[w for t, w in GPU_TYPES if t in types])[0]
            release = self.rng.choices(self.releases, weights=(2, 3, 5))[0]
            defs.append(self._def(itype, pool, g.GPU_NC, release, drifted=release is not self.new))
        del weights
        for _ in range(general):
            itype = self.rng.choices(g.CPU_TYPES, weights=[c[1] for c in g.CPU_TYPES])[0][0]
            defs.append(self._def(itype, g.GENERAL, g.DEFAULT_NC, self.new))
        defs += [self._def("m7g.2xlarge", g.SYSTEM, g.DEFAULT_NC, self.new) for _ in range(system)]
        for i in range(max(2, accelerated // 40)):  # launching claims, spread over the pools
            pool = self.pools[(i * 7) % len(self.pools)]
            fams = pool.values("eks.amazonaws.com/instance-family") or FAMILIES
            itype = next(t for t, _ in GPU_TYPES if t.split(".")[0] == fams[0])
            defs.append(self._def(itype, pool, g.GPU_NC, self.new, launching=True))
        return defs

    def _def(
        self, itype: str, pool: cb.NodePoolDef, nc: cb.NodeClassDef, release: cb.OsRelease, **kw: Any
    ) -> Any:
        created = NOW - timedelta(seconds=int(13.5 * 86400 * self.rng.random() ** 2) + 120)
        if kw.pop("launching", False):
            created = NOW - timedelta(seconds=self.rng.randint(5, 60))
            kw.update(
                launching=True, requests={"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1", "pods": "1"}
            )
        drifted = "AMIDrift" if kw.pop("drifted", False) else None
        return cb.NodeDef(itype, pool, nc, self.rng.choice(g.ZONES), created, release, drifted=drifted, **kw)

    def infrastructure(self) -> tuple[list[Obj], list[Obj], list[Obj], list[Obj]]:
        ids = self.ids
        nodes, claims = [], []
        for nd in self.node_defs():
            node, claim = cb.node_and_claim(ids, nd, NOW)
            claims.append(claim)
            if node is not None:
                self._driver_labels(node, nd.release)
                nodes.append(node)
        subnets = [f"subnet-0{ids.hex(16)}" for _ in g.ZONES]
        sg = f"sg-0{ids.hex(16)}"
        created = NOW - timedelta(days=180)
        classes = [cb.nodeclass(ids, nc, created, subnets=subnets, sg=sg) for nc in (g.DEFAULT_NC, g.GPU_NC)]
        by_pool: dict[str, list[Obj]] = {}
        for c in claims:
            by_pool.setdefault(c["metadata"]["labels"]["karpenter.sh/nodepool"], []).append(c)
        pools = []
        for pool in (g.GENERAL, *self.pools, g.SYSTEM):
            mine = by_pool.get(pool.name, [])
            usage = cb.sum_resources(c["status"]["capacity"] for c in mine)
            usage["nodes"] = str(len(mine))
            pools.append(cb.nodepool(ids, pool, created, nodes=len(mine), resources=usage))
        return classes, pools, nodes, claims

    def _driver_labels(self, node: Obj, release: cb.OsRelease) -> None:
        if "nvidia.com/gpu" not in node["status"]["capacity"] or self.rng.random() < 0.15:
            return
        branch = DRIVERS[self.releases.index(release)]
        version = self.rng.choices([d for d, _ in branch], weights=[w for _, w in branch])[0]
        major, minor, rev = version.split(".")
        labels = node["metadata"]["labels"]
        labels.update(
            {
                "nvidia.com/cuda.driver-version.full": version,
                "nvidia.com/cuda.driver.major": major,
                "nvidia.com/cuda.driver.minor": minor,
                "nvidia.com/cuda.driver.rev": rev,
                "nvidia.com/gpu.present": "true",
            }
        )
        node["metadata"]["labels"] = dict(sorted(labels.items()))

    # ---- pods

    def gpu_pods(self, slots: Sequence[Slot]) -> Iterator[Obj]:
        """Small GPU Deployments: a new one every ~2 GPU nodes, selecting what the node it starts on has."""
        current: GpuWorkload | None = None
        for slot in slots:
            free = int(slot.node["status"]["allocatable"].get("nvidia.com/gpu", "0"))
            if not free:
                continue
            if current is None or self.rng.random() < 0.5:
                current = self._workload(slot.node, len(self.workloads))
                self.workloads.append(current)
            while free >= current.gpus and self.rng.random() < 0.9:
                free -= current.gpus
                yield self._gpu_pod(slot, current)

    def _workload(self, node: Obj, i: int) -> GpuWorkload:
        labels = node["metadata"]["labels"]
        fam = labels["eks.amazonaws.com/instance-family"]
        kind = i % 7
        selector: dict[str, str] = {}
        affinity: Obj | None = None
        if kind == 1:
            selector = {"eks.amazonaws.com/instance-family": fam}
        elif kind == 2:
            selector = {"karpenter.sh/nodepool": labels["karpenter.sh/nodepool"]}
        elif kind == 3:
            selector = {"eks.amazonaws.com/instance-gpu-name": labels["eks.amazonaws.com/instance-gpu-name"]}
        elif kind == 4:
            others = self.rng.sample([f for f in FAMILIES if f != fam], 2)
            affinity = _required("eks.amazonaws.com/instance-family", "In", sorted([fam, *others]))
        elif kind == 5:
            avoid = [f for f in FAMILIES if f != fam][: self.rng.randint(1, 3)]
            affinity = _required("eks.amazonaws.com/instance-family", "NotIn", avoid)
        elif kind == 6:
            selector = {"karpenter.sh/capacity-type": labels["karpenter.sh/capacity-type"]}
        gpus = self.rng.choice((1, 1, 1, 2, 4))
        cuda = self.rng.choice(CUDA_NEEDS) if self.rng.random() < 0.8 else None
        ns = g.NAMESPACES[i % len(g.NAMESPACES)]
        return GpuWorkload(ns, f"gpu-{fam}-w{i:05d}", gpus, cuda, selector, affinity)

    def _gpu_pod(self, slot: Slot, w: GpuWorkload) -> Obj:
        cpu, mem = 1000 * w.gpus, 8192 * w.gpus
        slot.take(cpu, mem, {"nvidia.com/gpu": w.gpus})
        return self._pod_of(w, slot.node, cpu, mem)

    def _pod_of(self, w: GpuWorkload, node: Obj | None, cpu: int, mem: int, created: Any = None) -> Obj:
        rs = f"{w.name}-{g._hash(w.name)}"
        requests = {"cpu": f"{cpu}m", "memory": f"{mem}Mi", "nvidia.com/gpu": str(w.gpus)}
        annotations = {"kubectl-gpu.io/cuda": w.cuda} if w.cuda else None
        image = f"nvcr.io/nvidia/pytorch:2{self.rng.randint(3, 5)}.0{self.rng.randint(1, 9)}-py3"
        return cb.pod(
            self.ids,
            w.namespace,
            self.pod_name(w.namespace, rs),
            g._created(node) if node is not None else created,
            [
                cb.container(
                    "main",
                    image,
                    requests=requests,
                    limits={k: v for k, v in requests.items() if k != "cpu"},
                    env=[cb.env_var("LOG_LEVEL", "info"), cb.env_field("POD_NAME", "metadata.name")],
                    ports=[("http", 8000)],
                )
            ],
            now=NOW,
            node=node,
            owner=self.owner("ReplicaSet", w.namespace, rs),
            labels={"app.kubernetes.io/name": w.name, "pod-template-hash": g._hash(w.name)},
            annotations=annotations,
            tolerations=[g.GPU_TOLERATION] if w.name[-1] != "3" else [],
            node_selector=w.selector or None,
            affinity=w.affinity,
        )

    def pending_pods(self, nodes: Sequence[Obj], slots: Sequence[Slot], count: int) -> Iterator[Obj]:
        shapes = [self._pending_shape(i) for i in range(self.n_shapes)]
        message = cb.scheduler_failed(len(nodes), {"Insufficient nvidia.com/gpu": len(nodes)}, {})
        for i in range(count):
            w = shapes[i % len(shapes)] if i < len(shapes) else self.rng.choice(shapes)
            created = NOW - timedelta(seconds=self.rng.randint(60, 36 * 3600))
            p = self._pod_of(w, None, 1000 * min(w.gpus, 8), 8192 * min(w.gpus, 8), created)
            if i == 0:  # a fixed name, so `explain` can target it in every shape
                p["metadata"]["name"] = EXAMPLE_PENDING_POD.split("/")[1]
                self.ids.reserve(p["metadata"]["name"], w.namespace)
            p["status"]["conditions"][0]["message"] = message
            self.pending_events.append(
                cb.event(
                    self.ids,
                    p,
                    reason="FailedScheduling",
                    message=message,
                    component=cb.SCHEDULER,
                    first=created + timedelta(seconds=1),
                    last=NOW - timedelta(seconds=self.rng.randint(5, 55)),
                    count=3,
                )
            )
            yield redact(p)

    def _pending_shape(self, i: int) -> GpuWorkload:
        kind = i % 7  # what it selects varies fastest, then the family, then how many GPUs
        fam = FAMILIES[(i // 7) % len(FAMILIES)]
        pool = self.pools[i % len(self.pools)].name
        gpus = (1, 2, 4, 8, 16)[(i // (7 * len(FAMILIES))) % 5]
        w = self._workload({"metadata": {"labels": _fake_labels(fam, pool)}}, kind)
        return GpuWorkload(w.namespace, f"pending-{fam}-s{i:03d}", gpus, w.cuda, w.selector, w.affinity)


def _fake_labels(fam: str, pool: str) -> dict[str, str]:
    return {
        "eks.amazonaws.com/instance-family": fam,
        "karpenter.sh/nodepool": pool,
        "eks.amazonaws.com/instance-gpu-name": GPU_NAMES[fam],
        "karpenter.sh/capacity-type": "on-demand",
    }


def _required(key: str, op: str, values: list[str]) -> Obj:
    term = {"matchExpressions": [{"key": key, "operator": op, "values": values}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def generate_family(
    nodes: int,
    pods: int,
    out: Path,
    *,
    seed: int = 7,
    gpu_pools: int = 8,
    gpu_share_pct: int = 40,
    pending_shapes: int = 186,
) -> dict[str, int]:
    """Write one bundle of this family to `out`; returns object counts per kind."""
    gen = FamilyGenerator(
        nodes, pods, seed, gpu_pools=gpu_pools, gpu_share_pct=gpu_share_pct, shapes=pending_shapes
    )
    return write_generated(gen, out)


def fuzzed(seed: int, count: int, max_nodes: int = 1500) -> dict[str, dict[str, int]]:
    """`count` shapes of random sizes of every kind: nodes, pods a node, GPU share, GPU pools, Pending shapes."""
    rng = random.Random(seed)
    out = {}
    for i in range(count):
        nodes = rng.randint(50, max_nodes)
        out[f"fuzz{i}"] = {
            "nodes": nodes,
            "pods": nodes * rng.randint(8, 30),
            "gpu_share_pct": rng.randint(10, 60),
            "gpu_pools": rng.choice((1, 3, 8, 40, 300)),
            "pending_shapes": rng.choice((5, 40, 186, 400)),
            "seed": rng.randint(1, 10_000),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the N-nodes / 20N-pods family and other shapes.")
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--pods", type=int, help="default 20 x nodes")
    parser.add_argument("--gpu-pools", type=int, default=8)
    parser.add_argument("--gpu-share-pct", type=int, default=40)
    parser.add_argument("--pending-shapes", type=int, default=186)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="default bench/out/family-<nodes>.json")
    args = parser.parse_args(argv)
    out = args.out or Path(__file__).resolve().parent / "out" / f"family-{args.nodes}.json"
    start = time.perf_counter()
    counts = generate_family(
        args.nodes,
        args.pods or 20 * args.nodes,
        out,
        seed=args.seed,
        gpu_pools=args.gpu_pools,
        gpu_share_pct=args.gpu_share_pct,
        pending_shapes=args.pending_shapes,
    )
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - start:.1f}s ({summary})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
