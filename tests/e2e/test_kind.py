"""End to end on a real Kubernetes (kind): fake GPU capacity patched onto a node's status, CRDs of our own
writing, and the real CLI against the real API server.

Needs Docker and the `kind` binary; skipped with the reason where they are absent (as on the CI machines of
this project, which have no Docker engine). Run with `pytest -m kind tests/e2e`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
KIND = shutil.which("kind")
KUBECTL = shutil.which("kubectl")


def _docker_runs() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        return subprocess.run([docker, "info"], capture_output=True, timeout=20, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


pytestmark = [
    pytest.mark.kind,
    pytest.mark.xdist_group("kind"),  # one worker, so one kind cluster for the module
    pytest.mark.skipif(KIND is None or KUBECTL is None, reason="needs the kind and kubectl binaries"),
    pytest.mark.skipif(not _docker_runs(), reason="needs a running Docker engine for kind"),
]


def _run(*argv: str, kubeconfig: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    args = list(argv)
    if kubeconfig is not None and args[0] == KUBECTL:
        args[1:1] = ["--kubeconfig", str(kubeconfig)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300, check=check)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    name = f"kubectl-gpu-{uuid.uuid4().hex[:6]}"
    kubeconfig = tmp_path_factory.mktemp("kind") / "kubeconfig"
    assert KIND is not None and KUBECTL is not None
    _run(KIND, "create", "cluster", "--name", name, "--kubeconfig", str(kubeconfig), "--wait", "120s")
    try:
        yield kubeconfig
    finally:
        _run(KIND, "delete", "cluster", "--name", name, check=False)


@pytest.fixture(scope="module")
def gpu_cluster(cluster: Path) -> Path:
    assert KUBECTL is not None
    node = _run(
        KUBECTL, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}", kubeconfig=cluster
    ).stdout
    # What the NVIDIA device plugin and Auto Mode would put on a g6e.12xlarge: 4 L40S and its labels.
    patch = {"status": {"capacity": {"nvidia.com/gpu": "4"}, "allocatable": {"nvidia.com/gpu": "4"}}}
    _run(
        KUBECTL,
        "patch",
        "node",
        node,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps(patch),
        kubeconfig=cluster,
    )
    _run(
        KUBECTL,
        "label",
        "node",
        node,
        "--overwrite",
        "node.kubernetes.io/instance-type=g6e.12xlarge",
        "eks.amazonaws.com/compute-type=auto",
        "karpenter.sh/nodepool=gpu",
        kubeconfig=cluster,
    )
    _run(KUBECTL, "apply", "-f", str(HERE / "crds.yaml"), kubeconfig=cluster)
    _run(
        KUBECTL,
        "wait",
        "--for=condition=Established",
        "crd/nodepools.karpenter.sh",
        "crd/nodeclaims.karpenter.sh",
        "crd/nodeclasses.eks.amazonaws.com",
        "--timeout=60s",
        kubeconfig=cluster,
    )
    deadline = time.monotonic() + 60
    while True:  # the CRDs are Established a moment before their kinds are served
        applied = _run(KUBECTL, "apply", "-f", str(HERE / "objects.yaml"), kubeconfig=cluster, check=False)
        if applied.returncode == 0 or time.monotonic() > deadline:
            assert applied.returncode == 0, applied.stderr
            break
        time.sleep(2)
    return cluster


def _gpu(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", *args, "--kubeconfig", str(kubeconfig), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_nodes_sees_the_patched_gpus(gpu_cluster: Path) -> None:
    result = _gpu(gpu_cluster, "nodes")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["nodes"]
    assert row["instanceType"] == "g6e.12xlarge" and row["computeType"] == "auto"
    assert row["accelerator"]["resource"] == "nvidia.com/gpu"
    assert row["accelerator"]["model"] == "l40s"  # from the catalog, by instance type
    assert row["accelerator"]["allocatable"] == 4


def test_pending_explains_the_gpu_pod(gpu_cluster: Path) -> None:
    deadline = time.monotonic() + 60
    while True:  # wait for the scheduler's FailedScheduling event
        result = _gpu(gpu_cluster, "pending")
        pods = json.loads(result.stdout)["pods"] if result.stdout else []
        if (pods and pods[0]["evidence"]) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert result.returncode == 1, result.stderr
    (pod,) = pods
    assert pod["name"] == "wants-eight-gpus"
    assert pod["verdict"] == "MISSING_TOLERATION"
    assert pod["nearest"] == {"kind": "NodePool", "name": "gpu"}
    assert any(
        e["source"] == "scheduler" and "Insufficient nvidia.com/gpu" in e["message"] for e in pod["evidence"]
    )


def test_snapshot_round_trip(gpu_cluster: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubectl_gpu",
            "snapshot",
            "--kubeconfig",
            str(gpu_cluster),
            "--out",
            str(bundle),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    live = json.loads(_gpu(gpu_cluster, "nodes").stdout)
    offline = subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", "nodes", "--snapshot", str(bundle), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert [n["name"] for n in json.loads(offline.stdout)["nodes"]] == [n["name"] for n in live["nodes"]]
