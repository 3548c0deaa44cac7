"""End to end against the suite's API server: live and snapshot give the same answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import orjson

from kubectl_gpu.core.catalog import load_catalog
from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]
NOW = "2026-11-28T09:00:00Z"


def _cluster(api: FakeKubeAPI) -> None:
    api.install_crds("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "nodeclasses.eks.amazonaws.com")
    labels = dict(load_catalog().labels("g6e.xlarge", "auto"))
    labels["karpenter.sh/nodepool"] = "gpu"
    api.add(
        node("i-0gpu", labels=labels, capacity={"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}),
        node("i-0cpu", labels={"eks.amazonaws.com/compute-type": "auto"}),
        pod("serve", "ml", node_name="i-0gpu", requests={"nvidia.com/gpu": "1"}),
        pod(
            "waiting",
            "ml",
            phase="Pending",
            requests={"nvidia.com/gpu": "1"},
            env=[{"name": "TOKEN", "value": "hunter2"}],
        ),
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": "gpu"},
            "spec": {
                "template": {
                    "spec": {
                        "nodeClassRef": {
                            "group": "eks.amazonaws.com",
                            "kind": "NodeClass",
                            "name": "default",
                        },
                        "requirements": [
                            {"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6e"]}
                        ],
                        "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                    }
                }
            },
        },
        {
            "apiVersion": "eks.amazonaws.com/v1",
            "kind": "NodeClass",
            "metadata": {"name": "default"},
            "spec": {},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        },
    )


def test_nodes_live_equals_snapshot(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    _cluster(apiserver)
    live = cli("nodes", "--kubeconfig", str(kubeconfig), "-o", "json", "--now", NOW)
    assert live.code == 0, live.err
    bundle = tmp_path / "bundle.json"
    snap = cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW)
    assert snap.code == 0, snap.err
    offline = cli("nodes", "--snapshot", str(bundle), "-o", "json")
    assert json.loads(live.out) == json.loads(offline.out)
    assert [n["name"] for n in json.loads(live.out)["nodes"]] == ["i-0gpu"]


def test_pending_live_equals_snapshot(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    _cluster(apiserver)
    live = cli("pending", "--kubeconfig", str(kubeconfig), "-o", "json", "--now", NOW)
    bundle = tmp_path / "bundle.json"
    cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW)
    offline = cli("pending", "--snapshot", str(bundle), "-o", "json")
    assert live.code == offline.code == 1
    assert json.loads(live.out) == json.loads(offline.out)
    (diag,) = json.loads(live.out)["pods"]
    assert diag["verdict"] == "MISSING_TOLERATION"
    explain_live = cli("explain", "ml/waiting", "--kubeconfig", str(kubeconfig), "--now", NOW)
    explain_offline = cli("explain", "ml/waiting", "--snapshot", str(bundle))
    assert explain_live.out == explain_offline.out and "tolerations:" in explain_live.out


def test_snapshot_bundle_is_redacted_and_complete(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    _cluster(apiserver)
    bundle = tmp_path / "bundle.json"
    result = cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(bundle), "--now", NOW)
    assert result.code == 0 and "wrote" in result.err
    data = orjson.loads(bundle.read_bytes())
    assert data["apiVersion"] == "kubectl-gpu/v1" and data["kind"] == "Snapshot"
    assert data["capturedAt"] == NOW and data["context"] == "test" and data["redacted"] is True
    assert "hunter2" not in bundle.read_text()
    kinds = {o["kind"] for o in data["objects"]}
    assert {"Node", "Pod", "NodePool", "NodeClass"} <= kinds
    assert "ec2nodeclasses" in data["absent"]
    # the kinds listed whole: none of one of them in the bundle is none in the cluster (ClusterState.listed)
    assert {"nodes", "pods", "poddisruptionbudgets"} <= set(data["listed"])
    assert "ec2nodeclasses" not in data["listed"]
    assert not any(r.path.endswith("/secrets") for r in apiserver.requests)
    kept = tmp_path / "raw.json"
    cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(kept), "--no-redact")
    assert "hunter2" in kept.read_text()


def test_forbidden_kind_is_a_visible_warning(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver)
    apiserver.fault(path=r"/apis/karpenter\.sh/v1/nodeclaims", status=403)
    table = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert table.code == 0
    assert "warning: forbidden to list nodeclaims.karpenter.sh" in table.err
    data = json.loads(cli("nodes", "--kubeconfig", str(kubeconfig), "-o", "json").out)
    assert data["notes"][0]["code"] == "FORBIDDEN"


def test_cluster_errors_exit_3_with_one_line(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.fault(path=r"/api/v1/nodes", status=401)
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 3 and result.err.startswith("error: unauthorized") and result.err.count("\n") == 1
    refused = cli("nodes", "--kubeconfig", str(kubeconfig), "--context", "other")
    assert refused.code == 3 and "cannot connect" in refused.err
    missing = cli("nodes", "--kubeconfig", str(kubeconfig), "--context", "prod")
    assert missing.code == 2 and "context 'prod' not found" in missing.err
