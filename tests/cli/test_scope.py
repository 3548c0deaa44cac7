"""`-n` and `-l` scope what is listed, never a node's figures (issue 8, item 10)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")


def _accelerators(result: Result) -> dict[str, dict[str, object]]:
    assert result.code == 0, result.err
    return {n["name"]: n["accelerator"] for n in json.loads(result.out)["nodes"]}


def test_namespace_does_not_change_gpu_requested_or_free(cli: Cli) -> None:
    everything = _accelerators(cli("nodes", "--snapshot", DEMO, "-o", "json"))
    for namespace in ("ml", "serving"):
        assert _accelerators(cli("nodes", "--snapshot", DEMO, "-n", namespace, "-o", "json")) == everything
    assert cli("nodes", "--snapshot", DEMO, "-n", "nope", "-o", "json").code == 4  # not in it: said (issue 36)
    assert any(acc and acc["requested"] for acc in everything.values())  # type: ignore[index]


def test_namespace_narrows_the_pods_listed(cli: Cli) -> None:
    listed = json.loads(cli("pending", "--snapshot", DEMO, "-n", "ml", "-o", "json").out)["pods"]
    assert listed and {p["namespace"] for p in listed} == {"ml"}
    all_ns = json.loads(cli("pending", "--snapshot", DEMO, "-n", "ml", "-A", "-o", "json").out)["pods"]
    assert {p["namespace"] for p in all_ns} > {"ml"}
    workloads = json.loads(cli("drivers", "--snapshot", DEMO, "-n", "serving", "-o", "json").out)["workloads"]
    assert workloads and {w["namespace"] for w in workloads} == {"serving"}
    pods = json.loads(cli("lifecycle", "--snapshot", DEMO, "-n", "ml", "-o", "json").out)["pods"]
    assert pods and {p["namespace"] for p in pods} == {"ml"}


def test_selector_on_pods_lists_matching_pods_only(cli: Cli) -> None:
    result = cli("pending", "--snapshot", DEMO, "-l", "app.kubernetes.io/name=vllm-l40s", "-o", "json")
    names = {p["name"] for p in json.loads(result.out)["pods"]}
    assert names and all(name.startswith("vllm-l40s") for name in names)


def test_malformed_selector_is_a_usage_error(cli: Cli) -> None:
    result = cli("nodes", "--snapshot", DEMO, "-l", "a in (b")
    assert result.code == 2 and result.err.startswith("error: -l/--selector:")
