"""A default (redacted) snapshot holds no credential and still answers as the live cluster (issue 12, item
6): container commands and args, env values, probe and hook headers and commands, annotation values, and
NodeClass userData are redacted, while what the analyses read (do-not-disrupt, CUDA_VERSION, the disk
words of userData) is kept; every command gives the same JSON from the bundle as live. Bundles are 0600,
and an overwritten bundle keeps its mode."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.snapshot import write_bundle
from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]
NOW = "2026-11-28T09:00:00Z"
SECRETS = [f"s3cr3t-{i}-Zq" for i in range(9)]


def _workload() -> dict[str, Any]:
    obj = pod(
        "train",
        "ml",
        node_name="i-0gpu",
        requests={"nvidia.com/gpu": "1"},
        env=[{"name": "API_KEY", "value": SECRETS[0]}, {"name": "CUDA_VERSION", "value": "12.4.1"}],
        annotations={"example.com/webhook-token": SECRETS[1], "karpenter.sh/do-not-disrupt": "true"},
    )
    (container,) = obj["spec"]["containers"]
    container["command"] = ["sh", "-c", f"curl -H 'Authorization: Bearer {SECRETS[2]}' http://x"]
    container["args"] = [f"--token={SECRETS[3]}"]
    container["livenessProbe"] = {
        "httpGet": {"path": "/h", "port": 80, "httpHeaders": [{"name": "Authorization", "value": SECRETS[4]}]}
    }
    container["readinessProbe"] = {"exec": {"command": ["check", f"--password={SECRETS[5]}"]}}
    container["lifecycle"] = {"postStart": {"exec": {"command": ["login", SECRETS[6]]}}}
    obj["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "command": ["echo", SECRETS[7]]}]
    return obj


def _cluster(api: FakeKubeAPI) -> None:
    api.install_crds("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws")
    labels = dict(load_catalog().labels("g6e.xlarge", "auto"))
    labels["karpenter.sh/nodepool"] = "gpu"
    api.add(
        node("i-0gpu", labels=labels, capacity={"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}),
        _workload(),
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": "gpu", "annotations": {"example.com/owner-token": SECRETS[8]}},
            "spec": {
                "template": {
                    "metadata": {"annotations": {"example.com/bootstrap": SECRETS[8]}},
                    "spec": {
                        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                        "requirements": [
                            {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}
                        ],
                    },
                }
            },
        },
        {
            "apiVersion": "karpenter.k8s.aws/v1",
            "kind": "EC2NodeClass",
            "metadata": {"name": "gpu"},
            "spec": {
                "amiSelectorTerms": [{"alias": "bottlerocket@latest"}],
                "role": "KarpenterNodeRole",
                "userData": f"#!/bin/bash\nmdadm --create /dev/md0 --level=0 /dev/nvme1n1\necho {SECRETS[0]} > /etc/k\n",
            },
        },
    )


def test_a_redacted_bundle_holds_no_credential_and_keeps_what_the_analyses_read(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    assert cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW).code == 0
    text = bundle.read_text()
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, leaked
    objects = {o["kind"]: o for o in json.loads(text)["objects"]}
    meta = objects["Pod"]["metadata"]["annotations"]
    assert meta == {"example.com/webhook-token": "<redacted>", "karpenter.sh/do-not-disrupt": "true"}
    (container,) = objects["Pod"]["spec"]["containers"]
    assert container["env"] == [
        {"name": "API_KEY", "value": "<redacted>"},
        {"name": "CUDA_VERSION", "value": "12.4.1"},
    ]
    assert container["command"] == ["<redacted>"] * 3 and container["args"] == ["<redacted>"]
    assert objects["EC2NodeClass"]["spec"]["userData"] == "<redacted> (mentions: mdadm)"
    raw = tmp_path / "raw.json"
    assert cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(raw), "--no-redact").code == 0
    assert all(s in raw.read_text() for s in SECRETS)


@pytest.mark.parametrize(
    "command",
    [
        ("drivers",),
        ("lint",),
        ("lifecycle",),
        ("cost",),
        ("nodes",),
        ("pending",),
        ("diagnose",),
        ("inventory",),
    ],
    ids=lambda c: c[0],
)
def test_the_redacted_bundle_answers_as_the_live_cluster(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    assert cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW).code == 0
    live = cli(*command, "--kubeconfig", str(kubeconfig), "--now", NOW, "-o", "json")
    offline = cli(*command, "--snapshot", str(bundle), "-o", "json")
    assert (live.code, json.loads(live.out)) == (offline.code, json.loads(offline.out))


def test_a_new_bundle_is_0600(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path) -> None:
    apiserver.add(node("n1"))
    bundle = tmp_path / "bundle.json"
    old = os.umask(0o022)
    try:
        assert cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle)).code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_an_overwritten_bundle_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text("{}")
    bundle.chmod(mode)
    write_bundle({"kind": "Snapshot"}, bundle)
    assert stat.S_IMODE(bundle.stat().st_mode) == mode
    assert json.loads(bundle.read_text()) == {"kind": "Snapshot"}
    assert [p.name for p in tmp_path.iterdir()] == ["bundle.json"]


def test_a_symlink_is_replaced_by_a_0600_bundle(tmp_path: Path) -> None:
    """Issue 21 item 7: the link is replaced (as before), but the bundle no longer takes the mode of the
    file it pointed at: a world-readable target made a world-readable bundle."""
    target = tmp_path / "shared.json"
    target.write_text("{}")
    target.chmod(0o644)
    link = tmp_path / "bundle.json"
    link.symlink_to(target)
    write_bundle({"kind": "Snapshot"}, link)
    assert not link.is_symlink() and stat.S_IMODE(link.stat().st_mode) == 0o600
    assert target.read_text() == "{}" and stat.S_IMODE(target.stat().st_mode) == 0o644


def test_snapshot_out_dash_writes_the_bundle_to_stdout(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--out -` is stdout, as `--snapshot -` is stdin; never a file named `-`."""
    import io

    apiserver.add(node("n1", capacity={"nvidia.com/gpu": "1"}))
    monkeypatch.chdir(tmp_path)
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr("sys.stdout", stdout)
    result = cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", "-", "--now", NOW)
    assert result.code == 0, result.err
    assert not (tmp_path / "-").exists()
    stdout.flush()
    document = json.loads(stdout.buffer.getvalue())  # type: ignore[attr-defined]
    assert document["kind"] == "Snapshot" and [o["metadata"]["name"] for o in document["objects"]] == ["n1"]
    assert "wrote the bundle to stdout" in result.err
