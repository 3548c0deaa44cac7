"""--field-selector on a snapshot selects exactly as the API server would (issue 41, item 1).

The server's set and values, cited from kubernetes/kubernetes: the field labels a v1 Pod or Node accepts
(`addConversionFuncs`, pkg/apis/core/v1/conversion.go; another label is `field label not supported: L`, and
`spec.host` is read as `spec.nodeName`), and the values they match (`ToSelectableFields`,
pkg/registry/core/pod/strategy.go: `status.podIP` is `PodIPs[0].IP`, `spec.hostNetwork` is
`strconv.FormatBool`, and `status.podIPs` is accepted but never set, so it matches only "")."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.field_selectors import parse_field_selector
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import pods, pods_fast
from kubectl_gpu.core.k8s.state import Scope
from kubectl_gpu.kube.source import SnapshotSource

DEMO = Path(__file__).parents[3] / "examples" / "automode-gpu-demo.json"

# pkg/apis/core/v1/conversion.go, the Pod and Node field label conversion functions.
SERVER_POD_FIELDS = (
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
)
SERVER_NODE_FIELDS = ("metadata.name", "spec.unschedulable")


@pytest.fixture(scope="module")
def demo_pods() -> tuple[Pod, ...]:
    return SnapshotSource((str(DEMO),)).load().pods


def _selected(demo_pods: tuple[Pod, ...], selector: str) -> list[str]:
    scope = Scope(field_selector=selector, selector_on="pods")
    return sorted(f"{p.namespace}/{p.name}" for p in demo_pods if scope.lists_pod(p))


@pytest.mark.parametrize("field", SERVER_POD_FIELDS)
def test_every_pod_field_the_server_accepts_is_accepted(field: str) -> None:
    assert parse_field_selector(f"{field}=x", "pods") == ((field, True, "x"),)


@pytest.mark.parametrize("field", SERVER_NODE_FIELDS)
def test_every_node_field_the_server_accepts_is_accepted(field: str) -> None:
    assert parse_field_selector(f"{field}!=x", "nodes") == ((field, False, "x"),)


@pytest.mark.parametrize(
    ("kind", "field"),
    [
        ("pods", "spec.unschedulable"),
        ("pods", "status.hostIP"),
        ("pods", "metadata.labels"),
        ("pods", "spec.priority"),
        ("nodes", "spec.nodeName"),
        ("nodes", "metadata.namespace"),
        ("nodes", "spec.host"),
    ],
)
def test_other_fields_are_the_servers_error(kind: str, field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        parse_field_selector(f"{field}=x", kind)
    assert raised.value.message == f"--field-selector: field label not supported: {field}"


def test_spec_host_is_the_servers_old_name_for_the_node_name() -> None:
    assert parse_field_selector("spec.host=i-1", "pods") == (("spec.nodeName", True, "i-1"),)


def test_restart_policy_and_service_account(demo_pods: tuple[Pod, ...]) -> None:
    jobs = ["ml/embed-nightly-29930295-b8v8h", "ml/eval-daily-29930910-7tq2c"]
    assert _selected(demo_pods, "spec.restartPolicy=Never") == jobs
    assert len(_selected(demo_pods, "spec.restartPolicy!=Never")) == len(demo_pods) - 2
    assert _selected(demo_pods, "spec.serviceAccountName=prometheus-server") == [
        "monitoring/prometheus-server-0"
    ]


def test_pod_ip_is_the_first_of_the_pods_ips(demo_pods: tuple[Pod, ...]) -> None:
    assert _selected(demo_pods, "status.podIP=10.0.116.215") == ["serving/vllm-l40s-0"]
    assert "ml/finetune-llama-0" in _selected(demo_pods, "status.podIP=")  # no IP yet: the empty value


def test_pod_ips_match_only_the_empty_value_as_on_the_server(demo_pods: tuple[Pod, ...]) -> None:
    everyone = _selected(demo_pods, "metadata.name!=")
    assert _selected(demo_pods, "status.podIPs=") == everyone
    assert _selected(demo_pods, "status.podIPs=10.0.116.215") == []


def test_host_network_is_true_or_false(demo_pods: tuple[Pod, ...]) -> None:
    assert _selected(demo_pods, "spec.hostNetwork=false") == _selected(demo_pods, "metadata.name!=")
    assert _selected(demo_pods, "spec.hostNetwork=true") == []


def _demo_pod(name: str) -> dict[str, Any]:
    """A copy of the demo's pod `name`, as the snapshot holds it."""
    stack: list[Any] = [json.loads(DEMO.read_text())]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("kind") == "Pod" and value.get("metadata", {}).get("name") == name:
                return copy.deepcopy(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    raise AssertionError(f"no pod {name} in {DEMO}")


@pytest.mark.parametrize("parse", [pods.parse_pod_checked, pods_fast.parse_pod])
def test_the_values_as_the_server_reads_a_v1_pod(parse: Any) -> None:
    """Both parsers: host networking, the deprecated `serviceAccount`, the default restart policy, and the
    pod IP from `podIPs` first (the v1 to internal conversion), on a copy of a real pod."""
    obj = _demo_pod("vllm-l40s-0")
    obj["spec"]["hostNetwork"] = True
    del obj["spec"]["serviceAccountName"]
    obj["spec"]["serviceAccount"] = "legacy"
    del obj["spec"]["restartPolicy"]
    obj["status"]["podIPs"] = [{"ip": "fd00::1"}, {"ip": "10.0.116.215"}]
    pod = parse(obj)
    assert (pod.host_network, pod.service_account_name, pod.restart_policy, pod.pod_ip) == (
        True,
        "legacy",
        "Always",
        "fd00::1",
    )
    scope = Scope(field_selector="spec.hostNetwork=true,status.podIP=fd00::1", selector_on="pods")
    assert scope.lists_pod(pod)
