"""A figure that could not be read is never shown as a fact (issue 20, item 9).

With `list pods` forbidden, what the pods on a node request, and so what is free, is unknown: `nodes` shows
`?` (JSON `null`), never `requested 0`; and `pending` says that pods could not be listed instead of "No
Pending pods" (its exit code 4 stays).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]
NOW = "2026-11-28T09:00:00Z"
GPUS = {"cpu": "4", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "4"}


def _cluster(apiserver: FakeKubeAPI, *, forbid_pods: bool) -> None:
    apiserver.add(
        node("g1", labels={"node.kubernetes.io/instance-type": "g6e.12xlarge"}, capacity=GPUS),
        pod("train", "ml", node_name="g1", requests={"nvidia.com/gpu": "3"}),
    )
    if forbid_pods:
        apiserver.fault(path=r"^/api/v1/pods$", status=403)


def test_nodes_counts_the_pods_it_could_read(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver, forbid_pods=False)
    result = cli("nodes", "--kubeconfig", str(kubeconfig), "--now", NOW)
    assert result.code == 0, result.err
    assert "4/3/1" in result.out


def test_nodes_shows_unknown_requested_and_free_as_question_marks(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    _cluster(apiserver, forbid_pods=True)
    table = cli("nodes", "--kubeconfig", str(kubeconfig), "--now", NOW, "-o", "wide")
    assert table.code == 0, table.err
    assert "4/?/?" in table.out and "4/0/4" not in table.out
    row = next(line for line in table.out.splitlines() if line.startswith("g1"))
    assert row.rstrip().endswith("-")  # IDLE: unknown, not 4
    data = json.loads(cli("nodes", "--kubeconfig", str(kubeconfig), "--now", NOW, "-o", "json").out)
    acc = data["nodes"][0]["accelerator"]
    assert (acc["allocatable"], acc["requested"], acc["free"]) == (4, None, None)
    assert data["nodes"][0]["idleAccelerators"] is None


def test_pending_says_pods_could_not_be_listed(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver, forbid_pods=True)
    result = cli("pending", "--kubeconfig", str(kubeconfig), "--now", NOW)
    assert result.code == 4, result.err
    assert "No Pending pods" not in result.out
    assert "Pods could not be listed (forbidden)" in result.out
    data = json.loads(cli("pending", "--kubeconfig", str(kubeconfig), "--now", NOW, "-o", "json").out)
    assert data["podsListed"] is False and data["pods"] == []


def test_pending_with_pods_listed_says_none(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver, forbid_pods=False)
    result = cli("pending", "--kubeconfig", str(kubeconfig), "--now", NOW)
    assert (result.code, result.out.strip()) == (0, "No Pending pods requesting accelerators.")
    data = json.loads(cli("pending", "--kubeconfig", str(kubeconfig), "--now", NOW, "-o", "json").out)
    assert data["podsListed"] is True
