"""`kubectl gpu drivers` analysis on the scenario snapshot tests/scenarios/drivers/ (ours), plus the
driver -> CUDA edges and the probe path."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_gpu.core.analyses.drivers.analysis import (
    DriverReport,
    build_driver_report,
    is_nvidia_node,
    node_driver,
    probe_for_node,
)
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Severity
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.helpers import FIXTURES, REPO, SCENARIOS, node, pod

SCENARIO = SCENARIOS / "drivers" / "ours__mixed-drivers-and-cuda-needs.yaml"
NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
PROBE = FIXTURES / "probe"


def collector(sections: dict[str, str], run_id: str = "t0") -> str:
    """Collector output (the format of kubectl_gpu/data/collector.sh) with the given section bodies."""
    lines = [f"===KUBECTL-GPU:COLLECTOR v1 id={run_id}==="]
    for name, body in sections.items():
        lines += [f"===KUBECTL-GPU:BEGIN {name} rc=0 id={run_id}===", body.rstrip("\n")]
        lines.append(f"===KUBECTL-GPU:END {name} id={run_id}===")
    lines.append(f"===KUBECTL-GPU:DONE id={run_id}===")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def report() -> DriverReport:
    state = load_snapshot([SCENARIO])
    return build_driver_report(state, load_catalog(), NOW)


def _findings(report: DriverReport) -> dict[tuple[str, str], Any]:
    return {(f.code, f.object.name): f for f in report.findings}


def _state(*objects: dict[str, Any]) -> ClusterState:
    models, _ = parse_objects(objects)
    state = ClusterState.of(models)
    return state


# ----------------------------------------------------------------------------------------------- nodes


def test_nodes_sources_and_ceilings(report: DriverReport) -> None:
    rows = {n.name: n for n in report.nodes}
    assert "i-cpu" not in rows  # CPU nodes are not listed
    assert (rows["i-old"].version, rows["i-old"].cuda_max, rows["i-old"].source) == (
        "570.172.08",
        "12.8",
        "label",
    )
    assert (rows["i-new"].version, rows["i-new"].cuda_max, rows["i-new"].minor_compat) == (
        "580.95.05",
        "13.0",
        "13.x",
    )
    assert (rows["i-535"].cuda_max, rows["i-535"].minor_compat) == ("12.2", "12.x")
    unknown = rows["i-unknown"]
    assert (unknown.version, unknown.cuda_max, unknown.source) == (None, None, "unknown")
    assert "do not map to upstream Bottlerocket" in unknown.detail
    inferred = rows["i-upstream"]
    assert (inferred.version, inferred.source, inferred.cuda_max) == ("535.216.01", "inferred", "12.2")
    assert "1.26.1" in inferred.detail
    assert rows["i-old"].ami == "ami-0old" and rows["i-upstream"].ami is None


def test_groups_by_ami_and_os_image(report: DriverReport) -> None:
    groups = {(g.ami, g.os_image): g for g in report.groups}
    new = groups[("ami-0new", "Bottlerocket (EKS Auto, Nvidia) 2026.11.20 (aws-k8s-1.34-nvidia)")]
    assert new.nodes == ("i-new", "i-unknown") and new.node_pools == ("gpu-inference", "gpu-training")
    assert sorted(new.drivers, key=str) == sorted(
        [("580.95.05", "13.0", "label", 1), (None, None, "unknown", 1)], key=str
    )
    # Same AMI id, different OS image: two groups.
    assert sum(1 for g in report.groups if g.ami == "ami-0old") == 2


def test_mixed_drivers_in_nodepool(report: DriverReport) -> None:
    found = _findings(report)
    mixed = found[("MIXED_DRIVERS_IN_NODEPOOL", "gpu-inference")]
    assert mixed.severity is Severity.WARNING and mixed.object.kind == "NodePool"
    assert "570.172.08 (CUDA 12.8, ami-0old; label) on i-old" in mixed.message
    assert "580.95.05 (CUDA 13.0, ami-0new; label) on i-new" in mixed.message
    # Same CUDA ceiling, different drivers: still mixed (12.8 GA vs 12.8 Update 1 matters).
    assert ("MIXED_DRIVERS_IN_NODEPOOL", "gpu-edge") in found
    assert ("MIXED_DRIVERS_IN_NODEPOOL", "gpu-legacy") not in found


def test_driver_unknown_and_inferred(report: DriverReport) -> None:
    found = _findings(report)
    unknown = found[("DRIVER_UNKNOWN", "i-unknown")]
    assert unknown.severity is Severity.INFO and "snapshot --probe" in (unknown.fix or "")
    assert found[("DRIVER_INFERRED", "i-upstream")].severity is Severity.INFO
    assert not [k for k in found if k[0] == "DRIVER_UNKNOWN" and k[1] != "i-unknown"]


# ----------------------------------------------------------------------------------------------- workloads


def test_workload_identity_and_candidates(report: DriverReport) -> None:
    w = {x.name: x for x in report.workloads}
    assert "web" not in w  # no GPU request
    cuda13 = w["cuda13"]
    assert (cuda13.kind, cuda13.namespace, cuda13.pods) == (
        "Deployment",
        "serving",
        ("cuda13-7c9d8b6f4-x2k4p",),
    )
    assert cuda13.runs_on == ("i-new",) and cuda13.may_land_on == ("i-old",)  # pinned to gpu-inference
    assert w["trainer"].kind == "StatefulSet"
    # Tolerates the GPU taint, no pool pin: every tolerated NVIDIA node with nvidia.com/gpu.
    assert w["pending-cuda124"].may_land_on == (
        "i-535",
        "i-edge-ga",
        "i-edge-u1",
        "i-new",
        "i-old",
        "i-unknown",
    )
    # No toleration: only the untainted pool.
    assert w["pending-untolerated"].may_land_on == ("i-535",)
    assert w["on-inferred"].may_land_on == ()  # pinned to its pool, alone there


def test_cuda_exceeds_driver_runs_on_and_may_land_on(report: DriverReport) -> None:
    found = _findings(report)
    runs = found[("CUDA_EXCEEDS_DRIVER", "trainer")]
    assert runs.severity is Severity.ERROR
    assert "runs on i-old (driver 570.172.08, CUDA <= 12.8)" in runs.message
    assert "NGC PyTorch 25.10" in runs.message
    may = found[("CUDA_EXCEEDS_DRIVER", "cuda13")]
    assert may.severity is Severity.ERROR and may.object.kind == "Deployment"
    assert "may land on i-old" in may.message and "i-new" not in may.message
    assert "i-new" in (may.fix or "")  # where it does fit
    assert report.exit_code() == 1


def test_weak_evidence_is_a_warning(report: DriverReport) -> None:
    found = _findings(report)
    assert found[("CUDA_EXCEEDS_DRIVER", "heuristic")].severity is Severity.WARNING  # tag fragment
    inferred = found[("CUDA_EXCEEDS_DRIVER", "on-inferred")]
    assert inferred.severity is Severity.WARNING and "(inferred)" in inferred.message


def test_minor_version_compatibility(report: DriverReport) -> None:
    found = _findings(report)
    declared = found[("CUDA_MINOR_COMPAT_ONLY", "declared")]
    assert declared.severity is Severity.WARNING and "declared" in declared.message
    # 12.8.1 (Triton 25.03 TRT-LLM) on 570.26 (CUDA 12.8 GA): minor-compat; on 570.124.06: full.
    triton = {c.node: c.level for c in next(w for w in report.workloads if w.name == "triton").checks}
    assert triton == {"i-edge-u1": "full", "i-edge-ga": "minor-compat"}
    assert "i-edge-ga" in found[("CUDA_MINOR_COMPAT_ONLY", "triton")].message


def test_unchecked_and_redacted(report: DriverReport) -> None:
    found = _findings(report)
    assert "i-unknown (driver unknown)" in found[("CUDA_UNCHECKED", "on-unknown")].message
    redacted = found[("CUDA_NEED_REDACTED", "redacted")]
    assert redacted.severity is Severity.INFO and "redacted" in redacted.message
    w = next(x for x in report.workloads if x.name == "redacted")
    assert w.cuda.need is None and w.checks == ()


def test_every_finding_code_is_documented_and_sourced(report: DriverReport) -> None:
    codes = {f.code for f in report.findings}
    assert codes == {
        "MIXED_DRIVERS_IN_NODEPOOL",
        "CUDA_EXCEEDS_DRIVER",
        "CUDA_MINOR_COMPAT_ONLY",
        "CUDA_UNCHECKED",
        "CUDA_NEED_REDACTED",
        "DRIVER_UNKNOWN",
        "DRIVER_INFERRED",
    }
    assert all(f.source == "drivers" for f in report.findings)
    codes_page = (REPO / "docs" / "codes.md").read_text()
    for code in codes:
        assert f"`{code}`" in codes_page, code
    worst = [f.severity for f in report.findings]
    assert worst == sorted(worst, key=lambda s: -s.rank)


def test_json_shape(report: DriverReport) -> None:
    data = report.to_dict()
    assert data["apiVersion"] == "kubectl-gpu/v1" and data["kind"] == "DriverReport"
    n = next(x for x in data["nodes"] if x["name"] == "i-old")
    assert {"name", "ami", "osImage", "driver"} <= set(n)
    assert {"version": "570.172.08", "cudaMax": "12.8", "source": "label"}.items() <= n["driver"].items()
    assert {"ami", "osImage", "nodeCount", "drivers"} <= set(data["groups"][0])
    w = next(x for x in data["workloads"] if x["name"] == "trainer")
    assert w["cuda"]["version"] == "13.0.2" and w["cuda"]["confidence"] == "release-table"
    assert w["checks"][0]["compat"] == "no"
    assert {"code", "severity", "object", "message", "fix", "source"} == set(data["findings"][0])


# ----------------------------------------------------------------------------------------------- edges


@pytest.mark.parametrize(
    ("driver", "need", "level"),
    [
        ("570.124.06", "12.8.1", "full"),  # 12.8 Update 1 needs exactly 570.124.06
        ("570.124.04", "12.8.1", "minor-compat"),  # just below: 12.8 GA only, 12.x family
        ("570.26", "12.8", "full"),  # 12.8 GA
        ("570.26", "12.8.1", "minor-compat"),
        ("570.86.10", "12.8.0", "full"),
        ("570.195.03", "13.0", "no"),  # 13.x needs >= 580
        ("580.65.06", "13.0", "full"),
        ("580.65.06", "13.0.2", "minor-compat"),  # 13.0 U2 needs 580.95.05
        ("580.95.05", "13.0.2", "full"),
        ("580.126.09", "13.1", "minor-compat"),
        ("535.230.02", "12.2.2", "full"),
        ("535.230.02", "12.8", "minor-compat"),
        ("535.230.02", "13.0", "no"),
        ("520.61.05", "12.0", "no"),  # 12.x minor compat needs >= 525
        ("470.82.01", "11.4.3", "full"),
        ("595.71.05", "13.2", "full"),
        ("610.57.04", "13.4", "minor-compat"),  # past the table, 13.x family
    ],
)
def test_driver_cuda_edges(driver: str, need: str, level: str) -> None:
    labels = {"node.kubernetes.io/instance-type": "g6e.xlarge", "nvidia.com/cuda.driver-version.full": driver}
    state = _state(
        node("n", labels=labels, capacity={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}),
        pod("p", node_name="n", requests={"nvidia.com/gpu": "1"}, annotations={"kubectl-gpu.io/cuda": need}),
    )
    report = build_driver_report(state, load_catalog(), NOW)
    (check,) = report.workloads[0].checks
    assert check.level == level, check.reason
    assert (report.exit_code() == 1) is (level == "no")


def test_malformed_driver_label_is_not_a_crash() -> None:
    labels = {"node.kubernetes.io/instance-type": "g6e.xlarge", "nvidia.com/cuda.driver-version.full": "r570"}
    state = _state(node("n", labels=labels, capacity={"cpu": "4", "nvidia.com/gpu": "1"}))
    row = node_driver(state.nodes[0], state, load_catalog())
    assert (row.version, row.cuda_max) == ("r570", None)


# ----------------------------------------------------------------------------------------------- probes


def _probe_state(entry: Any, labels: dict[str, str] | None = None) -> ClusterState:
    state = _state(
        node(
            "n",
            labels={"node.kubernetes.io/instance-type": "p5.48xlarge", **(labels or {})},
            capacity={"cpu": "192", "nvidia.com/gpu": "8"},
        )
    )
    state.probes["n"] = entry
    return state


def test_probe_driver_from_snapshot_probe_entry() -> None:
    text = collector(
        {
            "driver-version": (
                PROBE / "ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt"
            ).read_text()
        }
    )
    entry = {
        "output": text,
        "strategy": "privileged",
        "image": "x",
        "error": None,
        "capturedAt": "2026-11-28T09:00:00Z",
    }
    state = _probe_state(entry, {"nvidia.com/cuda.driver-version.full": "535.104.05"})
    row = node_driver(state.nodes[0], state, load_catalog())
    assert (row.version, row.source, row.cuda_max) == ("535.161.08", "probe", "12.2")
    assert "535.104.05" in row.detail  # the stale label is mentioned


@pytest.mark.parametrize(
    "entry",
    [
        {"output": None, "error": "node n: pod did not start"},
        {"output": "garbage that is neither a collector output, XML nor CSV"},
        "",
        42,
    ],
)
def test_unusable_probe_entries_count_as_no_probe(entry: Any) -> None:
    state = _probe_state(entry)
    assert probe_for_node(state, "n") is None
    assert node_driver(state.nodes[0], state, load_catalog()).source == "unknown"


def test_saved_xml_is_accepted_and_570_124_04_is_below_12_8_update_1() -> None:
    # Real `nvidia-smi -q -x` (telegraf testdata): driver 570.124.04, two builds below 570.124.06 (12.8 U1).
    xml = (PROBE / "nvidia-smi" / "xml" / "telegraf__rtx-3060__570.124.04__v12.xml").read_text()
    state = _state(
        node(
            "n", labels={"node.kubernetes.io/instance-type": "g6e.xlarge"}, capacity={"nvidia.com/gpu": "1"}
        ),
        pod(
            "p", node_name="n", requests={"nvidia.com/gpu": "1"}, image="nvidia/cuda:12.8.1-base-ubuntu24.04"
        ),
    )
    state.probes["n"] = {"output": xml}
    report = build_driver_report(state, load_catalog(), NOW)
    (row,) = report.nodes
    assert (row.version, row.source, row.cuda_max) == ("570.124.04", "probe", "12.8")
    (check,) = report.workloads[0].checks
    assert check.level == "minor-compat"


def test_a_probe_makes_a_node_an_nvidia_node() -> None:
    state = _state(node("n", labels={"node.kubernetes.io/instance-type": "m7i.large"}))
    text = collector(
        {
            "driver-version": (
                PROBE / "ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt"
            ).read_text()
        }
    )
    assert not is_nvidia_node(state.nodes[0], load_catalog())
    state.probes["n"] = {"output": text}
    assert is_nvidia_node(state.nodes[0], load_catalog(), probe_for_node(state, "n"))
