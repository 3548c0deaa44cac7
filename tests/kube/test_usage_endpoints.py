"""Which pods `usage` reads `/metrics` from (kube/usage/endpoints.py): no request, only the pods read; a DCGM
exporter look-alike is read only when a DaemonSet owns it or it runs in a named namespace."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.kube.usage.endpoints import (
    Endpoint,
    dcgm_endpoints,
    find_endpoints,
    inference_endpoints,
    untrusted_exporters,
)
from tests.helpers import pod
from tests.kube.test_usage_collect import daemonset_owned


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
    obj = daemonset_owned(pod("e", "gpu-operator", node_name="n1", labels=labels, image="x/y:1"))
    found = dcgm_endpoints([_pod(obj)])
    assert found == [Endpoint("dcgm", "gpu-operator", "e", "n1", 9400)]


def test_dcgm_exporter_by_image_and_its_named_port() -> None:
    obj = pod(
        "e", "monitoring", node_name="n1", image="nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.0-ubuntu22.04"
    )
    found = dcgm_endpoints([_pod(daemonset_owned(obj), [{"name": "metrics", "containerPort": 9500}])])
    assert [(e.port, e.proxy_path) for e in found] == [
        (9500, "/api/v1/namespaces/monitoring/pods/e:9500/proxy/metrics")
    ]


def test_only_running_pods_on_a_node_are_read() -> None:
    labels = {"app": "nvidia-dcgm-exporter"}
    pods = [
        _pod(daemonset_owned(pod("pending", labels=labels, phase="Pending"))),
        _pod(daemonset_owned(pod("unscheduled", labels=labels))),
        _pod(daemonset_owned(pod("done", labels=labels, node_name="n1", phase="Succeeded"))),
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


# --- trust: labels are no proof (issue 36 item 2) ---------------------------------------------------------


def _lookalike(name: str, namespace: str, owner: str | None = None) -> Pod:
    obj = pod(
        name, namespace, node_name="n1", labels={"app": "dcgm-exporter"}, requests={"nvidia.com/gpu": "1"}
    )
    obj["spec"]["containers"][0]["ports"] = [{"name": "metrics", "containerPort": 9400}]
    if owner is not None:
        obj["metadata"]["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": owner, "name": "x", "uid": "u"}
        ]
    return _pod(obj)


def test_a_labelled_pod_in_a_tenant_namespace_is_not_read_as_an_exporter_nor_as_a_server() -> None:
    tenant = _lookalike("fake-dcgm", "team-a")  # a bare pod: `kubectl run` with the label
    deployed = _lookalike("fake-dcgm-2", "team-a", owner="ReplicaSet")
    real = _lookalike("nvidia-dcgm-exporter-x", "gpu-operator", owner="DaemonSet")
    pods = [tenant, deployed, real]
    assert [e.pod for e in dcgm_endpoints(pods)] == ["nvidia-dcgm-exporter-x"]
    assert inference_endpoints(pods) == []  # it asks for a GPU and names a metrics port: still not read
    assert untrusted_exporters(pods) == [("team-a", "fake-dcgm"), ("team-a", "fake-dcgm-2")]


def test_a_named_namespace_is_believed_whatever_owns_its_exporter() -> None:
    static = _lookalike("dcgm-exporter-static", "monitoring")  # no owner: a hand-made pod
    assert dcgm_endpoints([static]) == []
    assert [e.pod for e in dcgm_endpoints([static], ("monitoring",))] == ["dcgm-exporter-static"]
    assert untrusted_exporters([static], ("monitoring",)) == []


def test_find_endpoints_passes_the_namespaces_on() -> None:
    from kubectl_gpu.core.k8s.state import StateBuilder

    builder = StateBuilder()
    builder.add([_lookalike("dcgm-exporter-static", "monitoring")])
    state = builder.build()
    assert find_endpoints(state) == []
    assert [e.pod for e in find_endpoints(state, ["monitoring"])] == ["dcgm-exporter-static"]
