"""`kubectl gpu usage` live, end to end: the live source lists the suite's API server, `kube.usage.collect`
reads the exporter's and vLLM's real /metrics texts through the pod proxy, the analysis answers; a 403 on
pods/proxy is "could not look" (exit 4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.pod_proxy import forbidden_body
from tests.kube.test_usage_collect import daemonset_owned

Cli = Callable[..., Result]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "metrics"
DCGM_TEXT = (FIXTURES / "dcgm" / "datadog__tesla-t4__metrics.txt").read_text()


def _objects() -> list[dict[str, Any]]:
    labels = {"node.kubernetes.io/instance-type": "g4dn.xlarge", "topology.kubernetes.io/region": "us-east-1"}
    gpu_node = node("gpu-1", labels=labels, capacity={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"})
    exporter = pod("nvidia-dcgm-exporter-a", "gpu-operator", node_name="gpu-1", labels={"app": "nvidia-dcgm-exporter"},
                   image="nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04")  # fmt: skip
    exporter["spec"]["containers"][0]["ports"] = [{"name": "metrics", "containerPort": 9400}]
    daemonset_owned(exporter)
    worker = pod("train-0", "ml", node_name="gpu-1", requests={"nvidia.com/gpu": "1"})
    return [gpu_node, exporter, worker]


def _run(cli: Cli, kubeconfig: Path, *args: str) -> Result:
    return cli("usage", "--kubeconfig", str(kubeconfig), "--context", "test", "--window", "0s", *args)


def test_live_reads_the_exporter_through_the_pod_proxy(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(*_objects())
    apiserver.pod_proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    result = _run(cli, kubeconfig, "-o", "json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    (gpu,) = doc["gpus"]
    assert (gpu["node"], gpu["source"], gpu["samples"], gpu["utilizationPercent"]) == (
        "gpu-1",
        "dcgm",
        2,
        0.0,
    )
    (worker,) = doc["pods"]
    assert (worker["name"], worker["idle"], worker["attribution"]) == ("train-0", True, "allocation")
    assert [f["code"] for f in doc["findings"]] == ["USAGE_IDLE_GPUS"]
    reads = [r.path for r in apiserver.requests if "/proxy/" in r.path]
    assert reads == ["/api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-a:9400/proxy/metrics"] * 2


def test_live_403_on_pods_proxy_is_exit_4(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(*_objects())
    body = forbidden_body("gpu-operator", "nvidia-dcgm-exporter-a")
    apiserver.fault(path="/pods/nvidia-dcgm-exporter-a:9400/proxy/", status=403, body=body)
    result = _run(cli, kubeconfig)
    assert result.code == 4, result.err
    assert "forbidden: pods/proxy" in result.err
    assert "utilisation unknown" in result.err
