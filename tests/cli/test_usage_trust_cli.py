"""`kubectl gpu usage` and whose exporters it believes (issue 36, item 2), end to end: on the demo bundle
with a tenant's exporter added (examples/README.md: its dcgm-exporter pods are a DaemonSet's), and live
against the suite's API server; `--exporter-namespace` and the config file's `usage.exporterNamespaces`."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import kubectl_gpu.kube.usage.window as window_module
from tests.conftest import Result
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.test_usage_collect import DCGM_TEXT, _exporter

Cli = Callable[..., Result]
DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
P5, EMPTY, REAL = "i-0fb95c97fae96da58", "i-06cc6be1805fdf179", "dcgm-exporter-6vkz5"


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(window_module, "pause", lambda seconds: None)
    return tmp_path / "xdg" / "kubectl-gpu"


def _config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text)


def _tenant_bundle(tmp_path: Path, owner: str | None) -> Path:
    """The demo bundle with a tenant's exporter on the empty node, claiming the p5's 8 H100s at 0 %."""
    bundle = json.loads(DEMO.read_text())
    fake = pod("fake-dcgm-x1", "team-a", node_name=EMPTY, labels={"app": "dcgm-exporter"}, image="x/y:1")
    if owner:
        fake["metadata"]["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": owner, "name": "fake", "uid": "u"}
        ]
    bundle["objects"].append(fake)
    for scrape in [s for s in bundle["usage"]["scrapes"] if s["pod"] == REAL]:
        copied = copy.deepcopy(scrape)
        copied.update(namespace="team-a", pod="fake-dcgm-x1", node=EMPTY)
        copied["text"] = re.sub(r"^(DCGM_FI_DEV_GPU_UTIL\{[^}]*\}) \S+$", r"\1 0", copied["text"], flags=re.M)
        bundle["usage"]["scrapes"].append(copied)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    return path


def _trainer(doc: dict[str, Any]) -> Any:
    (row,) = [p for p in doc["pods"] if p["name"] == "pretrain-8x-h100-0"]
    return row["utilizationPercent"]


def _notes(doc: dict[str, Any]) -> list[str]:
    return [n["message"] for n in doc.get("notes", [])]


def test_a_tenants_bare_pod_moves_nothing_and_is_named(cli: Cli, tmp_path: Path) -> None:
    result = cli("usage", "--snapshot", str(_tenant_bundle(tmp_path, None)), "-o", "json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert _trainer(doc) == 96.7
    assert any("not believed: 1 pod(s) that look like a DCGM exporter" in n and "team-a/fake-dcgm-x1" in n
               for n in _notes(doc))  # fmt: skip


def test_a_tenants_daemonset_is_a_conflict_that_a_named_namespace_settles(cli: Cli, tmp_path: Path) -> None:
    bundle = str(_tenant_bundle(tmp_path, "DaemonSet"))
    doc = json.loads(cli("usage", "--snapshot", bundle, "-o", "json").out)
    assert _trainer(doc) is None  # unknown, not averaged to 48.5 %
    uuids = [g["uuid"] for g in doc["gpus"] if g["uuid"]]
    assert len(uuids) == len(set(uuids))  # no GPU on two nodes
    conflicts = [n for n in _notes(doc) if n.startswith("conflict: ")]
    assert len(conflicts) == 8 and all(
        "team-a/fake-dcgm-x1" in n and f"monitoring/{REAL}" in n for n in conflicts
    )
    table = cli("usage", "--snapshot", bundle)
    assert table.code == 0 and "conflict: GPU GPU-" in table.err  # said on the terminal too
    settled = json.loads(
        cli("usage", "--snapshot", bundle, "--exporter-namespace", "monitoring", "-o", "json").out
    )
    assert _trainer(settled) == 96.7


def test_the_config_file_names_the_namespace(cli: Cli, tmp_path: Path, config_home: Path) -> None:
    _config(config_home, "usage:\n  exporterNamespaces: [monitoring]\n")
    doc = json.loads(cli("usage", "--snapshot", str(_tenant_bundle(tmp_path, "DaemonSet")), "-o", "json").out)
    assert _trainer(doc) == 96.7


@pytest.mark.parametrize(
    ("config", "flag", "said"),
    [
        (None, "Not_A_Namespace", "--exporter-namespace: 'Not_A_Namespace' is not a namespace name"),
        ("usage: [monitoring]\n", None, "usage: expected a mapping"),
        ("usage: {exporterNamespace: [x]}\n", None, "usage: unknown key(s) exporterNamespace"),
        ("usage: {exporterNamespaces: monitoring}\n", None, "usage.exporterNamespaces: expected a list"),
    ],
)
def test_a_bad_namespace_is_bad_input(
    cli: Cli, config_home: Path, config: str | None, flag: str | None, said: str
) -> None:
    if config is not None:
        _config(config_home, config)
    args = ["usage", "--snapshot", str(DEMO), *(["--exporter-namespace", flag] if flag else [])]
    result = cli(*args)
    assert result.code == 2 and said in result.err, result.err


def test_live_a_lookalike_is_never_read(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    fake = _exporter("fake-dcgm", "gpu-1", namespace="team-a", owned=False)
    apiserver.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"), fake)
    apiserver.pod_proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    apiserver.pod_proxy.serve("team-a", "fake-dcgm", 9400, DCGM_TEXT)
    args = ("usage", "--kubeconfig", str(kubeconfig), "--context", "test", "--window", "0s", "-o", "json")
    result = cli(*args)
    assert result.code == 0, result.err
    reads = [r.path for r in apiserver.requests if "/proxy/" in r.path]
    assert reads and not [p for p in reads if "fake-dcgm" in p]
    assert any("not read: 1 pod(s)" in n and "team-a/fake-dcgm" in n for n in _notes(json.loads(result.out)))
    named = cli(*args, "--exporter-namespace", "team-a")
    assert named.code == 0 and [r.path for r in apiserver.requests if "fake-dcgm" in r.path]
