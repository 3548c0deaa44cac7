"""The usage analysis on plain data: attribution, idle spend, $ per 1M tokens, unknown stays unknown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from kubectl_gpu.core.analyses import usage
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage import Scrape, ScrapeSet
from tests.helpers import node, pod

CATALOG = load_catalog()
T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
LATER = T0 + timedelta(seconds=60)


def _node(name: str, itype: str, gpus: int) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": itype, "topology.kubernetes.io/region": "us-east-1"}
    return node(name, labels=labels, capacity={"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": str(gpus)})


def _pod(
    name: str, node_name: str, gpus: int, ns: str = "ml", owner: tuple[str, str] | None = None
) -> dict[str, Any]:
    obj = pod(name, ns, node_name=node_name, requests={"nvidia.com/gpu": str(gpus)})
    if owner:
        obj["metadata"]["ownerReferences"] = [{"kind": owner[0], "name": owner[1], "apiVersion": "apps/v1"}]
        obj["metadata"]["labels"]["pod-template-hash"] = "abc12"
    return obj


def _state(*objs: dict[str, Any]) -> ClusterState:
    return ClusterState.of(parse_object(o) for o in objs)


def _dcgm(node_name: str, at: datetime, lines: str) -> Scrape:
    return Scrape("dcgm", "gpu-operator", f"exporter-{node_name}", at, node=node_name, text=lines)


def _util(gpu: int, value: float, pod_name: str = "", ns: str = "") -> str:
    labels = f'gpu="{gpu}",UUID="GPU-{gpu}",modelName="NVIDIA A10G",pod="{pod_name}",namespace="{ns}"'
    return f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {value}\nDCGM_FI_DEV_FB_USED{{{labels}}} 2048\nDCGM_FI_DEV_FB_FREE{{{labels}}} 20000\n"


def _run(state: ClusterState, *scrapes: Scrape, **kw: Any) -> usage.UsageReport:
    return usage.analyse(state, CATALOG, T0, scrapes=ScrapeSet(60, tuple(scrapes)), **kw)


def test_attributed_idle_and_busy_pods() -> None:
    state = _state(
        _node("n1", "g5.12xlarge", 4),
        _pod("idle-abc12-x", "n1", 2, owner=("ReplicaSet", "idle-abc12")),
        _pod("busy", "n1", 2),
    )
    text = (
        _util(0, 2, "idle-abc12-x", "ml")
        + _util(1, 4, "idle-abc12-x", "ml")
        + _util(2, 90, "busy", "ml")
        + _util(3, 70, "busy", "ml")
    )
    report = _run(state, _dcgm("n1", T0, text), _dcgm("n1", LATER, text))
    pods = {p.name: p for p in report.pods}
    assert (pods["idle-abc12-x"].util_percent, pods["idle-abc12-x"].idle) == (3.0, True)
    assert (pods["busy"].util_percent, pods["busy"].idle) == (80.0, False)
    price = Decimal(str(CATALOG.by_name("g5.12xlarge").price_usd_per_hour))  # type: ignore[union-attr]
    assert pods["idle-abc12-x"].idle_cost_per_hour == price / 2
    assert report.totals.idle_held_cost == price / 2
    assert [f.code for f in report.findings] == ["USAGE_IDLE_GPUS"]
    assert "scale deployment/idle down" in (report.findings[0].fix or "")
    workloads = {str(w.workload): w for w in report.workloads}
    assert workloads["ml/deployment/idle"].idle_gpus == 2
    assert report.exit_code() == ExitCode.OK


def test_no_exporter_is_unknown_never_idle() -> None:
    state = _state(_node("n1", "g5.xlarge", 1), _pod("p", "n1", 1))
    report = usage.analyse(
        state, CATALOG, T0, scrapes=ScrapeSet(60, (), notes=("no DCGM exporter found", "--sample not given"))
    )
    (p,) = report.pods
    assert (p.util_percent, p.idle, p.source, p.idle_cost_per_hour) == (None, None, "allocation-only", None)
    assert report.nodes[0].state == "unknown" and report.nodes[0].idle_cost_per_hour is None
    assert report.notes == ("utilisation unknown: no DCGM exporter found, --sample not given",)
    assert not report.findings
    assert report.to_dict()["totals"]["idleHeldCostPerHour"] == 0.0
    assert report.to_dict()["totals"]["gpusMeasured"] == 0


def test_unattributed_gpus_of_one_pod_holding_the_node() -> None:
    state = _state(_node("n1", "g5.xlarge", 1), _pod("p", "n1", 1))
    report = _run(state, _dcgm("n1", T0, _util(0, 1)), _dcgm("n1", LATER, _util(0, 3)))
    (p,) = report.pods
    assert (p.util_percent, p.attribution, p.idle) == (2.0, "allocation", True)


def test_unattributed_shared_node_is_an_upper_bound_only_when_all_are_low() -> None:
    state = _state(_node("n1", "g5.12xlarge", 4), _pod("a", "n1", 2), _pod("b", "n1", 2))
    low = "".join(_util(i, 5) for i in range(4))
    report = _run(state, _dcgm("n1", T0, low), _dcgm("n1", LATER, low))
    assert {(p.name, p.attribution, p.idle) for p in report.pods} == {
        ("a", "node-max", True),
        ("b", "node-max", True),
    }
    mixed = _util(0, 5) + _util(1, 95) + _util(2, 5) + _util(3, 5)
    report = _run(state, _dcgm("n1", T0, mixed))
    assert {(p.name, p.util_percent, p.idle) for p in report.pods} == {("a", None, None), ("b", None, None)}


def test_empty_node_is_idle_spend() -> None:
    report = _run(_state(_node("n1", "g5.12xlarge", 4)))
    price = Decimal(str(CATALOG.by_name("g5.12xlarge").price_usd_per_hour))  # type: ignore[union-attr]
    assert report.nodes[0].state == "empty"
    assert report.totals.empty_node_cost == price
    assert [f.code for f in report.findings] == ["USAGE_EMPTY_GPU_NODE"]


def _vllm(at: datetime, tokens: float, pod_name: str = "vllm-abc12-1") -> Scrape:
    text = f'vllm:generation_tokens_total{{model_name="m"}} {tokens}\nvllm:prompt_tokens_total{{model_name="m"}} {tokens * 2}\n'
    return Scrape("inference", "serving", pod_name, at, node="n1", text=text, server="vllm")


def test_dollars_per_million_tokens_per_deployment() -> None:
    state = _state(
        _node("n1", "g5.12xlarge", 4),
        _pod("vllm-abc12-1", "n1", 1, "serving", ("ReplicaSet", "vllm-abc12")),
        _pod("vllm-abc12-2", "n1", 1, "serving", ("ReplicaSet", "vllm-abc12")),
    )
    reads = [_vllm(T0, 0, p) for p in ("vllm-abc12-1", "vllm-abc12-2")] + [
        _vllm(LATER, 600, p) for p in ("vllm-abc12-1", "vllm-abc12-2")
    ]
    report = _run(state, *reads)
    (row,) = report.inference
    assert (row.server, row.status, row.output_tokens_per_s, row.prompt_tokens_per_s) == (
        "vllm",
        "ok",
        20.0,
        40.0,
    )
    price = Decimal(str(CATALOG.by_name("g5.12xlarge").price_usd_per_hour))  # type: ignore[union-attr]
    assert row.cost_per_hour == price / 2  # 2 of the node's 4 GPUs
    assert row.usd_per_million_output_tokens == pytest.approx(price / 2 / Decimal(20 * 3600) * 1_000_000)


def test_one_sample_is_rate_unknown_and_failures_are_listed() -> None:
    state = _state(
        _node("n1", "g5.xlarge", 1), _pod("vllm-abc12-1", "n1", 1, "serving", ("ReplicaSet", "vllm-abc12"))
    )
    failed = Scrape("dcgm", "gpu-operator", "exp", T0, node="n1", error="timed out after 5s")
    report = _run(state, _vllm(T0, 5), failed)
    (row,) = report.inference
    assert (row.status, row.output_tokens_per_s, row.usd_per_million_output_tokens) == (
        "rate-unknown",
        None,
        None,
    )
    assert [f.code for f in report.findings] == ["USAGE_READ_FAILED"]
    assert report.exit_code() == ExitCode.OK


def test_forbidden_read_is_could_not_look() -> None:
    state = _state(_node("n1", "g5.xlarge", 1))
    refused = Scrape(
        "dcgm", "gpu-operator", "exp", T0, node="n1", error="forbidden: pods/proxy", forbidden=True
    )
    report = _run(state, refused)
    assert report.could_not_look == ("dcgm gpu-operator/exp: forbidden: pods/proxy",)
    assert report.exit_code() == ExitCode.INCOMPLETE


def test_idle_below_threshold_flag() -> None:
    state = _state(_node("n1", "g5.xlarge", 1), _pod("p", "n1", 1))
    scrape = _dcgm("n1", T0, _util(0, 30))
    assert _run(state, scrape).pods[0].idle is False
    assert _run(state, scrape, idle_below=50).pods[0].idle is True


def test_a_server_without_token_counter_says_so() -> None:
    from pathlib import Path

    text = (
        Path(__file__).resolve().parents[3]
        / "fixtures/metrics/triton/tensorrtllm-backend-readme__inflight-batcher.txt"
    ).read_text()
    state = _state(_node("n1", "g5.xlarge", 1), _pod("trt-0", "n1", 1, "serving", ("StatefulSet", "trt")))
    read = Scrape("inference", "serving", "trt-0", T0, node="n1", text=text)
    (row,) = _run(state, read).inference
    assert (row.server, row.status, row.usd_per_million_output_tokens) == ("trtllm", "no-token-counter", None)
    assert [f.code for f in _run(state, read).findings] == ["USAGE_SERVER_UNRECOGNISED"]


def test_sampled_nvidia_smi_is_the_smi_source() -> None:
    """A saved `nvidia-smi -q -x` (tests/fixtures/probe, real) as an `smi` scrape: two RTX A5000 at 0%."""
    from pathlib import Path

    probe = (
        Path(__file__).resolve().parents[3]
        / "fixtures/probe/nvidia-smi/xml/telegraf__2x-rtx-a5000__590.44.01__v13.xml"
    )
    state = _state(_node("n1", "g5.12xlarge", 2), _pod("p", "n1", 2))
    read = Scrape("smi", "kubectl-gpu", "gpu-debug-n1-abc", T0, node="n1", text=probe.read_text())
    report = _run(state, read)
    assert [(g.source, g.model, g.util_percent, g.memory_used_mib) for g in report.gpus] == [
        ("smi", "NVIDIA RTX A5000", 0.0, 22437.0),
        ("smi", "NVIDIA RTX A5000", 0.0, 17253.0),
    ]
    (p,) = report.pods
    assert (p.source, p.attribution, p.idle) == ("smi", "allocation", True)
    dcgm = _dcgm("n1", T0, _util(0, 80) + _util(1, 90))
    assert {g.source for g in _run(state, read, dcgm).gpus} == {"dcgm"}  # the better source wins
