"""`kubectl gpu usage --sample` end to end: the suite's API server and simulated kubelet run the debug pod
on the node no DCGM exporter covers; the collector's output is the smi source; no pod is left behind."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import kubectl_gpu.kube.usage.window as window_module
from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

Cli = Callable[..., Result]


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("KUBECTL_GPU_IMAGE", "KUBECTL_GPU_NEURON_IMAGE", "KUBECTL_GPU_KUBECTL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(window_module, "pause", lambda seconds: None)  # the rounds follow each other


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[FakeKubeAPI, Path]]:
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02):
        api.add(gpu_node("i-0aaa"))
        yield api, write_kubeconfig(tmp_path / "kubeconfig", api.url)
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


def test_sample_runs_the_collector_and_says_it_creates_pods(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path]
) -> None:
    api, kubeconfig = cluster
    result = cli("usage", "--sample", "--window", "1s", "-o", "json", "--kubeconfig", str(kubeconfig))
    assert "--sample: creating a debug pod on 1 node(s) in namespace default" in result.err
    created = [r for r in api.requests if r.method == "POST" and r.path.endswith("/pods")]
    assert len(created) == 2  # one pod a round, two rounds over the window
    report = json.loads(result.out)
    (node,) = report["nodes"]
    assert (node["name"], node["source"]) == ("i-0aaa", "smi")
    assert {g["source"] for g in report["gpus"]} == {"smi"} and all(g["samples"] == 2 for g in report["gpus"])


def test_without_sample_no_pod_is_created(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    api, kubeconfig = cluster
    cli("usage", "--window", "1s", "-o", "json", "--kubeconfig", str(kubeconfig))
    assert not [r for r in api.requests if r.method == "POST" and r.path.endswith("/pods")]


def _write_config(tmp_path: Path, text: str) -> None:
    config = tmp_path / "xdg" / "kubectl-gpu" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


def _no_request(api: FakeKubeAPI) -> None:
    assert not api.requests  # refused before anything is read, and no pod created


def test_readonly_flag_refuses_sample(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    api, kubeconfig = cluster
    result = cli("usage", "--sample", "--readonly", "--window", "1s", "--kubeconfig", str(kubeconfig))
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        "error: --sample creates debug pods and read-only mode is on (--readonly); drop --sample"
    ]
    _no_request(api)


def test_config_readonly_refuses_sample_and_smi(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path], tmp_path: Path
) -> None:
    api, kubeconfig = cluster
    _write_config(tmp_path, "readonly: true\n")
    result = cli("usage", "--sample", "--window", "1s", "--kubeconfig", str(kubeconfig))
    assert result.code == 2
    assert "read-only mode is on (readonly: true in " in result.err and "config.yaml)" in result.err
    smi = cli("smi", "i-0aaa", "--kubeconfig", str(kubeconfig))
    assert smi.code == 2 and "smi creates debug pods and read-only mode is on" in smi.err
    _no_request(api)


def test_readonly_without_sample_reads_as_usual(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path], tmp_path: Path
) -> None:
    api, kubeconfig = cluster
    _write_config(tmp_path, "readonly: true\n")
    result = cli("usage", "--readonly", "--window", "1s", "-o", "json", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert json.loads(result.out)["nodes"]
    assert not [r for r in api.requests if r.method == "POST"]


def test_config_readonly_must_be_a_bool(cli: Cli, cluster: tuple[FakeKubeAPI, Path], tmp_path: Path) -> None:
    _, kubeconfig = cluster
    _write_config(tmp_path, "readonly: yes please\n")
    result = cli("usage", "--sample", "--window", "1s", "--kubeconfig", str(kubeconfig))
    assert result.code == 2 and "readonly: expected true or false, not 'yes please'" in result.err
