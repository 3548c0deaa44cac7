"""Smaller holes of issue 12, item 8: names from the command line or the API stay in their path segment or
field-selector value; an empty Pod Security `enforce` label is read as Kubernetes reads it (restricted);
`smi NODE --dry-run` for a node that is not there is an error, as without --dry-run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node

Cli = Callable[..., Result]


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeKubeAPI, Path]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02):
        api.add(gpu_node("i-0aaa"))
        yield api, write_kubeconfig(tmp_path / "kubeconfig", api.url)
        assert debug_pods(api) == []


def test_a_node_name_cannot_reach_another_path(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    """`i-0aaa/status` unescaped is the status subresource of node i-0aaa: the debug pod would go there."""
    api, kubeconfig = cluster
    for name in ("i-0aaa/status", "../namespaces/kube-system"):
        result = cli("smi", name, "--dry-run", "--kubeconfig", str(kubeconfig))
        assert result.code == 3 and result.out == "", (result.out, result.err)
        assert result.err == f"error: node {name} not found\n"
    node_gets = [r.path for r in api.requests if r.path.startswith("/api/v1/nodes/")]
    assert node_gets == ["/api/v1/nodes/i-0aaa%2Fstatus", "/api/v1/nodes/..%2Fnamespaces%2Fkube-system"]


def test_a_node_name_never_reaches_a_field_selector_unescaped(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path]
) -> None:
    """A name as a hostile (or broken) server may send it: one field-selector value, commas escaped."""
    api, kubeconfig = cluster
    api.remove("nodes", "i-0aaa")
    api.add(gpu_node("i-0aaa,metadata.namespace=kube-system"))
    result = cli("smi", "--all", "--dry-run", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    selectors = [r.query.get("fieldSelector") for r in api.requests if r.path == "/api/v1/pods"]
    assert selectors == ["spec.nodeName=i-0aaa\\,metadata.namespace\\=kube-system"]


def test_a_namespace_stays_one_path_segment(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    """-n that is no path segment is refused before anything is read, in kubectl's words (issue 36); one
    that is a segment but no namespace name is refused too (the API server would never have it)."""
    api, kubeconfig = cluster
    api.fault(path=r"^/api/v1/pods$", status=403)
    result = cli("pending", "-n", "ml/../../nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 2, result.err
    assert result.err.startswith('error: invalid namespace "ml/../../nodes": [may not contain \'/\']')
    assert not api.requests
    result = cli("pending", "-n", "ML", "--kubeconfig", str(kubeconfig))
    assert result.code == 2 and 'invalid namespace "ML": [a lowercase RFC 1123 label' in result.err


def test_smi_dry_run_of_a_missing_node_is_an_error(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    _, kubeconfig = cluster
    result = cli("smi", "nope", "--dry-run", "--kubeconfig", str(kubeconfig))
    assert (result.code, result.out, result.err) == (3, "", "error: node nope not found\n")
    both = cli("smi", "i-0aaa", "nope", "--dry-run", "--kubeconfig", str(kubeconfig))
    assert both.code == 3 and "node/i-0aaa" in both.out and both.err == "error: node nope not found\n"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("", "'', which is no level, so restricted"),
        ("Privileged", "'Privileged', which is no level, so restricted"),
        ("baseline", "level 'baseline'"),
    ],
)
def test_an_enforce_label_that_is_no_level_is_restricted(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path], value: str, shown: str
) -> None:
    api, kubeconfig = cluster
    api.add(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "ops", "labels": {"pod-security.kubernetes.io/enforce": value}},
        }
    )
    result = cli("smi", "i-0aaa", "-n", "ops", "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    assert f"namespace ops enforces Pod Security {shown} (pod-security.kubernetes.io/enforce)" in result.err
    assert not [r for r in api.requests if r.method == "POST" and r.path.endswith("/pods")]
