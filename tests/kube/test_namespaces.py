"""`kube.namespaces`: whether a namespace exists, live (one GET against the suite's API server: 200, 404,
403, a 500, nothing listening) and in a snapshot (an object in it, or none)."""

from __future__ import annotations

from pathlib import Path

from kubectl_gpu.kube.namespaces import NamespaceCheck, namespace_check, namespace_status, namespaces_in
from kubectl_gpu.kube.source import ClusterSource, SourceOptions, open_source
from tests.kube.apiserver import DEFAULT_NAMESPACES, FakeKubeAPI
from tests.kube.conftest import CLOSED_PORT_SERVER, write_kubeconfig

DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"


def _live(kubeconfig: Path, timeout: float = 5.0) -> ClusterSource:
    return open_source(SourceOptions(kubeconfig=str(kubeconfig), request_timeout=timeout))


def test_live_exists_and_missing(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    source = _live(kubeconfig)
    assert namespace_status(source, DEFAULT_NAMESPACES[0]) == "exists"
    assert namespace_status(source, "nosuch") == "missing"
    asked = [r for r in apiserver.requests if r.path.startswith("/api/v1/namespaces/")]
    assert [(r.method, r.path) for r in asked] == [
        ("GET", "/api/v1/namespaces/default"),
        ("GET", "/api/v1/namespaces/nosuch"),
    ]


def test_live_forbidden_or_failing_is_unknown_and_says_why(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    source = _live(kubeconfig)
    apiserver.fault(path=r"^/api/v1/namespaces/ml$", status=403)
    check = namespace_check(source, "ml")
    assert check.status == "unknown" and check.why is not None
    assert check.why.startswith('could not check namespace "ml": 403')
    apiserver.fault(path=r"^/api/v1/namespaces/broken$", status=500)
    assert namespace_status(source, "broken") == "unknown"


def test_live_unreachable_is_unknown(tmp_path: Path) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", CLOSED_PORT_SERVER)
    check = namespace_check(_live(kubeconfig, timeout=2.0), "ml")
    assert check.status == "unknown" and check.why and "could not check" in check.why


def test_a_snapshot_knows_the_namespaces_of_its_objects() -> None:
    source = open_source(SourceOptions(snapshot=(str(DEMO),)))
    state = source.load()
    assert {"default", "ml", "serving", "inference"} <= namespaces_in(state)
    assert namespace_check(source, "ml", state) == NamespaceCheck("ml", "exists")
    assert namespace_status(source, "nosuch") == "missing"  # loads the source itself without a state
