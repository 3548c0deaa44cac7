"""`kubectl gpu nodes` end to end on snapshots: the JSON contract, the table, options and errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from kubectl_gpu.core.catalog import load_catalog
from tests.conftest import Result
from tests.helpers import as_list, node, pod

Cli = Callable[..., Result]


def _gpu_node(name: str, itype: str, pool: str, **kw: Any) -> dict[str, Any]:
    catalog = load_catalog()
    labels = dict(catalog.labels(itype, "auto"))
    labels.update({"karpenter.sh/nodepool": pool, "karpenter.sh/capacity-type": "on-demand"})
    labels.update(kw.pop("extra_labels", {}))
    spec = catalog.by_name(itype)
    assert spec is not None
    gpus = str(spec.accelerator_count)
    return node(
        name, labels=labels, capacity={"cpu": str(spec.vcpu), "memory": "64Gi", "nvidia.com/gpu": gpus}, **kw
    )


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    objects = [
        _gpu_node(
            "i-0aaa",
            "g6e.12xlarge",
            "gpu-inference",
            conditions=[
                {"type": "Ready", "status": "True"},
                {"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaXID79"},
                {"type": "MemoryPressure", "status": "False"},
            ],
        ),
        _gpu_node(
            "i-0bbb",
            "p5.48xlarge",
            "gpu-training",
            extra_labels={"nvidia.com/cuda.driver-version.full": "570.124.06"},
        ),
        node("i-0ccc", labels={"node.kubernetes.io/instance-type": "c6a.large"}),
        pod("serve-1", "serving", node_name="i-0aaa", requests={"nvidia.com/gpu": "1"}),
        pod("done-1", "serving", node_name="i-0aaa", requests={"nvidia.com/gpu": "2"}, phase="Succeeded"),
        pod("train-1", "ml", node_name="i-0bbb", requests={"nvidia.com/gpu": "8"}),
    ]
    path = tmp_path / "cluster.json"
    path.write_bytes(orjson.dumps(as_list(*objects)))
    return path


def test_json_contract(cli: Cli, cluster: Path) -> None:
    result = cli("nodes", "--snapshot", str(cluster), "-o", "json", "--now", "2026-11-29T00:00:00Z")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["apiVersion"] == "kubectl-gpu/v1" and report["kind"] == "NodeReport"
    rows = {n["name"]: n for n in report["nodes"]}
    assert set(rows) == {"i-0aaa", "i-0bbb"}  # the CPU node is not a GPU node
    l40s = rows["i-0aaa"]
    for key in (
        "name",
        "instanceType",
        "computeType",
        "nodePool",
        "accelerator",
        "driver",
        "osImage",
        "createdAt",
        "conditions",
    ):
        assert key in l40s
    assert l40s["accelerator"] == {
        "resource": "nvidia.com/gpu",
        "model": "l40s",
        "capacity": 4,
        "allocatable": 4,
        "requested": 1,  # the Succeeded pod does not count
        "free": 3,
        "memoryMiB": 45776,
        "source": "device-plugin",
    }
    assert l40s["computeType"] == "auto" and l40s["nodePool"] == "gpu-inference"
    assert l40s["driver"] == {"version": None, "cudaMax": None, "source": "unknown"}
    health = {c["type"]: c["healthy"] for c in l40s["conditions"]}
    assert health == {"Ready": True, "AcceleratedHardwareReady": False, "MemoryPressure": True}
    h100 = rows["i-0bbb"]
    assert h100["accelerator"]["model"] == "h100" and h100["accelerator"]["free"] == 0
    assert h100["driver"] == {"version": "570.124.06", "cudaMax": "12.8", "source": "label"}


def test_all_includes_cpu_nodes(cli: Cli, cluster: Path) -> None:
    report = json.loads(cli("nodes", "--all", "--snapshot", str(cluster), "-o", "json").out)
    assert {n["name"] for n in report["nodes"]} == {"i-0aaa", "i-0bbb", "i-0ccc"}


def test_global_options_before_or_after_the_subcommand(cli: Cli, cluster: Path) -> None:
    before = cli("--snapshot", str(cluster), "-o", "json", "nodes")
    after = cli("nodes", "--snapshot", str(cluster), "-o", "json")
    mixed = cli("-o", "yaml", "nodes", "--snapshot", str(cluster), "-o", "json")
    assert before.code == after.code == mixed.code == 0
    assert before.out == after.out == mixed.out  # the later -o wins


def test_selector_filters_snapshot_nodes(cli: Cli, cluster: Path) -> None:
    report = json.loads(
        cli("nodes", "--snapshot", str(cluster), "-o", "json", "-l", "karpenter.sh/nodepool=gpu-training").out
    )
    assert [n["name"] for n in report["nodes"]] == ["i-0bbb"]


def test_table_has_no_colour_codes_when_not_a_tty(cli: Cli, cluster: Path) -> None:
    result = cli("nodes", "--snapshot", str(cluster), "-o", "wide")
    assert result.code == 0
    assert "\x1b[" not in result.out
    header = result.out.splitlines()[0].split()
    assert header[:4] == ["NAME", "INSTANCE", "COMPUTE", "NODEPOOL"]
    assert "AcceleratedHardwareReady" in result.out
    assert "570.124.06 (CUDA 12.8)" in result.out


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("nodes", "--snapshot", "/nonexistent.json"), 2, "no such file"),
        (("nodes", "--bogus"), 2, "No such option"),
        (("nodes", "-o", "xml"), 2, "xml"),
        (("nodes", "--request-timeout", "soon", "--context", "x"), 2, "--request-timeout"),
    ],
)
def test_errors_are_one_line_with_documented_codes(
    cli: Cli, args: tuple[str, ...], code: int, needle: str
) -> None:
    result = cli(*args)
    assert result.code == code
    assert needle in result.err
    assert "Traceback" not in result.err


def test_bad_now_is_usage_error(cli: Cli, cluster: Path) -> None:
    result = cli("nodes", "--snapshot", str(cluster), "--now", "yesterday")
    assert (
        result.code == 2 and "--now" in result.err and result.err[-1] == "\n" and result.err.count("\n") == 1
    )


def test_truncated_snapshot(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "cut.json"
    bad.write_text('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node"')
    result = cli("nodes", "--snapshot", str(bad))
    assert result.code == 2
    assert result.err.startswith("error: ") and str(bad) in result.err and result.err.count("\n") == 1


def test_driver_from_a_stored_probe_beats_the_label(cli: Cli, tmp_path: Path) -> None:
    """`snapshot --probe` stores collector output per node; nodes then reports the driver it read."""
    from datetime import UTC, datetime

    from kubectl_gpu.kube.snapshot import build_bundle, write_bundle

    xml = (
        Path(__file__).resolve().parents[1]
        / "fixtures/probe/nvidia-smi/xml/telegraf__rtx-3060__570.124.04__v12.xml"
    )
    gpu = _gpu_node(
        "i-0bbb",
        "p5.48xlarge",
        "gpu-training",
        extra_labels={"nvidia.com/cuda.driver-version.full": "550.54.15"},
    )
    bundle = build_bundle(
        [gpu],
        captured_at=datetime(2026, 11, 28, 9, tzinfo=UTC),
        context="test",
        notes=[],
        absent=[],
        probes={"i-0bbb": {"output": xml.read_text(), "strategy": "privileged-all"}},
    )
    write_bundle(bundle, tmp_path / "b.json")
    report = json.loads(cli("nodes", "--snapshot", str(tmp_path / "b.json"), "-o", "json").out)
    assert report["nodes"][0]["driver"] == {"version": "570.124.04", "cudaMax": "12.8", "source": "probe"}
