"""Which pods `usage` reads `/metrics` from (kube/usage/endpoints.py): no request, only the pods read."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.kube.usage.endpoints import Endpoint, dcgm_endpoints, inference_endpoints
from tests.helpers import pod


def _pod(obj: dict[str, Any], ports: list[dict[str, Any]] | None = None) -> Pod:
    if ports is not None:
        obj["spec"]["containers"][0]["ports"] = ports
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    return parsed


@pytest.mark.parametrize(
    "labels",
    [
        {"app": "nvidia-dcgm-exporter"},  # GPU Operator
        {"app.kubernetes.io/name": "dcgm-exporter"},  # the standalone chart
        {"k8s-app": "dcgm-exporter"},  # the CloudWatch add-on's chart
        {"app": "dcgm-exporter"},
    ],
)
def test_dcgm_exporters_by_their_usual_labels(labels: dict[str, str]) -> None:
    found = dcgm_endpoints([_pod(pod("e", "gpu-operator", node_name="n1", labels=labels, image="x/y:1"))])
    assert found == [Endpoint("dcgm", "gpu-operator", "e", "n1", 9400)]


def test_dcgm_exporter_by_image_and_its_named_port() -> None:
    obj = pod(
        "e", "monitoring", node_name="n1", image="nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04"
    )
    found = dcgm_endpoints([_pod(obj, [{"name": "metrics", "containerPort": 9500}])])
    assert [(e.port, e.proxy_path) for e in found] == [
        (9500, "/api/v1/namespaces/monitoring/pods/e:9500/proxy/metrics")
    ]


def test_only_running_pods_on_a_node_are_read() -> None:
    labels = {"app": "nvidia-dcgm-exporter"}
    pods = [
        _pod(pod("pending", labels=labels, phase="Pending")),
        _pod(pod("unscheduled", labels=labels)),
        _pod(pod("done", labels=labels, node_name="n1", phase="Succeeded")),
        _pod(pod("other", node_name="n1")),
    ]
    assert dcgm_endpoints(pods) == []


@pytest.mark.parametrize(
    ("image", "ports", "expected"),
    [
        ("vllm/vllm-openai:v0.6.3", [{"name": "http", "containerPort": 8000}], ("vllm", 8000, "/metrics")),
        ("vllm/vllm-openai:v0.6.3", [{"containerPort": 8080}], ("vllm", 8080, "/metrics")),
        ("ghcr.io/huggingface/text-generation-inference:2.4.0", [], ("tgi", 80, "/metrics")),
        ("lmsysorg/sglang:v0.4.6-cu124", [{"containerPort": 30000}], ("sglang", 30000, "/metrics")),
        (
            "nvcr.io/nvidia/tritonserver:24.10-trtllm-python-py3",
            [{"containerPort": 8000}, {"containerPort": 8001}, {"containerPort": 8002}],
            ("triton", 8002, "/metrics"),
        ),
        ("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", [], ("nim", 8000, "/v1/metrics")),
        (
            "registry.example/my-server:1",
            [{"name": "metrics", "containerPort": 9090}],
            (None, 9090, "/metrics"),
        ),
    ],
)
def test_inference_servers_by_image(
    image: str, ports: list[dict[str, Any]], expected: tuple[Any, ...]
) -> None:
    obj = pod("s", "inference", node_name="n1", image=image, requests={"nvidia.com/gpu": "1"})
    (found,) = inference_endpoints([_pod(obj, ports)])
    assert (found.server, found.port, found.path) == expected
    assert found.source == "inference"


def test_an_unknown_pod_without_a_gpu_or_a_metrics_port_is_not_read() -> None:
    plain = pod("web", node_name="n1", image="nginx:1.27")
    gpu_no_port = pod("train", node_name="n1", requests={"nvidia.com/gpu": "8"})
    cpu_metrics = pod("api", node_name="n1", image="example/api:1")
    pods = [_pod(plain), _pod(gpu_no_port), _pod(cpu_metrics, [{"name": "metrics", "containerPort": 9090}])]
    assert inference_endpoints(pods) == []


def test_names_are_escaped_into_their_segment() -> None:
    endpoint = Endpoint("dcgm", "ns", "a/../b", "n1", 9400)
    assert endpoint.proxy_path == "/api/v1/namespaces/ns/pods/a%2F..%2Fb:9400/proxy/metrics"
