"""`kubectl gpu drivers` and `kubectl gpu nvme` end to end on snapshots: JSON contract, tables, exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
import yaml

from tests.conftest import Result
from tests.core.analyses.nvme.test_nvme import PROBED

Cli = Callable[..., Result]
SCENARIOS = Path(__file__).parents[1] / "scenarios"
DRIVERS = SCENARIOS / "drivers" / "ours__mixed-drivers-and-cuda-needs.yaml"
NVME = SCENARIOS / "nvme" / "ours__nvme-states.yaml"
DEMO = Path(__file__).parents[2] / "examples" / "automode-gpu-demo.json"


@pytest.fixture
def nvme_bundle(tmp_path: Path) -> Path:
    """The NVMe scenario with probe entries shaped like `kubectl gpu snapshot --probe` writes them."""
    bundle = yaml.safe_load(NVME.read_text())
    bundle["probes"] = {
        name: {
            "output": text,
            "strategy": "privileged",
            "image": "img",
            "error": None,
            "capturedAt": "2026-11-28T09:00:00Z",
        }
        for name, text in PROBED.items()
    }
    path = tmp_path / "bundle.json"
    path.write_bytes(orjson.dumps(bundle))
    return path


# ----------------------------------------------------------------------------------------------- drivers


def test_drivers_json_and_exit_code(cli: Cli) -> None:
    result = cli("drivers", "--snapshot", str(DRIVERS), "-o", "json")
    assert result.code == 1, result.err  # CUDA_EXCEEDS_DRIVER errors
    data = json.loads(result.out)
    assert (data["apiVersion"], data["kind"]) == ("kubectl-gpu/v1", "DriverReport")
    assert set(data) >= {"nodes", "groups", "workloads", "findings", "mayLandOnRule"}
    node = next(n for n in data["nodes"] if n["name"] == "i-new")
    assert node["ami"] == "ami-0new" and node["osImage"].startswith("Bottlerocket (EKS Auto, Nvidia)")
    assert {k: node["driver"][k] for k in ("version", "cudaMax", "source")} == {
        "version": "580.95.05",
        "cudaMax": "13.0",
        "source": "label",
    }
    codes = {(f["code"], f["severity"]) for f in data["findings"]}
    assert ("CUDA_EXCEEDS_DRIVER", "error") in codes and ("MIXED_DRIVERS_IN_NODEPOOL", "warning") in codes


def test_drivers_table(cli: Cli) -> None:
    result = cli("drivers", "--snapshot", str(DRIVERS), "--no-color")
    assert result.code == 1
    for text in (
        "NODES",
        "GROUPS (AMI / OS IMAGE)",
        "GPU WORKLOADS",
        "FINDINGS",
        "CUDA_EXCEEDS_DRIVER",
        "May land on",
    ):
        assert text in result.out
    assert "\x1b[" not in result.out
    wide = cli("drivers", "--snapshot", str(DRIVERS), "-o", "wide")
    assert "OS-IMAGE" in wide.out and "DETAIL" in wide.out


def test_drivers_exit_zero_without_errors(cli: Cli) -> None:
    result = cli("drivers", "--snapshot", str(DRIVERS), "-o", "json", "-l", "karpenter.sh/nodepool=gpu-edge")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert {n["name"] for n in data["nodes"]} == {"i-edge-ga", "i-edge-u1"}
    assert not [f for f in data["findings"] if f["severity"] == "error"]


def test_drivers_yaml(cli: Cli) -> None:
    result = cli("drivers", "--snapshot", str(DRIVERS), "-o", "yaml")
    assert yaml.safe_load(result.out)["kind"] == "DriverReport"


# ----------------------------------------------------------------------------------------------- nvme


def test_nvme_json_with_probes_and_exit_code(cli: Cli, nvme_bundle: Path) -> None:
    result = cli("nvme", "--snapshot", str(nvme_bundle), "-o", "json")
    assert result.code == 1, result.err  # NVME_DEGRADED is an error
    data = json.loads(result.out)
    assert (data["apiVersion"], data["kind"]) == ("kubectl-gpu/v1", "NvmeReport")
    states = {n["name"]: n["nvme"]["state"] for n in data["nodes"]}
    assert states["i-probed-active"] == "ACTIVE" and states["i-probed-degraded"] == "DEGRADED"
    assert set(states.values()) == {"ACTIVE", "DEGRADED", "LIKELY_ACTIVE", "NOT_USED", "NO_NVME", "UNKNOWN"}
    active = next(n for n in data["nodes"] if n["name"] == "i-probed-active")
    assert active["instanceType"] == "p5.48xlarge" and len(active["nvme"]["devices"]) == 8
    assert active["nvme"]["totalGB"] == 30400 and active["nvme"]["probed"] is True


def test_nvme_without_probes_exits_zero(cli: Cli) -> None:
    result = cli("nvme", "--snapshot", str(NVME))
    assert result.code == 0, result.err
    assert "LIKELY_ACTIVE" in result.out and "NVME_NOT_USED" in result.out


def test_nvme_all_includes_cpu_nodes(cli: Cli) -> None:
    names = {
        n["name"]
        for n in json.loads(cli("nvme", "--all", "--snapshot", str(NVME), "-o", "json").out)["nodes"]
    }
    assert "i-cpu" in names
    names = {n["name"] for n in json.loads(cli("nvme", "--snapshot", str(NVME), "-o", "json").out)["nodes"]}
    assert "i-cpu" not in names


def test_nvme_wide_shows_evidence(cli: Cli, nvme_bundle: Path) -> None:
    result = cli("nvme", "--snapshot", str(nvme_bundle), "-o", "wide")
    assert "EVIDENCE" in result.out and "md0 (raid0" in result.out


# ----------------------------------------------------------------------------------------------- both


def test_commands_are_registered(cli: Cli) -> None:
    result = cli("--help")
    assert result.code == 0 and "drivers" in result.out and "nvme" in result.out


@pytest.mark.skipif(not DEMO.exists(), reason="no demo bundle")
@pytest.mark.parametrize("command", ["drivers", "nvme"])
def test_demo_bundle_shows_findings(cli: Cli, command: str) -> None:
    result = cli(command, "--snapshot", str(DEMO), "-o", "json")
    assert result.code in (0, 1), result.err
    assert json.loads(result.out)["findings"]
