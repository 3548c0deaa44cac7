"""The fixtures of the fleet tests: the in-process CLI (from tests/conftest.py) and clusters to serve."""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.catalog import load_catalog
from tests.helpers import node, nodepool, pod
from tests.kube.apiserver import FakeKubeAPI

NOW = "2026-11-28T09:00:00Z"
CRDS = ("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "nodeclasses.eks.amazonaws.com")


def gpu_cluster(api: FakeKubeAPI, node_name: str, *, blocked_pod: bool = False) -> FakeKubeAPI:
    """An Auto Mode cluster with one L40S node `node_name` (and its GPU pod); with `blocked_pod`, also a
    Pending pod that asks for an H100 no NodePool offers (a blocking verdict: pending and diagnose exit 1)."""
    api.install_crds(*CRDS)
    labels = dict(load_catalog().labels("g6e.xlarge", "auto"))
    labels["karpenter.sh/nodepool"] = "gpu"
    gpu_pool = nodepool(
        "gpu",
        requirements=[{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6e"]}],
        taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
    )
    objects: list[dict[str, Any]] = [
        node(node_name, labels=labels, capacity={"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}),
        pod("serve", "ml", node_name=node_name, requests={"nvidia.com/gpu": "1"}),
        gpu_pool,
        {
            "apiVersion": "eks.amazonaws.com/v1",
            "kind": "NodeClass",
            "metadata": {"name": "default"},
            "spec": {},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        },
    ]
    if blocked_pod:
        objects.append(
            pod(
                "train",
                "ml",
                phase="Pending",
                requests={"nvidia.com/gpu": "8"},
                node_selector={"eks.amazonaws.com/instance-gpu-name": "h100"},
                tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            )
        )
    api.add(*objects)
    return api
