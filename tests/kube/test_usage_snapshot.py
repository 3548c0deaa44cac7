"""`kubectl gpu snapshot --usage-window` against the suite's API server: the window is read through the pod
proxy and saved under the bundle's `usage` key, redacted as the rest of the bundle (kube/usage/saved.py),
and read back by the snapshot source as `ClusterState.scrapes`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

import kubectl_gpu.kube.usage.window as window_module
from kubectl_gpu.kube.snapshot import load_snapshot
from kubectl_gpu.kube.usage.saved import UNKNOWN_SERVER_REDACTED
from tests.conftest import Result
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.test_usage_collect import DCGM_TEXT, VLLM_TEXT, Waits, _exporter, _vllm

Cli = Callable[..., Result]


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    recorded = Waits()
    monkeypatch.setattr(window_module, "pause", recorded)
    return recorded


def _cluster(api: FakeKubeAPI) -> None:
    unknown = pod("custom-0", "inference", node_name="gpu-1", image="example/server:1",
                  requests={"nvidia.com/gpu": "1"})  # fmt: skip
    unknown["spec"]["containers"][0]["ports"] = [{"name": "metrics", "containerPort": 9090}]
    api.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"), _vllm("llama-0", "gpu-1"), unknown)
    api.pod_proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    api.pod_proxy.serve("inference", "llama-0", 8000, VLLM_TEXT)
    api.pod_proxy.serve("inference", "custom-0", 9090, "my_secret_gauge 1\n")


def test_the_window_is_saved_and_read_back(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, waits: Waits
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    result = cli("snapshot", "--out", str(bundle), "--usage-window", "5m", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert "reading /metrics of 3 pods twice over 300s (--usage-window)" in result.err
    (waited,) = waits  # one wait, to the second reads: 300 s after the first reads started, less their time
    assert 0 < waited <= 300.0
    saved = orjson.loads(bundle.read_bytes())
    assert list(saved)[-1] == "objects"  # the usage key comes before the objects (bundle_stream)
    assert saved["usage"]["windowSeconds"] == 300 and saved["usage"]["looked"] is True
    by_pod = {(s["pod"], s["takenAt"]): s for s in saved["usage"]["scrapes"]}
    assert len(by_pod) == 6
    texts = {s["pod"]: s for s in saved["usage"]["scrapes"]}
    assert texts["nvidia-dcgm-exporter-a"]["text"] == DCGM_TEXT
    assert texts["llama-0"]["server"] == "vllm"
    assert texts["custom-0"]["text"] is None and texts["custom-0"]["error"] == UNKNOWN_SERVER_REDACTED
    state = load_snapshot((str(bundle),))
    assert state.scrapes is not None and len(state.scrapes.scrapes) == 6


def test_no_redact_keeps_every_text(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, waits: Waits
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    args = ("snapshot", "--out", str(bundle), "--usage-window", "1m", "--no-redact")
    assert cli(*args, "--kubeconfig", str(kubeconfig)).code == 0
    texts = {s["pod"]: s["text"] for s in orjson.loads(bundle.read_bytes())["usage"]["scrapes"]}
    assert texts["custom-0"] == "my_secret_gauge 1\n"


def test_without_the_flag_there_is_no_usage_key(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    assert cli("snapshot", "--out", str(bundle), "--kubeconfig", str(kubeconfig)).code == 0
    assert "usage" not in orjson.loads(bundle.read_bytes())
    assert not [r for r in apiserver.requests if "/proxy/" in r.path]


@pytest.mark.parametrize("window", ["soon", "0", "-5m"])
def test_a_bad_window_is_bad_input(cli: Cli, tmp_path: Path, window: str) -> None:
    result = cli("snapshot", "--out", str(tmp_path / "b.json"), f"--usage-window={window}")
    assert result.code == 2 and result.err.startswith("error: --usage-window")


def test_a_window_is_read_on_one_cluster_only(cli: Cli, kubeconfig: Path, tmp_path: Path) -> None:
    args = ("snapshot", "--all-contexts", "--out", str(tmp_path / "out"), "--usage-window", "5m")
    result = cli(*args, "--kubeconfig", str(kubeconfig))
    assert result.code == 2 and result.err.startswith("error: --usage-window works on one cluster")
