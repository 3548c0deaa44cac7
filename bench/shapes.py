#!/usr/bin/env python3
"""The cluster shapes of issue 38, written from the issue's descriptions as `kubectl get -o json` Lists.

    python bench/shapes.py --shape small [--shape pools300 ...] [--nodes N] [--out-dir bench/out] [--seed 7]
    python bench/shapes.py --all

Each shape is one `apiVersion: v1, kind: List` document (`items` grouped by kind: nodes, pods, nodepools,
nodeclaims, events), as `kubectl get nodes,pods,nodepools,nodeclaims,events -A -o json` prints it (4-space
indent), written to `<out-dir>/shape-<name>.json` (`.yaml` for `yaml`). The objects come from
`shapes_objects.py` / `shapes_workloads.py` (this bench's own instance table and Auto Mode labels, not the
tool's catalog or its cluster builder). Same seed, same bytes.

The counts scale with `--nodes` (the issue's figures at each shape's own node count, the default: 1,000,
or 300 for `pools300`, where pools and Pending shapes are one per node). Issue 38's shapes: `small` (a),
`many-pending` (b), `pools300` (c), `kubectl-list` (d), `events50k` (e), `yaml` (f: `kubectl-list` as
`-o yaml`); and three of this bench's own: `taints-labels` (many taints and
labels per node), `nodeclaims` (10 NodeClaims a node, most in flight or failing), `namespaces` (5,000
namespaces).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shapes_cluster import (
    Cluster,
    add_nodes,
    add_pools,
    builtin_pools,
    fill_nodes,
    gpu_pool,
    in_flight,
    pick_families,
)
from shapes_objects import NOW_TEXT, Ids, Obj, cpu_types, gpu_types
from shapes_pending import add_pending, many_pending_specs, pool_shapes, shape_specs
from shapes_workloads import event

__all__ = ["NOW_TEXT", "SHAPES", "build", "write"]

OUT = Path(__file__).resolve().parent / "out"
NAMESPACES = ["default", "ml", "inference", "research", "batch", "platform", "serving", "data"]


def small(ids: Ids, nodes: int = 1000) -> Cluster:
    """(a) 1,000 nodes, 20 small pods a node (~1.2 KB each), 50 GPU pools over 4 GPU families."""
    rng = ids.rng
    four = ["g5", "g6", "g6e", "p5"]
    pools = [gpu_pool(rng, f"gpu-{i:02d}", pick_families(rng, 1, 2, tuple(four))) for i in range(50)]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c, weights={p.name: rng.randint(1, 100) for p in pools if rng.random() < 0.5})
    add_nodes(c, nodes, gpu_share=0.4)
    fill_nodes(c, 20, NAMESPACES)
    add_pending(c, shape_specs(rng, pools, 40, NAMESPACES), per_shape=10, event_every=1)
    in_flight(c, nodes // 50)
    return c


def many_pending(ids: Ids, nodes: int = 1000) -> Cluster:
    """(b) 1,000 nodes over 200 instance types, 100 NodePools, 20,000 Pending GPU pods of 2,000 shapes,
    5,000 NodeClaims in flight, an event per 5 pods."""
    rng = ids.rng
    pools = []
    for i in range(100):
        taint = (
            {"effect": "NoSchedule", "key": "dedicated", "value": f"team-{i % 7}"}
            if rng.random() < 0.3
            else None
        )
        pools.append(
            gpu_pool(
                rng,
                f"gpu-pool-{i:03d}",
                pick_families(rng, 1, 3),
                zones=rng.random() < 0.3,
                gpu_gt=rng.choice((0, 1, 3)) if rng.random() < 0.2 else None,
                taint=taint,
            )
        )
    builtin = builtin_pools()
    # 200 instance types in all: every GPU type of the table, the rest CPU types of the general pool.
    gpu_names = {t.name for t in gpu_types()}
    builtin[0].types = cpu_types()[: 200 - len(gpu_names)]
    c = Cluster(ids, [*builtin, *pools])
    limits = {
        p.name: (
            {"nvidia.com/gpu": str(rng.choice((16, 64, 256)))}
            if rng.random() < 0.5
            else {"cpu": str(rng.choice((500, 2000, 8000)))}
        )
        for p in pools
    }
    add_pools(c, limits=limits, weights={p.name: rng.randint(1, 100) for p in pools})
    add_nodes(c, nodes, gpu_share=0.5)
    fill_nodes(c, 5, NAMESPACES)
    add_pending(c, many_pending_specs(rng, pools, 2 * nodes, NAMESPACES), per_shape=10, event_every=5)
    in_flight(c, 5 * nodes, pools)
    return c


def pools300(ids: Ids, nodes: int = 300) -> Cluster:
    """(c) 300 GPU NodePools of 10-18 requirements (In lists up to ~60 values, many instance types the
    catalog does not know), 1,500 Pending pods of 300 shapes."""
    rng = ids.rng
    pools, objs = pool_shapes(ids, nodes)
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    c.nodepools[2:] = objs  # the GPU pools as written, with their long requirements
    add_nodes(c, nodes, gpu_share=0.6)
    fill_nodes(c, 10, NAMESPACES)
    add_pending(c, shape_specs(rng, pools, nodes, NAMESPACES), per_shape=5, event_every=1)
    return c


def kubectl_list(ids: Ids, nodes: int = 1000) -> Cluster:
    """(d) `kubectl get nodes,pods,nodepools,nodeclaims,events -A -o json`: 10 pods a node with probes, env
    and statuses, 3 % Pending."""
    rng = ids.rng
    pools = [gpu_pool(rng, f"gpu-{fam}", [fam]) for fam in ("g5", "g6", "g6e", "p4d", "p5")]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    add_nodes(c, nodes, gpu_share=0.3)
    fill_nodes(c, 10, NAMESPACES, full=True)
    add_pending(
        c,
        shape_specs(rng, pools, 30, NAMESPACES, full=True),
        per_shape=nodes * 10 * 3 // 100 // 30,
        event_every=1,
    )
    in_flight(c, 10)
    return c


def events50k(ids: Ids, nodes: int = 1000) -> Cluster:
    """(e) 50,000 events: a 1,000-node cluster (10 pods a node) whose events the API server still holds."""
    c = kubectl_list_like(ids, nodes)
    rng = ids.rng
    reasons = (
        ("Scheduled", "default-scheduler", "Normal"),
        ("Pulled", "kubelet", "Normal"),
        ("Created", "kubelet", "Normal"),
        ("Started", "kubelet", "Normal"),
        ("BackOff", "kubelet", "Warning"),
        ("Unhealthy", "kubelet", "Warning"),
    )
    node_reasons = (
        ("DisruptionBlocked", "karpenter", "Normal"),
        ("Unconsolidatable", "karpenter", "Normal"),
        ("NodeReady", "kubelet", "Normal"),
    )
    while len(c.events) < 50 * nodes:
        if rng.random() < 0.8:
            target, (reason, comp, kind) = rng.choice(c.pods), rng.choice(reasons)
        else:
            target, (reason, comp, kind) = rng.choice(c.nodes), rng.choice(node_reasons)
        c.events.append(
            event(
                ids, target, reason, f"{reason} {target['metadata']['name']}", comp, kind, rng.randint(1, 20)
            )
        )
    return c


def kubectl_list_like(ids: Ids, nodes: int) -> Cluster:
    rng = ids.rng
    pools = [gpu_pool(rng, f"gpu-{fam}", [fam]) for fam in ("g5", "g6e", "p5")]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    add_nodes(c, nodes, gpu_share=0.3)
    fill_nodes(c, 10, NAMESPACES)
    add_pending(c, shape_specs(rng, pools, 30, NAMESPACES), per_shape=10, event_every=1)
    return c


def taints_labels(ids: Ids, nodes: int = 1000) -> Cluster:
    """Ours: 1,000 nodes with ~100 labels (node-feature-discovery, team tags) and 8 taints each; pods that
    tolerate them with long toleration lists; 3 % Pending."""
    rng = ids.rng

    def labels(r: random.Random) -> dict[str, str]:
        nfd = {f"feature.node.kubernetes.io/cpu-cpuid.{f}": "true" for f in r.sample(_CPUID, 60)}
        tags = {
            f"acme.io/{k}": f"{k}-{r.randint(0, 9)}"
            for k in ("team", "cost-center", "env", "tier", "owner", "project", "budget", "app")
        }
        return nfd | tags | {f"rack.acme.io/slot-{i}": str(r.randint(0, 99)) for i in range(30)}

    def taints(r: random.Random) -> list[Obj]:
        return [
            {"effect": r.choice(("NoSchedule", "PreferNoSchedule")), "key": f"acme.io/t{i}", "value": "x"}
            for i in r.sample(range(20), 7)
        ]

    pools = [gpu_pool(rng, f"gpu-{fam}", [fam]) for fam in ("g5", "g6", "g6e", "p5")]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    add_nodes(c, nodes, gpu_share=0.4, labels=labels, taints=taints)
    tolerate = [
        {"effect": e, "key": f"acme.io/t{i}", "operator": "Exists"}
        for i in range(20)
        for e in ("NoSchedule", "PreferNoSchedule")
    ]
    fill_nodes(c, 10, NAMESPACES, tolerations=tolerate)
    add_pending(c, shape_specs(rng, pools, 30, NAMESPACES), per_shape=10, event_every=1)
    return c


_CPUID = [
    f"{a}{b}"
    for a in ("AVX", "SSE", "AMX", "VAES", "FMA", "BMI", "ADX", "SHA", "GFNI", "MOVDIR")
    for b in ("", "2", "3", "4", "512F", "512BW", "512CD", "512DQ", "VNNI", "BF16")
]


def nodeclaims(ids: Ids, nodes: int = 1000) -> Cluster:
    """Ours: 1,000 nodes and 10,000 NodeClaims (one registered a node, 9,000 launched and in flight or
    failing), 40 GPU pools."""
    rng = ids.rng
    pools = [gpu_pool(rng, f"gpu-{i:02d}", pick_families(rng, 1, 3)) for i in range(40)]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    add_nodes(c, nodes, gpu_share=0.5)
    fill_nodes(c, 10, NAMESPACES)
    in_flight(c, 9 * nodes)
    for claim in c.nodeclaims[nodes::3]:  # a third of them failed to launch (no capacity)
        launched = claim["status"]["conditions"][0]
        launched |= {
            "reason": "InsufficientCapacityError",
            "status": "False",
            "message": "all requested instance types were unavailable during launch",
        }
    add_pending(c, shape_specs(rng, pools, 40, NAMESPACES), per_shape=10, event_every=1)
    return c


def namespaces(ids: Ids, nodes: int = 1000) -> Cluster:
    """Ours: 1,000 nodes, 10 pods a node over 5,000 namespaces (a namespace a tenant), 3 % Pending."""
    rng = ids.rng
    spaces = [f"tenant-{i:05d}" for i in range(5 * nodes)]
    pools = [gpu_pool(rng, f"gpu-{fam}", [fam]) for fam in ("g5", "g6", "g6e", "p4d")]
    c = Cluster(ids, [*builtin_pools(), *pools])
    add_pools(c)
    add_nodes(c, nodes, gpu_share=0.3)
    fill_nodes(c, 10, spaces)
    add_pending(c, shape_specs(rng, pools, 3 * nodes // 10, spaces), per_shape=1, event_every=1)
    return c


SHAPES: dict[str, Callable[..., Cluster]] = {
    "small": small,
    "many-pending": many_pending,
    "pools300": pools300,
    "kubectl-list": kubectl_list,
    "events50k": events50k,
    "yaml": kubectl_list,
    "taints-labels": taints_labels,
    "nodeclaims": nodeclaims,
    "namespaces": namespaces,
}
_INDENT = re.compile(rb"^( +)", re.M)


def build(shape: str, seed: int = 7, nodes: int | None = None) -> list[Obj]:
    ids = Ids(random.Random(f"{'kubectl-list' if shape == 'yaml' else shape}-{seed}"))
    cluster = SHAPES[shape](ids, nodes) if nodes else SHAPES[shape](ids)
    return cluster.items()


def path_for(shape: str, out_dir: Path = OUT, nodes: int | None = None) -> Path:
    size = f"-{nodes}" if nodes else ""
    return out_dir / f"shape-{shape}{size}.{'yaml' if shape == 'yaml' else 'json'}"


def write(shape: str, out: Path, seed: int = 7, nodes: int | None = None) -> dict[str, int]:
    """Write the shape's List to `out`; the count of objects per kind."""
    items = build(shape, seed, nodes)
    doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    out.parent.mkdir(parents=True, exist_ok=True)
    if shape == "yaml":
        import yaml

        class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
            """Every object written out in full, as kubectl's printer (Go's yaml) does: PyYAML would write
            an `&anchor` and `*aliases` for the objects this generator shares between pods."""

            def ignore_aliases(self, data: object) -> bool:
                return True

        out.write_text(yaml.dump(doc, Dumper=Dumper, default_flow_style=False, sort_keys=True))
    else:  # kubectl's JSON printer indents by 4
        text = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
        out.write_bytes(_INDENT.sub(lambda m: m.group(1) * 2, text) + b"\n")
    counts: dict[str, int] = {}
    for item in items:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), default=[])
    parser.add_argument("--all", action="store_true", help="every shape")
    parser.add_argument("--nodes", type=int, help="another node count than the shape's own")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out-dir", type=Path, default=OUT)
    parser.add_argument("--out", type=Path, help="the file (one --shape only)")
    args = parser.parse_args(argv)
    shapes = sorted(SHAPES) if args.all else args.shape
    if not shapes or (args.out and len(shapes) > 1):
        parser.error("name one --shape with --out, or --shape ... / --all")
    for shape in shapes:
        out = args.out or path_for(shape, args.out_dir, args.nodes)
        counts = write(shape, out, args.seed, args.nodes)
        size = out.stat().st_size / 2**20
        print(f"{out}: {size:.1f} MiB, " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
