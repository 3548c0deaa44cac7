#!/usr/bin/env python3
"""Benchmark (issue 38): a real `kubectl gpu smi --all` on N nodes against the fan-out model.

    python bench/smi_live.py [--nodes 40] [--concurrency 8] [--pod-s 1,3] [--repeat 3] [--markdown]
                             [--tree /tmp/before]   # also that checkout's kubectl_gpu, interleaved

`bench/fake_cluster.py smi` serves N GPU nodes (the suite's fake API server and simulated kubelet, their
own process, loopback); each debug pod is done (Succeeded, its log the collector's output) `--pod-s`
seconds after its create. Each run is a fresh `python -m kubectl_gpu smi --all --concurrency C -o json`.
Measured:

* **fan-out**: from the first pod create the server received to the last pod delete (the server's clock),
  against the model's ideal: `--concurrency` workers take the nodes in turn, each pod costing a create, its
  time to done, a log read and a delete, each request one round trip (the median of `GET /version` from
  this process on the same server, measured before each run), the pod seen the moment it is done
  (bench/smi_fanout.py's `fan_out`). This is the issue's "x the fan-out model": goal <= 1.3x.
* **whole**: the process, spawn to exit, against `kubectl gpu nodes -o json` on the same server right
  before it (start-up and a list, paired) plus the ideal.

With `--tree DIR` (e.g. `git archive COMMIT | tar -x -C DIR`) each repeat runs that checkout's `smi --all`
right before this one's, on the same server: before and after in the same minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pairs import compiled
from smi_fanout import fan_out
from usage_live import Server, add_tree_option, exit_code, timed, tree_rows

TARGET = 1.3


def round_trip(url: str, times: int = 15) -> float:
    """The median seconds of `GET /version` on the server (a request's round trip on this machine now)."""
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        with urllib.request.urlopen(url + "/version", timeout=10) as answer:
            answer.read()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def one_run(server: Server, smi: list[str], workdir: Path, tree: Path | None, nodes: int) -> dict[str, Any]:
    """One `smi --all` (from `tree`, or this checkout) and what the server saw of it."""
    server.ask("reset")
    wall, cpu = timed(smi, workdir, allowed=(0, 1), tree=tree)
    kinds = server.ask("stats")["kinds"]
    created, deleted = kinds.get("create pod"), kinds.get("delete pod")
    if not created or not deleted or created["count"] != nodes:
        raise SystemExit(f"expected {nodes} pods created and deleted, the server saw {kinds}")
    return {
        "wall": wall,
        "cpu": cpu,
        "span": deleted["last"] - created["first"],
        "polls": kinds.get("read pod", {}).get("count", 0),
    }


def one_pod_time(args: argparse.Namespace, pod_s: float, workdir: Path) -> list[dict[str, Any]]:
    """Per tree (`--tree` first, then this checkout), the runs at this pod time, interleaved: each repeat
    runs `nodes`, then `smi --all` from every tree, on the same server."""
    server = Server(["smi", "--nodes", str(args.nodes), "--pod-s", str(pod_s)], workdir)
    connect = ["--kubeconfig", str(server.kubeconfig), "-o", "json"]
    smi = ["smi", "--all", "--concurrency", str(args.concurrency), *connect]
    trees: list[Path | None] = [*args.tree, None]
    pairs: dict[int, list[dict[str, Any]]] = {index: [] for index in range(len(trees))}
    load_before = os.getloadavg()[0]
    try:
        for _ in range(args.repeat):
            base_wall, _ = timed(["nodes", *connect], workdir)
            rtt = round_trip(server.url)
            ideal = fan_out(args.nodes, args.concurrency, pod_s + 3 * rtt)
            for index, tree in enumerate(trees):
                run = one_run(server, smi, workdir, tree, args.nodes)
                run.update(
                    nodes_wall=base_wall,
                    rtt_ms=rtt * 1000,
                    ideal=ideal,
                    ratio=run["span"] / ideal,
                    whole_ratio=run["wall"] / (base_wall + ideal),
                )
                pairs[index].append(run)
    finally:
        server.close()
    load = (load_before, os.getloadavg()[0])
    rows = tree_rows(trees, pairs, load, pod_s=pod_s, nodes=args.nodes, concurrency=args.concurrency)
    for row in rows:
        row["whole_ratio"] = statistics.median(p["whole_ratio"] for p in row["pairs"])
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| tree | pod done after | run | fan-out s (first create to last delete) | ideal s | x model | whole s "
        "| nodes s | whole / (nodes + ideal) | pod reads | round trip ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary = []
    for row in rows:
        for number, p in enumerate(row["pairs"], 1):
            lines.append(
                f"| {row['tree']} | {row['pod_s']:g} s | {number} | {p['span']:.2f} | {p['ideal']:.2f} "
                f"| {p['ratio']:.2f} | {p['wall']:.2f} | {p['nodes_wall']:.2f} | {p['whole_ratio']:.2f} "
                f"| {p['polls']} | {p['rtt_ms']:.1f} |"
            )
        each = ", ".join(f"{p['ratio']:.2f}" for p in row["pairs"])
        verdict = "met" if row["ratio"] <= TARGET else "MISSED"
        summary.append(
            f"{row['tree']}: {row['nodes']} nodes, {row['concurrency']} at a time, pods done after "
            f"{row['pod_s']:g} s: fan-out median {row['ratio']:.2f}x the model ({each}), goal <= {TARGET}x: "
            f"{verdict}; whole {row['whole_ratio']:.2f}x; load average {row['load'][0]:.2f} -> {row['load'][1]:.2f}"
        )
    return "\n".join([*lines, "", *summary])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--pod-s", default="1,3", help="comma-separated: seconds from create to done")
    parser.add_argument("--repeat", type=int, default=3)
    add_tree_option(parser)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    compiled(*args.tree)
    with tempfile.TemporaryDirectory(prefix="bench-smi-") as tmp:
        rows = [row for s in args.pod_s.split(",") for row in one_pod_time(args, float(s), Path(tmp))]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))
    return exit_code(rows, TARGET)


if __name__ == "__main__":
    raise SystemExit(main())
