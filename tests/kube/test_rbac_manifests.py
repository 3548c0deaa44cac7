"""deploy/rbac/ grants exactly what kubectl-gpu needs, docs/rbac.md shows the same rules, and the debug
preflight names the rule that is missing.

The read-only ClusterRole covers every kind the read-only commands list (kubectl_gpu/kube/kinds.py) and only
with read verbs; the debug Role covers every namespaced permission the preflight checks (preflight.NEEDED);
the debug ClusterRole the cluster-wide reads around the pod. Then, against the test API server, an RBAC
evaluator built from the manifests answers the SelfSubjectAccessReviews: with every rule the preflight passes,
in another namespace it fails, and without any one rule it names exactly that rule."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_gpu.core.debugpod import Mode
from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.debug.pod_api import PodApi
from kubectl_gpu.kube.debug.preflight import NEEDED, PSA_ENFORCE_LABEL, RBAC_MANIFEST, check_access
from kubectl_gpu.kube.kinds import ALL_KINDS
from kubectl_gpu.kube.usage.window import PROXY_RBAC
from tests.kube.apiserver import FakeKubeAPI

ROOT = Path(__file__).resolve().parents[2]
RBAC = ROOT / "deploy" / "rbac"
READ_VERBS = {"get", "list", "watch"}
Obj = dict[str, Any]


def _docs(path: Path) -> list[Obj]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _by_name(kind: str, name: str) -> Obj:
    found = [
        d
        for p in sorted(RBAC.glob("*.yaml"))
        for d in _docs(p)
        if d["kind"] == kind and d["metadata"]["name"] == name
    ]
    assert len(found) == 1, (kind, name, found)
    return found[0]


def _grants(rules: list[Obj], verb: str, resource: str, group: str = "") -> bool:
    return any(
        group in rule["apiGroups"] and resource in rule["resources"] and verb in rule["verbs"]
        for rule in rules
    )


def test_every_manifest_is_valid_rbac() -> None:
    files = sorted(RBAC.glob("*.yaml"))
    assert [p.name for p in files] == ["debug.yaml", "read-only.yaml", "usage.yaml"]
    for path in files:
        assert path.read_text().startswith("# kubectl-gpu: "), f"{path.name}: say what it is for at the top"
        for doc in _docs(path):
            assert doc["kind"] in {"Namespace", "Role", "ClusterRole"}, doc["kind"]
            assert doc["apiVersion"] == (
                "v1" if doc["kind"] == "Namespace" else "rbac.authorization.k8s.io/v1"
            )
            assert doc["metadata"]["labels"]["app.kubernetes.io/name"] == "kubectl-gpu"
            for rule in doc.get("rules", []):
                assert set(rule) == {"apiGroups", "resources", "verbs"}, rule
                assert "*" not in rule["verbs"] + rule["resources"] + rule["apiGroups"], rule
                assert "secrets" not in rule["resources"]


def test_the_read_only_cluster_role_lists_every_kind_and_writes_nothing() -> None:
    role = _by_name("ClusterRole", "kubectl-gpu-read")
    for spec in ALL_KINDS:
        assert _grants(role["rules"], "list", spec.name, spec.group), (
            f"kubectl-gpu-read lacks list {spec.resource}"
        )
    granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted == {(spec.group, spec.name) for spec in ALL_KINDS}  # nothing the commands do not read
    assert {v for rule in role["rules"] for v in rule["verbs"]} <= READ_VERBS


def test_the_debug_role_grants_every_rule_the_preflight_checks() -> None:
    role = _by_name("Role", "kubectl-gpu-debug")
    namespace = _by_name("Namespace", "kubectl-gpu")
    assert role["metadata"]["namespace"] == "kubectl-gpu"
    assert namespace["metadata"]["labels"][PSA_ENFORCE_LABEL] == "privileged"
    needed = {(verb, f"{res}/{sub}" if sub else res) for mode in Mode for verb, res, sub in NEEDED[mode]}
    granted = {(verb, res) for rule in role["rules"] for res in rule["resources"] for verb in rule["verbs"]}
    assert granted == needed  # every rule checked is granted, and nothing else
    assert ("get", "pods/exec") in needed and ("create", "pods/exec") in needed  # WebSocket and SPDY exec
    assert RBAC_MANIFEST == "deploy/rbac/debug.yaml" and (ROOT / RBAC_MANIFEST).exists()


def test_the_debug_cluster_role_reads_nodes_pods_and_namespaces_only() -> None:
    rules = _by_name("ClusterRole", "kubectl-gpu-debug-nodes")["rules"]
    for verb, resource in [("get", "nodes"), ("list", "nodes"), ("list", "pods"), ("get", "namespaces")]:
        assert _grants(rules, verb, resource), (verb, resource)
    assert {v for rule in rules for v in rule["verbs"]} <= READ_VERBS


def test_the_usage_cluster_role_grants_what_collect_reads_and_nothing_else() -> None:
    rules = _by_name("ClusterRole", "kubectl-gpu-usage")["rules"]
    granted = {(verb, res) for rule in rules for res in rule["resources"] for verb in rule["verbs"]}
    assert granted == set(PROXY_RBAC)
    assert all(rule["apiGroups"] == [""] for rule in rules)


def _yaml_blocks(path: Path) -> list[Obj]:
    blocks = re.findall(r"^```yaml\n(.*?)^```", path.read_text(), re.M | re.S)
    return [d for block in blocks for d in yaml.safe_load_all(block) if d and "rules" in d]


def test_docs_rbac_shows_the_rules_of_the_manifests() -> None:
    shown = _yaml_blocks(ROOT / "docs" / "rbac.md")
    assert {(d["kind"], d["metadata"]["name"]) for d in shown} == {
        ("ClusterRole", "kubectl-gpu-read"),
        ("Role", "kubectl-gpu-debug"),
        ("ClusterRole", "kubectl-gpu-debug-nodes"),
        ("ClusterRole", "kubectl-gpu-usage"),
    }
    for doc in shown:
        assert doc["rules"] == _by_name(doc["kind"], doc["metadata"]["name"])["rules"], doc["metadata"][
            "name"
        ]
    text = (ROOT / "docs" / "rbac.md").read_text()
    assert "deploy/rbac/read-only.yaml" in text and "deploy/rbac/debug.yaml" in text
    assert "deploy/rbac/usage.yaml" in text


# --- the preflight against an RBAC evaluator built from the manifests --------------------------------------------


def _evaluator(rules: list[Obj], namespace: str) -> Any:
    """A SelfSubjectAccessReview answer for a subject bound to `rules` in `namespace` (a Role's reach)."""

    def allowed(attrs: dict[str, str]) -> bool:
        if attrs.get("namespace") != namespace:
            return False
        resource = attrs["resource"] + (f"/{attrs['subresource']}" if attrs.get("subresource") else "")
        return _grants(rules, attrs["verb"], resource, attrs.get("group", ""))

    return allowed


@pytest.fixture
def api(kubeconfig: Path) -> Iterator[PodApi]:
    from kubernetes import config

    client = config.new_client_from_config(config_file=str(kubeconfig), context="test")
    client.configuration.retries = False
    try:
        yield PodApi(client, request_timeout=5.0, context="test")
    finally:
        client.close()


def test_with_the_role_the_preflight_passes_only_in_its_namespace(
    apiserver: FakeKubeAPI, api: PodApi
) -> None:
    rules = _by_name("Role", "kubectl-gpu-debug")["rules"]
    apiserver.ssar_allowed = _evaluator(rules, "kubectl-gpu")
    for mode in Mode:
        assert check_access(api, "kubectl-gpu", mode) == []
    with pytest.raises(
        ClusterError, match=r"^missing RBAC in namespace default: create pods, get pods, delete pods"
    ):
        check_access(api, "default", Mode.SMI)


@pytest.mark.parametrize(
    ("verb", "resource", "sub"),
    sorted({entry for mode in Mode for entry in NEEDED[mode]}),
    ids=lambda v: v or "-",
)
def test_without_one_rule_the_preflight_names_it(
    apiserver: FakeKubeAPI, api: PodApi, verb: str, resource: str, sub: str
) -> None:
    full = _by_name("Role", "kubectl-gpu-debug")["rules"]
    name = f"{resource}/{sub}" if sub else resource
    rules = [
        {**rule, "verbs": [v for v in rule["verbs"] if not (v == verb and name in rule["resources"])]}
        for rule in full
    ]
    apiserver.ssar_allowed = _evaluator(rules, "kubectl-gpu")
    mode = Mode.SHELL  # checks every rule SMI checks, and exec
    with pytest.raises(ClusterError) as info:
        check_access(api, "kubectl-gpu", mode)
    assert info.value.message == f"missing RBAC in namespace kubectl-gpu: {verb} {name}"
    assert info.value.hint is not None
    assert f'needs {{apiGroups: [""], resources: [{name}], verbs: [{verb}]}}' in info.value.hint
    assert "deploy/rbac/debug.yaml" in info.value.hint
