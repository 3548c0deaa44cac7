"""The fake API server, driven by the real `kubernetes` client and the real kubectl binary."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import urllib3
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import RunKubectl, write_exec_kubeconfig, write_kubeconfig
from tests.kube.kubelet import wait_for
from tests.kube.protobuf_pod import MAGIC, ProtobufError, decode_pod

Obj = dict[str, Any]


def node(name: str, labels: dict[str, str] | None = None, **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
    }


def pod(name: str, namespace: str = "default", phase: str = "Running", **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "main", "image": "busybox"}], **spec},
        "status": {"phase": phase},
    }


def event(name: str, involved: str, reason: str, type_: str, component: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": involved},
        "reason": reason,
        "type": type_,
        "source": {"component": component},
    }


NODEPOOL: Obj = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"}, "spec": {}}


def names(items: list[Any]) -> list[str]:
    return [item.metadata.name if hasattr(item, "metadata") else item["metadata"]["name"] for item in items]


def status_reason(err: ApiException) -> str:
    body = json.loads(err.body)
    assert body["kind"] == "Status" and body["apiVersion"] == "v1" and body["status"] == "Failure"
    assert body["code"] == err.status
    return str(body["reason"])


@pytest.fixture
def core(kube_client: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(kube_client)


# ----------------------------------------------------------------------------- lists and pagination
def test_list_nodes_paginates_with_limit_and_continue(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.add(*(node(f"gpu-{i:02d}") for i in range(7)))
    pages, token = [], None
    while True:
        page = core.list_node(limit=3, _continue=token)
        pages.append(names(page.items))
        token = page.metadata._continue
        if not token:
            break
        assert page.metadata.remaining_item_count == 7 - sum(map(len, pages))
    assert pages == [["gpu-00", "gpu-01", "gpu-02"], ["gpu-03", "gpu-04", "gpu-05"], ["gpu-06"]]
    lists = [r for r in apiserver.requests if r.path == "/api/v1/nodes"]
    assert [r.query.get("limit") for r in lists] == ["3", "3", "3"]
    assert "continue" not in lists[0].query and all(r.query.get("continue") for r in lists[1:])


def test_list_pods_namespaced_and_across_namespaces(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.add(*(pod(f"a-{i}", "team-a") for i in range(4)), *(pod(f"b-{i}", "team-b") for i in range(3)))

    def collect(call: Any, *args: Any) -> tuple[list[str], int]:
        out, token, calls = [], None, 0
        while True:
            page = call(*args, limit=2, _continue=token)
            out += [f"{p.metadata.namespace}/{p.metadata.name}" for p in page.items]
            calls, token = calls + 1, page.metadata._continue
            if not token:
                return out, calls

    assert collect(core.list_namespaced_pod, "team-b") == (["team-b/b-0", "team-b/b-1", "team-b/b-2"], 2)
    everything, calls = collect(core.list_pod_for_all_namespaces)
    assert calls == 4 and len(everything) == 7 and everything == sorted(everything)
    assert {r.path for r in apiserver.requests} >= {"/api/v1/namespaces/team-b/pods", "/api/v1/pods"}


def test_malformed_continue_token_is_a_bad_request(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as err:
        core.list_node(limit=1, _continue="not-a-token")
    assert err.value.status == 400 and status_reason(err.value) == "BadRequest"


# ----------------------------------------------------------------------------- custom objects and discovery
def test_custom_objects_exist_only_once_their_crd_is_installed(
    apiserver: FakeKubeAPI, kube_client: client.ApiClient
) -> None:
    apiserver.add(NODEPOOL)
    custom = client.CustomObjectsApi(kube_client)
    groups = client.ApisApi(kube_client)
    with pytest.raises(ApiException) as err:
        custom.list_cluster_custom_object("karpenter.sh", "v1", "nodepools")
    assert err.value.status == 404 and status_reason(err.value) == "NotFound"
    assert "karpenter.sh" not in {g.name for g in groups.get_api_versions().groups}

    apiserver.install_crds("nodepools.karpenter.sh")
    listed = custom.list_cluster_custom_object("karpenter.sh", "v1", "nodepools")
    assert listed["kind"] == "NodePoolList" and names(listed["items"]) == ["gpu"]
    assert custom.get_cluster_custom_object("karpenter.sh", "v1", "nodepools", "gpu")["spec"] == {}
    assert "karpenter.sh" in {g.name for g in groups.get_api_versions().groups}
    with pytest.raises(ApiException) as err:  # installing one kind of a group does not install its siblings
        custom.list_cluster_custom_object("karpenter.sh", "v1", "nodeclaims")
    assert err.value.status == 404


def test_resource_slices_are_built_in_with_their_field_labels(
    apiserver: FakeKubeAPI, kube_client: client.ApiClient
) -> None:
    def slice_(name: str, node_name: str) -> Obj:
        spec = {"nodeName": node_name, "driver": "gpu.nvidia.com", "pool": {"name": node_name}}
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": spec,
        }

    apiserver.add(slice_("s1", "gpu-1"), slice_("s2", "gpu-2"))
    custom = client.CustomObjectsApi(kube_client)
    listed = custom.list_cluster_custom_object(
        "resource.k8s.io", "v1", "resourceslices", field_selector="spec.nodeName=gpu-2"
    )
    assert names(listed["items"]) == ["s2"]


def test_kubectl_api_resources_follows_installed_crds(
    apiserver: FakeKubeAPI, run_kubectl: RunKubectl
) -> None:
    apiserver.install_crds("nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws")
    result = run_kubectl("api-resources", "--no-headers")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()}
    assert rows["nodepools"] == ["karpenter.sh/v1", "false", "NodePool"]
    assert rows["ec2nodeclasses"] == ["ec2nc,ec2ncs", "karpenter.k8s.aws/v1", "false", "EC2NodeClass"]
    assert rows["pods"] == ["po", "v1", "true", "Pod"] and rows["resourceslices"][-1] == "ResourceSlice"
    assert "nodeclaims" not in rows and "nodeclasses" not in rows
    core_doc = json.loads(apiserver.handle("GET", "/api/v1", {}, {}, b"").body)
    assert {"pods/log", "pods/exec"} <= {r["name"] for r in core_doc["resources"]}


# ----------------------------------------------------------------------------- selectors
@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("gpu=true", ["n1"]),
        ("gpu==true", ["n1"]),
        ("gpu!=true", ["n2", "n3"]),
        ("zone in (a, b)", ["n1", "n2"]),
        ("zone notin (a)", ["n2", "n3"]),
        ("gpu", ["n1", "n2"]),
        ("!gpu", ["n3"]),
        ("gpu,zone=b", ["n2"]),
        ("tier>1", ["n1"]),
    ],
)
def test_label_selectors(
    apiserver: FakeKubeAPI, core: client.CoreV1Api, selector: str, expected: list[str]
) -> None:
    apiserver.add(
        node("n1", {"gpu": "true", "zone": "a", "tier": "2"}), node("n2", {"gpu": "false", "zone": "b"}),
        node("n3", {"zone": "c"}),
    )  # fmt: skip
    assert names(core.list_node(label_selector=selector).items) == expected
    assert apiserver.requests[-1].query["labelSelector"] == selector


def test_malformed_label_selector_is_a_bad_request(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as err:
        core.list_node(label_selector="zone in (a")
    assert err.value.status == 400 and status_reason(err.value) == "BadRequest"


@pytest.fixture
def selector_objects(apiserver: FakeKubeAPI) -> None:
    apiserver.add(
        pod("p-run", "default", "Running", nodeName="gpu-1", restartPolicy="Always"),
        pod("p-pend", "default", "Pending"),
        pod("p-done", "team", "Succeeded", nodeName="gpu-2", restartPolicy="Never"),
        node("gpu-1", unschedulable=True),
        node("gpu-2"),
        event("e1", "p-pend", "FailedScheduling", "Warning", "default-scheduler"),
        event("e2", "p-run", "Pulled", "Normal", "kubelet"),
    )


@pytest.mark.usefixtures("selector_objects")
@pytest.mark.parametrize(
    ("kind", "selector", "expected"),
    [
        ("pods", "spec.nodeName=gpu-1", ["p-run"]),
        ("pods", "spec.nodeName=", ["p-pend"]),
        ("pods", "status.phase!=Running", ["p-pend", "p-done"]),
        ("pods", "status.phase!=Running,spec.nodeName!=", ["p-done"]),
        ("pods", "metadata.namespace==team", ["p-done"]),
        ("pods", "spec.restartPolicy=Never", ["p-done"]),
        ("nodes", "spec.unschedulable=true", ["gpu-1"]),
        ("nodes", "spec.unschedulable=false", ["gpu-2"]),
        ("events", "involvedObject.name=p-pend,reason=FailedScheduling", ["e1"]),
        ("events", "source=kubelet", ["e2"]),
        ("events", "type!=Normal", ["e1"]),
    ],
)
def test_field_selectors(core: client.CoreV1Api, kind: str, selector: str, expected: list[str]) -> None:
    call = {
        "pods": core.list_pod_for_all_namespaces,
        "nodes": core.list_node,
        "events": core.list_event_for_all_namespaces,
    }[kind]
    assert sorted(names(call(field_selector=selector).items)) == sorted(expected)


@pytest.mark.parametrize(
    ("resource", "selector", "label"),
    [
        ("pods", "spec.containers.image=busybox", "spec.containers.image"),
        ("nodes", "status.phase=Ready", "status.phase"),
        ("nodepools", "spec.template=x", "spec.template"),
    ],
)
def test_unsupported_field_label_is_rejected_like_the_real_server(
    apiserver: FakeKubeAPI, kube_client: client.ApiClient, resource: str, selector: str, label: str
) -> None:
    apiserver.install_crds("nodepools.karpenter.sh")
    core, custom = client.CoreV1Api(kube_client), client.CustomObjectsApi(kube_client)
    calls = {
        "pods": lambda: core.list_pod_for_all_namespaces(field_selector=selector),
        "nodes": lambda: core.list_node(field_selector=selector),
        "nodepools": lambda: custom.list_cluster_custom_object(
            "karpenter.sh", "v1", "nodepools", field_selector=selector
        ),
    }
    with pytest.raises(ApiException) as err:
        calls[resource]()
    assert err.value.status == 400 and status_reason(err.value) == "BadRequest"
    assert json.loads(err.value.body)["message"] == f"field label not supported: {label}"


# ----------------------------------------------------------------------------- faults
@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (401, "Unauthorized"),
        (403, "Forbidden"),
        (404, "NotFound"),
        (409, "Conflict"),
        (429, "TooManyRequests"),
        (500, "InternalError"),
    ],
)
def test_injected_status_surfaces_as_api_exception(
    apiserver: FakeKubeAPI, core: client.CoreV1Api, code: int, reason: str
) -> None:
    apiserver.add(node("gpu-1"))
    apiserver.fault(path=r"^/api/v1/nodes$", status=code, times=1)
    with pytest.raises(ApiException) as err:
        core.list_node()
    assert err.value.status == code and status_reason(err.value) == reason
    assert names(core.list_node().items) == ["gpu-1"]  # times=1: the next request is answered normally


def test_fault_with_custom_body_and_method(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403}
    body["message"] = 'pods is forbidden: User "dev" cannot create resource "pods"'
    apiserver.fault(method="POST", path="/pods$", status=403, body=body)
    assert core.list_namespaced_pod("default").items == []  # GET is not affected
    for _ in range(2):  # times=None: every matching request
        with pytest.raises(ApiException) as err:
            core.create_namespaced_pod("default", pod("x"))
        assert json.loads(err.value.body)["message"] == body["message"]
    apiserver.clear_faults()
    assert core.create_namespaced_pod("default", pod("x")).metadata.name == "x"


def test_slow_response_times_out_the_client(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.fault(path=r"^/api/v1/nodes$", delay=5.0)
    with pytest.raises(urllib3.exceptions.HTTPError) as err:
        core.list_node(_request_timeout=0.2)
    # urllib3 retries read timeouts of GETs 3 times by default: MaxRetryError wrapping ReadTimeoutError
    # (the error, not a clock, says the client gave up before the 5 s answer).
    assert isinstance(err.value, urllib3.exceptions.MaxRetryError)
    assert isinstance(err.value.reason, urllib3.exceptions.ReadTimeoutError)
    assert len([r for r in apiserver.requests if r.path == "/api/v1/nodes"]) == 4


def test_truncated_body_makes_the_client_raise(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.add(*(node(f"gpu-{i}") for i in range(20)))
    apiserver.fault(path=r"^/api/v1/nodes$", truncate=True, times=1)
    with pytest.raises(urllib3.exceptions.ProtocolError, match="IncompleteRead"):
        core.list_node()
    assert len(core.list_node().items) == 20


def test_stop_is_prompt_and_joins_every_thread(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    core.list_node()  # leaves a kept-alive connection in the client's pool
    apiserver.fault(path="/slow", delay=3600.0)
    host, port = urlsplit(apiserver.url).hostname, urlsplit(apiserver.url).port
    with socket.create_connection((str(host), int(port or 0))) as sock:
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        assert wait_for(lambda: any(r.path == "/slow" for r in apiserver.requests), timeout=60)
        stopped = threading.Event()
        threading.Thread(target=lambda: (apiserver.stop(), stopped.set()), daemon=True).start()
        # Prompt: stop() returns while the hour-long answer is still pending (the wait ends as soon as it
        # does; its bound only turns a hang into a failure), and the slow request is closed unanswered.
        assert stopped.wait(timeout=1800)
        sock.settimeout(60)
        assert sock.recv(1024) == b""
    assert not [t for t in threading.enumerate() if "process_request" in t.name or t.name == "fake-kube-api"]


# ----------------------------------------------------------------------------- create, delete, logs, hooks
def test_create_conflict_and_generate_name(core: client.CoreV1Api) -> None:
    created = core.create_namespaced_pod("default", pod("web"))
    assert created.metadata.uid and created.metadata.resource_version and created.status.phase == "Running"
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod("default", pod("web"))
    assert err.value.status == 409 and status_reason(err.value) == "AlreadyExists"
    assert json.loads(err.value.body)["details"] == {"name": "web", "group": "", "kind": "pods"}
    generated = client.V1Pod(metadata=client.V1ObjectMeta(generate_name="gpu-check-"), spec=pod("x")["spec"])
    name = core.create_namespaced_pod("default", generated).metadata.name
    assert name.startswith("gpu-check-") and len(name) == len("gpu-check-") + 5


def test_delete_honours_delete_options_and_404s_when_missing(
    apiserver: FakeKubeAPI, core: client.CoreV1Api
) -> None:
    apiserver.add(pod("victim"))
    core.delete_namespaced_pod(
        "victim", "default", body=client.V1DeleteOptions(propagation_policy="Foreground")
    )
    assert json.loads(apiserver.requests[-1].body)["propagationPolicy"] == "Foreground"
    assert apiserver.objects("pods") == []
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_pod("victim", "default")
    assert err.value.status == 404 and json.loads(err.value.body)["message"] == 'pods "victim" not found'
    apiserver.add(pod("victim"))
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_pod("victim", "default", propagation_policy="Sideways")
    assert err.value.status == 422


def test_pod_logs_by_pod_and_by_node(
    apiserver: FakeKubeAPI, core: client.CoreV1Api, run_kubectl: RunKubectl
) -> None:
    apiserver.add(pod("p", nodeName="gpu-1"), pod("q", nodeName="gpu-1"))
    apiserver.pod_logs[("default", "p")] = "one\ntwo\nthree\n"
    apiserver.pod_logs["gpu-1"] = "nvidia-smi says hi\n"
    assert core.read_namespaced_pod_log("p", "default") == "one\ntwo\nthree\n"
    assert core.read_namespaced_pod_log("p", "default", tail_lines=1) == "three\n"
    assert core.read_namespaced_pod_log("q", "default") == "nvidia-smi says hi\n"
    assert run_kubectl("logs", "q").stdout == "nvidia-smi says hi\n"
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("absent", "default")
    assert err.value.status == 404


def test_on_create_hook_and_status_updates(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    seen: list[tuple[str, Obj]] = []
    apiserver.on_create.append(lambda resource, obj: seen.append((resource, obj)))
    body = pod("job", phase="")
    body["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "kubectl-gpu"}
    del body["status"]
    created = core.create_namespaced_pod("default", body)
    assert created.status.phase == "Pending"
    assert [(r, o["metadata"]["name"]) for r, o in seen] == [("pods", "job")]
    apiserver.update_status("pods", "job", {"phase": "Running"}, namespace="default")
    after = core.read_namespaced_pod("job", "default")
    assert after.status.phase == "Running"
    assert int(after.metadata.resource_version) > int(created.metadata.resource_version)


def test_a_failing_callback_is_a_500_and_is_kept(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    def explode(resource: str, obj: Obj) -> None:
        raise RuntimeError("kubelet bug")

    apiserver.on_create.append(explode)
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod("default", pod("x"))
    assert err.value.status == 500 and status_reason(err.value) == "InternalError"
    assert [str(e) for e in apiserver.server_errors] == ["kubelet bug"]


def test_self_subject_access_review_policies(apiserver: FakeKubeAPI, kube_client: client.ApiClient) -> None:
    authz = client.AuthorizationV1Api(kube_client)

    def review(verb: str, resource: str, subresource: str = "") -> bool:
        attrs = client.V1ResourceAttributes(verb=verb, resource=resource, subresource=subresource or None)
        spec = client.V1SelfSubjectAccessReviewSpec(resource_attributes=attrs)
        body = client.V1SelfSubjectAccessReview(spec=spec)
        return bool(authz.create_self_subject_access_review(body).status.allowed)

    assert review("create", "pods", "exec")
    apiserver.ssar_allowed = {("create", "pods/exec"): False}
    assert not review("create", "pods", "exec") and review("create", "pods")
    apiserver.ssar_allowed = lambda attrs: attrs.get("verb") == "get"
    assert review("get", "nodes") and not review("list", "nodes")


# ----------------------------------------------------------------------------- protobuf
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        out += bytes([low | (0x80 if n else 0)])
        if not n:
            return out


def encode(fields: list[tuple[int, Any]]) -> bytes:
    """Tiny protobuf encoder: bool/int -> varint, str/bytes -> bytes, list -> nested message."""
    out = b""
    for number, value in fields:
        if isinstance(value, bool | int):
            out += _varint(number << 3) + _varint(int(value))
        else:
            payload = encode(value) if isinstance(value, list) else value
            payload = payload.encode() if isinstance(payload, str) else payload
            out += _varint(number << 3 | 2) + _varint(len(payload)) + payload
    return out


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    return MAGIC + encode([(1, [(1, api_version), (2, kind)]), (2, raw), (3, ""), (4, "")])


# Field numbers of k8s.io/api core/v1 generated.proto. Also holds what the decoder must skip: creationTimestamp
# (metadata 8), resources (container 8), ephemeralContainers (spec 34), an unknown field 99.
PROTO_POD = encode([
    (1, [(1, ""), (2, "gpu-check-"), (3, "team"),
         (11, [(1, "app.kubernetes.io/managed-by"), (2, "kubectl-gpu")]), (12, [(1, "note"), (2, "hi")]), (8, [])]),
    (2, [
        (1, [(1, "dev"), (2, [(1, [(1, "/dev"), (2, "Directory")])])]),
        (2, [(1, "probe"), (2, "nvcr.io/nvidia/cuda:12"), (3, "nvidia-smi"), (4, "-q"), (4, "-x"),
             (7, [(1, "A"), (2, "1")]), (9, [(1, "dev"), (2, False), (3, "/host/dev")]), (14, "IfNotPresent"),
             (15, [(1, [(1, "SYS_ADMIN")]), (2, False)]), (16, True), (18, True), (8, [])]),
        (3, "Never"), (4, 0), (5, 600), (10, "gpu-1"), (11, False), (12, True), (13, True), (21, False),
        (22, [(1, "nvidia.com/gpu"), (2, "Equal"), (3, "present"), (4, "NoSchedule"), (5, -1)]),
        (30, False), (34, [(1, "ignored")]), (99, b"\x00\x01"),
    ]),
    (3, [(1, "")]),
])  # fmt: skip

EXPECTED_POD: Obj = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "generateName": "gpu-check-",
        "namespace": "team",
        "labels": {"app.kubernetes.io/managed-by": "kubectl-gpu"},
        "annotations": {"note": "hi"},
    },
    "spec": {
        "volumes": [{"name": "dev", "hostPath": {"path": "/dev", "type": "Directory"}}],
        "containers": [
            {
                "name": "probe",
                "image": "nvcr.io/nvidia/cuda:12",
                "command": ["nvidia-smi"],
                "args": ["-q", "-x"],
                "env": [{"name": "A", "value": "1"}],
                "volumeMounts": [{"name": "dev", "mountPath": "/host/dev"}],
                "imagePullPolicy": "IfNotPresent",
                "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}, "privileged": False},
                "stdin": True,
                "tty": True,
            }
        ],
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 0,
        "activeDeadlineSeconds": 600,
        "nodeName": "gpu-1",
        "hostPID": True,
        "hostIPC": True,
        "automountServiceAccountToken": False,
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule",
             "tolerationSeconds": -1}
        ],
        "enableServiceLinks": False,
    },
}  # fmt: skip


def test_protobuf_pod_decodes_to_its_json_form() -> None:
    """Zero values of plain Go fields are dropped (JSON omitempty); pointer fields keep false/0."""
    assert decode_pod(envelope("v1", "Pod", PROTO_POD)) == EXPECTED_POD


@pytest.mark.parametrize(
    "body",
    [
        b'{"kind": "Pod"}',
        MAGIC + b"\x0a\x05ab",
        envelope("v1", "Node", b""),
        envelope("v1", "Pod", b"\x12\x09\x10"),
    ],
)
def test_malformed_protobuf_is_rejected(body: bytes) -> None:
    with pytest.raises(ProtobufError):
        decode_pod(body)


def test_protobuf_create_over_http(apiserver: FakeKubeAPI) -> None:
    url = urlsplit(apiserver.url)
    conn = http.client.HTTPConnection(str(url.hostname), url.port, timeout=5)
    headers = {"Content-Type": "application/vnd.kubernetes.protobuf", "Accept": "application/json"}
    try:
        conn.request("POST", "/api/v1/namespaces/team/pods", envelope("v1", "Pod", PROTO_POD), headers)
        response = conn.getresponse()
        created = json.loads(response.read())
        assert response.status == 201 and created["metadata"]["name"].startswith("gpu-check-")
        conn.request("POST", "/api/v1/namespaces/team/pods", MAGIC + b"\xff", headers)
        response = conn.getresponse()
        assert response.status == 400 and json.loads(response.read())["reason"] == "BadRequest"
    finally:
        conn.close()
    [stored] = apiserver.objects("pods", "team")
    assert stored["spec"] == EXPECTED_POD["spec"] and stored["status"] == {"phase": "Pending"}


# ----------------------------------------------------------------------------- the real kubectl
def test_kubectl_get_nodes_and_pods_across_namespaces(
    apiserver: FakeKubeAPI, run_kubectl: RunKubectl
) -> None:
    apiserver.add(node("gpu-1"), node("gpu-2"), pod("trainer", "ml"), pod("web"))
    nodes = run_kubectl("get", "nodes")
    assert nodes.returncode == 0, nodes.stderr
    assert nodes.stdout.split()[:2] == ["NAME", "AGE"] and {"gpu-1", "gpu-2"} <= set(nodes.stdout.split())
    pods = run_kubectl("get", "pods", "-A")
    assert pods.returncode == 0, pods.stderr
    rows = [line.split()[:2] for line in pods.stdout.splitlines()]
    assert rows == [["NAMESPACE", "NAME"], ["default", "web"], ["ml", "trainer"]]
    assert any(r.path == "/api/v1/pods" and r.query.get("limit") == "500" for r in apiserver.requests)
    deleted = run_kubectl("delete", "pod", "web")
    assert deleted.returncode == 0 and deleted.stdout.strip() == 'pod "web" deleted'
    [delete] = [r for r in apiserver.requests if r.method == "DELETE"]
    assert delete.path == "/api/v1/namespaces/default/pods/web"
    assert json.loads(delete.body) == {"propagationPolicy": "Background"}
    assert names(apiserver.objects("pods")) == ["trainer"]


def test_kubectl_get_nodepools_needs_the_crd(apiserver: FakeKubeAPI, run_kubectl: RunKubectl) -> None:
    apiserver.add(NODEPOOL)
    missing = run_kubectl("get", "nodepools")
    assert missing.returncode != 0
    assert 'the server doesn\'t have a resource type "nodepools"' in missing.stderr
    apiserver.install_crds("nodepools.karpenter.sh")
    present = run_kubectl("get", "nodepools", "-o", "name")  # same cache dir: kubectl rediscovers on a miss
    assert present.returncode == 0, present.stderr
    assert present.stdout.split() == ["nodepool.karpenter.sh/gpu"]


def test_kubectl_debug_node_creates_the_pod_kubectl_builds(
    apiserver: FakeKubeAPI, run_kubectl: RunKubectl
) -> None:
    apiserver.add(node("gpu-1"))
    result = run_kubectl("debug", "node/gpu-1", "--image=busybox", "--profile=sysadmin", "--", "sleep", "1")
    assert result.returncode == 0, result.stderr
    [debug_pod] = apiserver.objects("pods", "default")
    assert debug_pod["metadata"]["name"].startswith("node-debugger-gpu-1-")
    assert debug_pod["metadata"]["name"] in result.stdout
    spec = debug_pod["spec"]
    assert spec["nodeName"] == "gpu-1" and spec["restartPolicy"] == "Never"
    assert spec["hostPID"] and spec["hostNetwork"] and spec["hostIPC"]
    assert spec["tolerations"] == [{"operator": "Exists"}]
    assert spec["volumes"] == [{"name": "host-root", "hostPath": {"path": "/"}}]
    [container] = spec["containers"]
    assert container["name"] == "debugger" and container["image"] == "busybox"
    assert container["command"] == ["sleep", "1"]
    assert container["securityContext"] == {"privileged": True}
    assert container["volumeMounts"] == [{"name": "host-root", "mountPath": "/host"}]
    [post] = [r for r in apiserver.requests if r.method == "POST"]
    assert post.headers["content-type"] == "application/vnd.kubernetes.protobuf"


def test_kubectl_auth_can_i_reads_the_protobuf_review(
    apiserver: FakeKubeAPI, run_kubectl: RunKubectl
) -> None:
    seen: list[Obj] = []

    def no_exec(attrs: Obj) -> bool:
        seen.append(attrs)
        return attrs.get("subresource") != "exec"

    apiserver.install_crds("nodepools.karpenter.sh")  # else kubectl cannot tell the group and sends none
    apiserver.ssar_allowed = no_exec
    denied = run_kubectl("auth", "can-i", "create", "pods", "--subresource=exec", "-n", "ml")
    allowed = run_kubectl("auth", "can-i", "list", "nodepools.karpenter.sh")
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    assert (allowed.returncode, allowed.stdout.strip()) == (0, "yes")
    assert seen[0] == {"namespace": "ml", "verb": "create", "resource": "pods", "subresource": "exec"}
    assert seen[1] == {
        "namespace": "default",
        "verb": "list",
        "group": "karpenter.sh",
        "resource": "nodepools",
    }


def test_kubectl_other_context_points_at_a_closed_port(run_kubectl: RunKubectl) -> None:
    result = run_kubectl("--context", "other", "get", "nodes", "--request-timeout=5s")
    assert result.returncode != 0 and "connection refused" in result.stderr


# ----------------------------------------------------------------------------- credentials
def test_exec_credential_plugin_token_is_required_and_honoured(
    tls_apiserver: FakeKubeAPI, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    api, ca = tls_apiserver, tls_apiserver.ca_pem
    api.add(node("gpu-1"))
    api.require_token = "s3cr3t"
    wrong_kubeconfig = write_kubeconfig(tmp_path / "wrong-token", api.url, ca_pem=ca, token="guess")
    exec_kubeconfig = write_exec_kubeconfig(tmp_path / "exec-kubeconfig", api.url, "s3cr3t", ca_pem=ca)

    wrong = run_kubectl("get", "nodes", kubeconfig=wrong_kubeconfig)
    assert wrong.returncode != 0 and "You must be logged in to the server" in wrong.stderr
    assert api.requests and all(r.headers.get("authorization") == "Bearer guess" for r in api.requests)

    with_plugin = run_kubectl("get", "nodes", kubeconfig=exec_kubeconfig)
    assert with_plugin.returncode == 0, with_plugin.stderr
    assert "gpu-1" in with_plugin.stdout
    assert api.requests[-1].headers["authorization"] == "Bearer s3cr3t"

    python_client = config.new_client_from_config(config_file=str(exec_kubeconfig), context="test")
    try:
        assert names(client.CoreV1Api(python_client).list_node().items) == ["gpu-1"]
    finally:
        python_client.close()


def test_kubectl_sends_no_credentials_over_plain_http(
    apiserver: FakeKubeAPI, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    """Why `tls=True` exists: client-go drops the exec plugin (and tokens) for http servers (kubectl#744)."""
    apiserver.require_token = "s3cr3t"
    result = run_kubectl(
        "get", "nodes", kubeconfig=write_exec_kubeconfig(tmp_path / "kc", apiserver.url, "s3cr3t")
    )
    assert result.returncode != 0 and "You must be logged in to the server" in result.stderr
    assert all("authorization" not in r.headers for r in apiserver.requests)


def test_anonymous_python_client_gets_401(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.require_token = "s3cr3t"
    with pytest.raises(ApiException) as err:
        core.list_node()
    assert err.value.status == 401 and status_reason(err.value) == "Unauthorized"


# ----------------------------------------------------------------------------- fault injection (issue 12)
def _raw_get(api: FakeKubeAPI, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(*urlsplit(api.url).netloc.split(":"), timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_fault_with_a_raw_html_body_and_headers(apiserver: FakeKubeAPI) -> None:
    page = "<html><head><title>502 Bad Gateway</title></head></html>"
    apiserver.fault(
        path="^/api/v1/nodes$", status=502, raw=page, content_type="text/html", headers={"Retry-After": "3"}
    )
    status, headers, body = _raw_get(apiserver, "/api/v1/nodes")
    assert (status, headers["content-type"], headers["retry-after"], body.decode()) == (
        502,
        "text/html",
        "3",
        page,
    )


def test_fault_that_drops_the_connection(apiserver: FakeKubeAPI) -> None:
    apiserver.fault(path="^/api/v1/nodes$", drop=True, times=1)
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        _raw_get(apiserver, "/api/v1/nodes")
    assert _raw_get(apiserver, "/api/v1/nodes")[0] == 200


def test_fault_for_a_window_of_seconds_opens_at_its_first_match(apiserver: FakeKubeAPI) -> None:
    apiserver.fault(path="^/api/v1/nodes$", status=503, seconds=0.3)
    time.sleep(0.4)  # installed long before: the window has not opened yet
    assert _raw_get(apiserver, "/api/v1/nodes")[0] == 503
    time.sleep(0.4)
    assert _raw_get(apiserver, "/api/v1/nodes")[0] == 200


def test_repeated_continue_token(apiserver: FakeKubeAPI, core: client.CoreV1Api) -> None:
    apiserver.repeat_continue_token("^/api/v1/nodes$", token="loop")
    first = core.list_node(limit=1)
    second = core.list_node(limit=1, _continue=first.metadata._continue)
    assert first.metadata._continue == second.metadata._continue == "loop"


def test_path_segments_are_unescaped_as_the_real_server_does(apiserver: FakeKubeAPI) -> None:
    apiserver.add(node("a"))
    assert _raw_get(apiserver, "/api/v1/nodes/%61")[0] == 200
    status, _, body = _raw_get(apiserver, "/api/v1/nodes/..%2Fpods")
    assert status == 404 and json.loads(body)["message"] == 'nodes "../pods" not found'
