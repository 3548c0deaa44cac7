#!/usr/bin/env python3
"""The test suite's fake API server (tests/kube/apiserver.py) in its own process, set up for a live bench.

    python bench/fake_cluster.py usage [--pods 500] [--scrape-ms 200] [--slowest-ms 1000]
    python bench/fake_cluster.py smi [--nodes 40] [--pod-s 1.0]

Prints `READY URL`, then answers lines on stdin: `stats` (one JSON line: the requests it received, per kind
of request, with the first and last arrival in seconds of its monotonic clock), `reset` (forget them).

* `usage`: GPU nodes of 8 GPUs holding `--pods` vLLM pods (1 GPU each, image `vllm/vllm-openai`, a port named
  `metrics` on 8000). Each pod's `/metrics`, read through the pod proxy, answers vLLM's real text
  (tests/fixtures/metrics/vllm, its token counter moved on in the second answer) after `--scrape-ms`; the
  last pod of the list after `--slowest-ms` (the last is read last: the worst place for it).
* `smi`: `--nodes` GPU nodes; the suite's simulated kubelet runs each debug pod: Pending, Running after two
  thirds of `--pod-s`, Succeeded (the collector's output from the real fixtures in its log) at `--pod-s`
  after its create.

Run in its own process, so that the command measured does not share an interpreter with the server.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers import node, pod  # noqa: E402
from tests.kube import wire  # noqa: E402
from tests.kube.apiserver import FakeKubeAPI  # noqa: E402
from tests.kube.wire import RecordedRequest  # noqa: E402

# A real API server's listen backlog is long; socketserver's is 5, and 64 reads opening their connections at
# once then lose SYNs that come back a second later: a cost of this server, not of the client measured.
wire._Server.request_queue_size = 256

VLLM = (
    ROOT / "tests" / "fixtures" / "metrics" / "vllm" / "vllm-docs__llama-3.1-8b__design-metrics-example.txt"
)
GPUS_A_NODE = 8


class Timed(FakeKubeAPI):
    """The fake API server, recording each request's arrival on the monotonic clock."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[tuple[float, str, str]] = []

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.arrivals.append((time.monotonic(), request.method, request.path))

    def stats(self) -> dict[str, Any]:
        with self._lock:
            arrivals = list(self.arrivals)
        kinds: dict[str, dict[str, float]] = {}
        for at, method, path in arrivals:
            kind = request_kind(method, path)
            entry = kinds.setdefault(kind, {"count": 0, "first": at, "last": at})
            entry["count"] += 1
            entry["last"] = at
        return {"now": time.monotonic(), "kinds": kinds}


def request_kind(method: str, path: str) -> str:
    """What a request was: `proxy`, `create pod`, `read pod`, `log`, `delete pod`, or `METHOD /path`
    with names taken out (lists, discovery, reviews)."""
    if "/proxy/" in path:
        return "proxy"
    if re.search(r"/namespaces/[^/]+/pods/[^/]+/log$", path):
        return "log"
    if re.search(r"/namespaces/[^/]+/pods/[^/]+$", path):
        return {"GET": "read pod", "DELETE": "delete pod"}.get(method, f"{method} pod")
    if method == "POST" and path.endswith("/pods"):
        return "create pod"
    return f"{method} {re.sub(r'/namespaces/[^/]+/', '/namespaces/NS/', path)}"


def gpu_node(name: str, gpus: int) -> dict[str, Any]:
    labels = {
        "node.kubernetes.io/instance-type": "p5.48xlarge" if gpus == 8 else "g6.12xlarge",
        "topology.kubernetes.io/region": "us-east-1",
        "eks.amazonaws.com/compute-type": "auto",
    }
    capacity = {"cpu": "192", "memory": "2048Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    ready = [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]
    return node(name, labels=labels, capacity=capacity, conditions=ready)


def vllm_texts(text: str, index: int) -> tuple[str, str]:
    """Two answers of one vLLM server: its counters as in the fixture, then 100 x (index + 1) tokens on."""
    pattern = re.compile(r"^(vllm:generation_tokens_total\{[^}]*\}) ([0-9.]+)$", re.M)

    def later(match: re.Match[str]) -> str:
        return f"{match.group(1)} {float(match.group(2)) + 100 * (index + 1)}"

    return text, pattern.sub(later, text)


def setup_usage(api: FakeKubeAPI, pods: int, scrape_s: float, slowest_s: float) -> None:
    text = VLLM.read_text(encoding="utf-8")
    nodes = [f"i-{n:05d}" for n in range(-(-pods // GPUS_A_NODE))]
    api.add(*(gpu_node(n, GPUS_A_NODE) for n in nodes))
    names = [f"vllm-{i:04d}" for i in range(pods)]
    for index, name in enumerate(names):
        server = pod(
            name,
            "serving",
            node_name=nodes[index // GPUS_A_NODE],
            requests={"nvidia.com/gpu": "1"},
            image="vllm/vllm-openai:v0.6.3",
            labels={"app": "vllm"},
        )
        server["spec"]["containers"][0]["ports"] = [{"name": "metrics", "containerPort": 8000}]
        server["status"]["podIP"] = f"10.0.{index // 250}.{index % 250 + 1}"
        api.add(server)
        api.pod_proxy.serve("serving", name, 8000, *vllm_texts(text, index))
    # The first matching fault wins: the slowest pod's before everyone's.
    api.fault(path=rf"/pods/{re.escape(names[-1])}:8000/proxy/", delay=slowest_s)
    api.fault(path=r"/proxy/metrics$", delay=scrape_s)


def setup_smi(api: FakeKubeAPI, nodes: int, pod_s: float) -> object:
    from tests.kube.kubelet import SimulatedKubelet

    api.add(*(gpu_node(f"i-{n:05d}", 4) for n in range(nodes)))
    # The kubelet moves a pod on one step per `delay`: Pending at 1, Running at 2, Succeeded at 3.
    return SimulatedKubelet(api, delay=pod_s / 3).attach()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("usage", "smi"))
    parser.add_argument("--pods", type=int, default=500)
    parser.add_argument("--scrape-ms", type=float, default=200.0)
    parser.add_argument("--slowest-ms", type=float, default=1000.0)
    parser.add_argument("--nodes", type=int, default=40)
    parser.add_argument("--pod-s", type=float, default=1.0)
    args = parser.parse_args()
    api = Timed()
    kept: list[object] = []
    if args.mode == "usage":
        setup_usage(api, args.pods, args.scrape_ms / 1000, args.slowest_ms / 1000)
    else:
        kept.append(setup_smi(api, args.nodes, args.pod_s))
    api.start()
    print(f"READY {api.url}", flush=True)
    lock = threading.Lock()
    for line in sys.stdin:
        command = line.strip()
        with lock:
            if command == "stats":
                print(json.dumps(api.stats()), flush=True)
            elif command == "reset":
                with api._lock:
                    api.arrivals.clear()
                print("{}", flush=True)
    api.stop()


if __name__ == "__main__":
    main()
