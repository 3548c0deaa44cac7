"""The live source against the suite's API server, through the real `kubernetes` client."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_gpu.core.errors import ClusterError, ExitCode, InvalidInput
from kubectl_gpu.core.k8s.state import Scope
from kubectl_gpu.kube.kinds import EVENT_REASONS
from kubectl_gpu.kube.live import PAGE_SIZE, LiveOptions, LiveSource, page_size
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_exec_kubeconfig

CRDS = (
    "nodepools.karpenter.sh",
    "nodeclaims.karpenter.sh",
    "nodeclasses.eks.amazonaws.com",
    "ec2nodeclasses.karpenter.k8s.aws",
)


def _source(kubeconfig: Path, **kw: object) -> LiveSource:
    return LiveSource(LiveOptions(kubeconfig=str(kubeconfig), **kw))  # type: ignore[arg-type]


def _nodepool(name: str) -> dict[str, object]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "requirements": [],
                    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
                }
            }
        },
    }


def test_lists_every_page(apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kubectl_gpu.kube.live.PAGE_SIZES", {"pods": 20})
    count = 20 * 2 + 7
    apiserver.add(*(pod(f"p{i:04d}", "ml") for i in range(count)), node("n1"))
    state, _ = _source(kubeconfig).load(["pods", "nodes"])
    assert len(state.pods) == count
    pod_requests = [r for r in apiserver.requests if r.path == "/api/v1/pods"]
    assert len(pod_requests) == 3
    assert all(r.query.get("limit") == "20" for r in pod_requests)
    assert [bool(r.query.get("continue")) for r in pod_requests] == [False, True, True]
    (node_request,) = [r for r in apiserver.requests if r.path == "/api/v1/nodes"]
    assert node_request.query.get("limit") == str(PAGE_SIZE)


def test_pods_are_listed_in_bigger_pages_than_the_rest() -> None:
    """A list's pages are sequential: the kind with the most objects gets the biggest pages."""
    assert page_size("pods") >= 10 * PAGE_SIZE
    assert page_size("nodes") == page_size("events") == PAGE_SIZE


def test_absent_crds_are_absent_not_errors(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load()
    assert {"nodepools", "nodeclaims", "nodeclasses", "ec2nodeclasses"} <= state.absent
    assert not state.notes
    assert [n.name for n in state.nodes] == ["n1"]


def test_crd_kinds_are_read_when_installed(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.install_crds(*CRDS)
    apiserver.add(_nodepool("gpu"), _nodepool("general-purpose"))
    state, _ = _source(kubeconfig).load()
    assert sorted(p.name for p in state.nodepools) == ["general-purpose", "gpu"]
    assert "nodepools" not in state.absent


def test_forbidden_kind_degrades_with_a_note(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.install_crds(*CRDS)
    apiserver.add(node("n1"), _nodepool("gpu"))
    apiserver.fault(path=r"/apis/karpenter\.sh/v1/nodeclaims", status=403)
    state, _ = _source(kubeconfig).load()
    assert [p.name for p in state.nodepools] == ["gpu"]
    (note,) = state.notes
    assert note.code == "FORBIDDEN" and "nodeclaims.karpenter.sh" in note.message and "list" in note.message


def test_events_use_field_selectors_per_reason(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e1", "namespace": "ml"},
        "involvedObject": {"kind": "Pod", "namespace": "ml", "name": "p"},
        "reason": "FailedScheduling",
        "message": "0/1 nodes are available",
        "source": {"component": "default-scheduler"},
    }
    noise = {**event, "metadata": {"name": "e2", "namespace": "ml"}, "reason": "Pulled", "message": "pulled"}
    apiserver.add(event, noise)
    state, _ = _source(kubeconfig).load(["events"])
    assert [e.meta.name for e in state.events] == ["e1"]
    selectors = {r.query.get("fieldSelector") for r in apiserver.requests if r.path == "/api/v1/events"}
    assert {f"reason={r}" for r in EVENT_REASONS} <= selectors
    assert "reportingComponent=eks-node-monitoring-agent" in selectors


def test_namespace_scoping_lists_the_namespace_and_counts_every_pod(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    # -n ml: the pods listed are ml's, but node figures need every pod, so all are read where allowed.
    apiserver.add(pod("a", "ml"), pod("b", "serving"))
    source = LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig), scope=Scope(namespace="ml")))
    state = source.load(["pods"])
    assert sorted(p.name for p in state.pods) == ["a", "b"]
    assert [p.name for p in state.listed_pods] == ["a"]
    assert any(r.path == "/api/v1/pods" for r in apiserver.requests)
    assert not state.notes


def test_namespace_scoping_falls_back_to_the_namespace_when_cluster_wide_pods_are_forbidden(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(pod("a", "ml"), pod("b", "serving"))
    apiserver.fault(path=r"^/api/v1/pods$", status=403)
    source = LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig), scope=Scope(namespace="ml")))
    state = source.load(["pods"])
    assert [p.name for p in state.pods] == ["a"] and [p.name for p in state.listed_pods] == ["a"]
    assert any(r.path == "/api/v1/namespaces/ml/pods" for r in apiserver.requests)
    (note,) = state.notes
    assert note.code == "PARTIAL" and "count only the pods of namespace ml" in note.message


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ({"status": 401}, "unauthorized"),
        ({"status": 500}, "answered 500"),
        ({"status": 429}, "answered 429"),
        ({"truncate": True}, "truncated"),
    ],
)
def test_fatal_answers_are_cluster_errors(
    apiserver: FakeKubeAPI, kubeconfig: Path, fault: dict[str, object], message: str
) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"/api/v1/nodes", **fault)  # type: ignore[arg-type]
    with pytest.raises(ClusterError) as info:
        _source(kubeconfig).load(["nodes"])
    assert info.value.exit_code == ExitCode.CLUSTER
    assert message in info.value.line()


