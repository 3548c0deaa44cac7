"""`smi --snapshot` on the demo bundle's stored probes: attribution, and a node whose GPU fell off the bus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")


def test_lost_gpu_is_an_error_not_an_empty_ok(cli: Cli) -> None:
    result = cli("smi", "--snapshot", DEMO, "-o", "json")
    assert result.code == 1, result.err
    by_node = {r["node"]: r for r in json.loads(result.out)["results"]}
    lost = by_node["i-04b975f2935588ecc"]  # AcceleratedHardwareReady=False, NvidiaXID79Error
    assert lost["gpus"] == [] and lost["driverVersion"] == "580.95.05"
    assert [f["code"] for f in lost["findings"]] == ["NVIDIA_SMI_FAILED"]
    assert "GPU is lost" in lost["findings"][0]["message"]


def test_processes_are_attributed_to_pods(cli: Cli) -> None:
    results = json.loads(cli("smi", "--snapshot", DEMO, "-o", "json").out)["results"]
    pods = {p["pod"] for r in results for g in r["gpus"] for p in g["processes"]}
    assert pods == {"serving/vllm-l40s-0", "ml/pretrain-8x-h100-0"}
