#!/usr/bin/env python3
"""Clusters saved the way an SRE saves them: `kubectl get nodes,pods,events,nodepools,nodeclaims,... -A -o
json` into one compact `kind: List` (no bundle head, no capture time, one line), for the benchmark.

    python bench/compact.py --nodes 1000 [--bare-pct 25] [--out F]          # the compact-List family
    python bench/compact.py --many-pending [--out F]                        # thousands Pending, few shapes

* **`C<n>`, the compact-List family** (N = 250 to 4,000): the objects of `family.py`'s N-nodes / 20N-pods
  shape (same generator, same seed), written compact, with `--bare-pct` of the GPU and CPU application pods
  made bare (no ownerReferences, no pod-template-hash: `kubectl run`, notebooks, hand-made jobs);
* **`pending`, many Pending pods of one job**: 20,000 Pending GPU pods of 2,000 shapes, 5,000 NodeClaims still
  launching, 100 GPU NodePools, on 500 nodes (issue 22's incident shape: one big job's pods all Pending).

Objects are sorted-key compact JSON, as `kubectl get -o json | jq -c .` prints them; same seed, same bytes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import family
import generate as g
from generate import Slot

__all__ = ["COMPACT_FAMILY", "MANY_PENDING", "generate_compact", "generate_many_pending"]

Obj = dict[str, Any]
COMPACT_FAMILY = (250, 500, 1000, 2000, 4000)
# issue 22's shape: 20,000 Pending pods of 2,000 shapes, 5,000 claims in flight, 100 GPU NodePools.
MANY_PENDING = {"nodes": 500, "pods": 10_000, "pending": 20_000, "shapes": 2_000, "launching": 5_000}
_HEAD = b'{"apiVersion":"v1","items":['
_TAIL = b'],"kind":"List","metadata":{"resourceVersion":""}}\n'


class _ListWriter:
    """One compact `kind: List`, written an item at a time."""

    def __init__(self, fh: Any) -> None:
        self._fh, self._first = fh, True
        self.counts: dict[str, int] = {}
        fh.write(_HEAD)

    def write(self, obj: Obj) -> None:
        self._fh.write((b"" if self._first else b",") + orjson.dumps(obj, option=orjson.OPT_SORT_KEYS))
        self._first = False
        self.counts[obj["kind"]] = self.counts.get(obj["kind"], 0) + 1

    def close(self) -> None:
        self._fh.write(_TAIL)


# What bare GPU pods run: a team's notebooks and `kubectl run` jobs use a few images, not one per pod.
BARE_IMAGES = (
    "nvcr.io/nvidia/pytorch:24.05-py3",
    "nvcr.io/nvidia/pytorch:24.10-py3",
    "vllm/vllm-openai:v0.6.3",
    "nvidia/cuda:12.4.1-runtime-ubuntu22.04",
)


def _bare(pod: Obj, gpu: bool = False) -> Obj:
    """The pod as one created without a controller: no owner, no template hash; a GPU pod runs one of
    `BARE_IMAGES`, the same for the pods of one origin (its app label)."""
    meta = pod["metadata"]
    meta.pop("ownerReferences", None)
    labels = meta.get("labels", {})
    labels.pop("pod-template-hash", None)
    if gpu:
        origin = labels.get("app.kubernetes.io/name", "")
        pod["spec"]["containers"][0]["image"] = BARE_IMAGES[sum(map(ord, origin)) % len(BARE_IMAGES)]
    return pod


class _BareGenerator(family.FamilyGenerator):
    """The family, with a share of the GPU and CPU application pods bare (DaemonSet and Job pods keep theirs)."""

    bare_share = 0.25

    def gpu_pods(self, slots: Sequence[Slot]) -> Iterator[Obj]:
        for pod in super().gpu_pods(slots):
            yield _bare(pod, gpu=True) if self.rng.random() < self.bare_share else pod

    def app_pods(self, slots: Sequence[Slot], count: int) -> Iterator[Obj]:
        for pod in super().app_pods(slots, count):
            yield _bare(pod) if self.rng.random() < self.bare_share else pod


class _ManyPendingGenerator(family.FamilyGenerator):
    """Few nodes, many launching NodeClaims, and `pending` Pending GPU pods over `n_shapes` shapes."""

    def __init__(self, *args: Any, pending: int, launching: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.n_pending, self.n_launching = pending, launching

    def node_defs(self) -> list[Any]:
        defs = super().node_defs()
        rng = random.Random(self.n_launching)
        for i in range(self.n_launching):
            pool = self.pools[(i * 7) % len(self.pools)]
            fams = pool.values("eks.amazonaws.com/instance-family") or family.FAMILIES
            types = [t for t, _ in family.GPU_TYPES if t.split(".")[0] in fams]
            defs.append(self._def(rng.choice(types), pool, g.GPU_NC, self.new, launching=True))
        return defs

    def pods(self, nodes: Sequence[Obj]) -> Iterator[Obj]:
        yield from super().pods(nodes)
        example = family.EXAMPLE_PENDING_POD.split("/")[1]  # named once, by the first run of Pending pods
        for pod in self.pending_pods(nodes, (), self.n_pending):
            if pod["metadata"]["name"] == example:
                pod["metadata"]["name"] = self.pod_name(pod["metadata"]["namespace"], "pending-more")
            yield pod


def _write(gen: g.Generator, out: Path) -> dict[str, int]:
    return g.write_generated(gen, out, _ListWriter)


def generate_compact(nodes: int, out: Path, *, bare_pct: int = 25, seed: int = 7) -> dict[str, int]:
    """One member of the compact-List family (20 pods a node); object counts per kind."""
    gen = _BareGenerator(nodes, 20 * nodes, seed, gpu_pools=8, gpu_share_pct=40, shapes=186)
    gen.bare_share = bare_pct / 100
    return _write(gen, out)


def generate_many_pending(out: Path, *, seed: int = 7, **sizes: int) -> dict[str, int]:
    """The many-Pending shape (`MANY_PENDING`, each size overridable); object counts per kind."""
    s = {**MANY_PENDING, **sizes}
    gen = _ManyPendingGenerator(
        s["nodes"],
        s["pods"],
        seed,
        gpu_pools=100,
        gpu_share_pct=40,
        shapes=s["shapes"],
        pending=s["pending"],
        launching=s["launching"],
    )
    return _write(gen, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate compact kind: List inputs for the benchmark.")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--bare-pct", type=int, default=25)
    parser.add_argument("--many-pending", action="store_true", help="the many-Pending shape instead")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent / "out"
    start = time.perf_counter()
    if args.many_pending:
        out = args.out or here / "list-pending.json"
        counts = generate_many_pending(out, seed=args.seed)
    else:
        out = args.out or here / f"list-C{args.nodes}.json"
        counts = generate_compact(args.nodes, out, bare_pct=args.bare_pct, seed=args.seed)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - start:.1f}s ({summary})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