def test_timeout_is_one_attempt_and_exit_3(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.fault(path=r"/api/v1/nodes", delay=2.0)
    with pytest.raises(ClusterError, match=r"did not answer within 300ms"):
        _source(kubeconfig, request_timeout=0.3).load(["nodes"])
    # No silent retries: counted, not timed.
    assert len([r for r in apiserver.requests if r.path == "/api/v1/nodes"]) == 1


def test_connection_refused(kubeconfig: Path) -> None:
    with pytest.raises(ClusterError, match="cannot connect"):
        _source(kubeconfig, context="other").load(["nodes"])


def test_unknown_context_is_usage_error(kubeconfig: Path) -> None:
    with pytest.raises(InvalidInput, match="context 'nope' not found"):
        _source(kubeconfig, context="nope")


def test_exec_credential_plugin_is_honoured(tls_apiserver: FakeKubeAPI, tmp_path: Path) -> None:
    tls_apiserver.require_token = "s3cret"
    tls_apiserver.add(node("n1"))
    path = write_exec_kubeconfig(
        tmp_path / "kubeconfig", tls_apiserver.url, "s3cret", ca_pem=tls_apiserver.ca_pem
    )
    state, _ = LiveSource(LiveOptions(kubeconfig=str(path))).load(["nodes"])
    assert [n.name for n in state.nodes] == ["n1"]
    auth = {r.headers.get("authorization") for r in tls_apiserver.requests if r.path == "/api/v1/nodes"}
    assert auth == {"Bearer s3cret"}


def test_untrusted_certificate_is_a_tls_error(tls_apiserver: FakeKubeAPI, tmp_path: Path) -> None:
    from tests.kube.conftest import write_kubeconfig

    tls_apiserver.add(node("n1"))
    path = write_kubeconfig(tmp_path / "kubeconfig", tls_apiserver.url, token="t")  # no CA: not trusted
    with pytest.raises(ClusterError) as info:
        LiveSource(LiveOptions(kubeconfig=str(path))).load(["nodes"])
    assert info.value.exit_code == ExitCode.CLUSTER
    assert info.value.line().startswith("TLS error talking to https://127.0.0.1")
    assert "certificate-authority-data" in info.value.line()


def test_kubeconfig_env_merges_several_files_like_kubectl(
    apiserver: FakeKubeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import os

    from kubernetes.config import kube_config

    apiserver.add(node("n1"))
    first = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "dead", "cluster": {"server": "http://127.0.0.1:1"}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "dead", "context": {"cluster": "dead", "user": "u"}}],
        "current-context": "dead",
    }
    second = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "live", "cluster": {"server": apiserver.url}}],
        "users": [{"name": "u2", "user": {}}],
        "contexts": [{"name": "prod", "context": {"cluster": "live", "user": "u2", "namespace": "ml"}}],
    }
    (tmp_path / "a").write_text(json.dumps(first))
    (tmp_path / "b").write_text(json.dumps(second))
    merged = os.pathsep.join([str(tmp_path / "a"), str(tmp_path / "b")])
    monkeypatch.setenv("KUBECONFIG", merged)
    monkeypatch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", merged)
    source = LiveSource(LiveOptions(context="prod"))
    assert source.context == "prod" and source.default_namespace == "ml"  # the context's, as kubectl
    state, _ = source.load(["nodes"])
    assert [n.name for n in state.nodes] == ["n1"]
    # The first file's current-context wins when --context is not given, as with kubectl.
    assert LiveSource(LiveOptions()).context == "dead"


def test_live_manifests_are_kept_only_when_asked(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"), pod("a", "ml"))
    plain = LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig))).load(["nodes", "pods"])
    assert not plain.manifests
    options = SourceOptions(kubeconfig=str(kubeconfig), keep_manifests=True)
    kept = LiveClusterSource(options).load(["nodes", "pods"])
    assert kept.manifest("Node", "n1")["metadata"]["name"] == "n1"  # type: ignore[index]
    assert kept.manifest("Pod", "a", "ml")["metadata"]["namespace"] == "ml"  # type: ignore[index]
