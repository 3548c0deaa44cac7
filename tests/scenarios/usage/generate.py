"""Writes the usage scenarios (ours): snapshot bundles whose `usage` window is built from real /metrics texts.

    python tests/scenarios/usage/generate.py      # rewrites ours__usage-window.json, ours__usage-forbidden.json

The cluster (us-east-1, catalog list prices), evaluated at the capture time 2026-12-01T12:05:00Z, window 300 s:

  node                 type            GPU pods                          /metrics read
  i-0a11000000000001   g4dn.4xlarge    ml/trainer (Deployment, 1 GPU)    DCGM exporter: 2 reads, 0% util (idle)
  i-0a11000000000002   g4dn.12xlarge   none (4 T4 idle)                  none (forbidden in ours__usage-forbidden)
  i-0a11000000000003   g5.xlarge       serving/vllm (Deployment, 1 GPU)  DCGM exporter timed out twice;
                                                                         vLLM: 3 reads, a counter reset
  (CPU pod serving/embedder: its /metrics is not an inference server we know)

Texts: the DCGM reads are tests/fixtures/metrics/dcgm/datadog__tesla-t4__metrics.txt (real) and, 300 s
later, the same text with DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION raised by 8.969 W x 300 s (ours, derived:
`_derived`); the vLLM reads are tests/fixtures/metrics/vllm/vllm-docs__llama-3.1-8b__design-metrics-example.txt
(real, 27453 tokens), then derived with vllm:generation_tokens_total at 30453 (150 s) and at 1500 (300 s:
the server restarted). Each derived text starts with a comment saying so (Prometheus ignores comments).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from kubectl_gpu.core.usage import Scrape, ScrapeSet  # noqa: E402
from kubectl_gpu.kube.snapshot import build_bundle, write_bundle  # noqa: E402
from tests.helpers import node, pod  # noqa: E402

METRICS = ROOT / "tests" / "fixtures" / "metrics"
DCGM = "dcgm/datadog__tesla-t4__metrics.txt"
VLLM = "vllm/vllm-docs__llama-3.1-8b__design-metrics-example.txt"
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CAPTURED = T0 + timedelta(minutes=5)
WINDOW = 300.0
N1, N2, N3 = "i-0a11000000000001", "i-0a11000000000002", "i-0a11000000000003"


def _text(name: str) -> str:
    return (METRICS / name).read_text(encoding="utf-8")


def _derived(name: str, series: str, value: str, why: str) -> str:
    """The fixture `name` with every sample of `series` set to `value`, headed by a comment saying so."""
    lines = []
    for line in _text(name).splitlines():
        if line.startswith(series) and not line.startswith("#"):
            line = line.rsplit(" ", 1)[0] + " " + value
        lines.append(line)
    head = f"# ours: derived from tests/fixtures/metrics/{name}: {series} set to {value} ({why})"
    return head + "\n" + "\n".join(lines) + "\n"


def _gpu_node(name: str, instance_type: str, gpus: int) -> dict[str, Any]:
    labels = {
        "node.kubernetes.io/instance-type": instance_type,
        "karpenter.sh/nodepool": "gpu",
        "karpenter.sh/capacity-type": "on-demand",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": "us-east-1a",
    }
    capacity = {"cpu": "16", "memory": "64Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return node(name, labels=labels, capacity=capacity, provider_id=f"aws:///us-east-1a/{name}")


def _owned(obj: dict[str, Any], kind: str, name: str, template_hash: str | None = None) -> dict[str, Any]:
    meta = obj["metadata"]
    meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"uid-{name}"}]
    if template_hash:
        meta["labels"]["pod-template-hash"] = template_hash
    return obj


def objects() -> list[dict[str, Any]]:
    gpu = {"nvidia.com/gpu": "1", "cpu": "2", "memory": "8Gi"}
    return [
        _gpu_node(N1, "g4dn.4xlarge", 1),
        _gpu_node(N2, "g4dn.12xlarge", 4),
        _gpu_node(N3, "g5.xlarge", 1),
        _owned(
            pod("trainer-5d8f7c9b6d-abcde", "ml", node_name=N1, requests=gpu),
            "ReplicaSet",
            "trainer-5d8f7c9b6d",
            "5d8f7c9b6d",
        ),
        _owned(
            pod("vllm-7c9d8b6f5-xyz12", "serving", node_name=N3, requests=gpu),
            "ReplicaSet",
            "vllm-7c9d8b6f5",
            "7c9d8b6f5",
        ),
        _owned(pod("embedder-0", "serving", node_name=N3, requests={"cpu": "1"}), "StatefulSet", "embedder"),
    ]


def _dcgm(pod_name: str, node_name: str, at: datetime, **kw: Any) -> Scrape:
    return Scrape("dcgm", "gpu-operator", pod_name, at, node=node_name, port=9400, **kw)


def _vllm(at: datetime, text: str) -> Scrape:
    return Scrape(
        "inference", "serving", "vllm-7c9d8b6f5-xyz12", at, node=N3, port=8000, server="vllm", text=text
    )


def scrapes(*, forbidden: bool) -> ScrapeSet:
    energy = str(128996013 + round(8.969 * WINDOW * 1000))
    reads = [
        _dcgm("nvidia-dcgm-exporter-aaaaa", N1, T0, text=_text(DCGM)),
        _dcgm(
            "nvidia-dcgm-exporter-aaaaa",
            N1,
            T0 + timedelta(seconds=WINDOW),
            text=_derived(DCGM, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", energy, "8.969 W for 300 s"),
        ),
        _dcgm("nvidia-dcgm-exporter-ccccc", N3, T0, error="timed out after 5s"),
        _dcgm("nvidia-dcgm-exporter-ccccc", N3, T0 + timedelta(seconds=WINDOW), error="timed out after 5s"),
        _vllm(T0, _text(VLLM)),
        _vllm(
            T0 + timedelta(seconds=150),
            _derived(VLLM, "vllm:generation_tokens_total", "30453.0", "3000 tokens in 150 s"),
        ),
        _vllm(
            T0 + timedelta(seconds=WINDOW),
            _derived(
                VLLM, "vllm:generation_tokens_total", "1500.0", "the server restarted, then 1500 tokens"
            ),
        ),
        Scrape(
            "inference",
            "serving",
            "embedder-0",
            T0,
            node=N3,
            port=8080,
            text="# ours: a server that is none we know\nprocess_cpu_seconds_total 3.5\n",
        ),
        Scrape(
            "inference",
            "serving",
            "embedder-0",
            T0 + timedelta(seconds=WINDOW),
            node=N3,
            port=8080,
            text="# ours: a server that is none we know\nprocess_cpu_seconds_total 4.5\n",
        ),
    ]
    if forbidden:
        reads.append(
            _dcgm("nvidia-dcgm-exporter-bbbbb", N2, T0, error="forbidden: pods/proxy", forbidden=True)
        )
    return ScrapeSet(window_s=WINDOW, scrapes=tuple(reads), notes=("--sample not given",))


def bundle(*, forbidden: bool) -> dict[str, Any]:
    return build_bundle(
        objects(),
        captured_at=CAPTURED,
        context="usage-scenario",
        notes=[],
        absent=(),
        usage=scrapes(forbidden=forbidden),
    )


def main() -> int:
    write_bundle(bundle(forbidden=False), HERE / "ours__usage-window.json")
    write_bundle(bundle(forbidden=True), HERE / "ours__usage-forbidden.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
