"""A kubeconfig that points at something else than a Kubernetes API server is an error, never an all-clear
(issue 12, item 2): a web server's 404 page, its welcome page, a proxy's JSON 404, and an API server that
answers 404 for a core kind are each one line and exit 3 for every read-only command and for the debug
commands. An absent CRD stays absent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.webserver import NOT_FOUND_PAGE, PROXY_404_JSON, WELCOME_PAGE, PlainWebServer

Cli = Callable[..., Result]

READ_ONLY = (
    ("diagnose",),
    ("pending",),
    ("nodes",),
    ("inventory",),
    ("lint",),
    ("drivers",),
    ("nvme",),
    ("lifecycle",),
    ("cost",),
    ("snapshot", "--out", "{tmp}/bundle.json"),
)
DEBUG = (("smi", "i-0aaa"), ("cleanup",), ("shell", "i-0aaa"))
SERVERS = {
    "nginx-404": (404, NOT_FOUND_PAGE, "text/html"),
    "nginx-welcome": (200, WELCOME_PAGE, "text/html"),
    "proxy-json-404": (404, PROXY_404_JSON, "application/json"),
}


@pytest.fixture(params=list(SERVERS), scope="module")
def web(request: pytest.FixtureRequest) -> Iterator[PlainWebServer]:
    status, body, content_type = SERVERS[request.param]
    with PlainWebServer(status, body, content_type) as server:
        yield server


def _one_line(result: Result) -> str:
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    return lines[0]


@pytest.mark.parametrize("command", READ_ONLY + DEBUG, ids=lambda c: c[0])
def test_a_web_server_is_not_a_cluster(
    cli: Cli, web: PlainWebServer, tmp_path: Path, command: tuple[str, ...]
) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", web.url)
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = cli(*args, "--kubeconfig", str(kubeconfig))
    assert result.code == 3, (result.out, result.err)
    line = _one_line(result)
    assert line.startswith(f"error: {web.url} is not a Kubernetes API server: GET /version answered"), line
    assert "<" not in line and "check the server URL of context 'test'" in line
    assert "No findings" not in result.out and not (tmp_path / "bundle.json").exists()


@pytest.mark.parametrize(
    "command", [("pending",), ("nodes",), ("diagnose",), ("inventory",)], ids=lambda c: c[0]
)
def test_a_404_on_a_core_kind_is_an_error_not_an_absent_crd(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, command: tuple[str, ...]
) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/(pods|nodes)$", status=404)
    result = cli(*command, "--kubeconfig", str(kubeconfig))
    assert result.code == 3, (result.out, result.err)
    line = _one_line(result)
    assert "does not serve /api/v1/" in line and "(404 for a core kind)" in line, line


def test_an_html_404_on_a_crd_is_an_error_a_status_404_is_absent(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(node("n1"))
    absent = cli("lint", "--kubeconfig", str(kubeconfig))
    assert absent.code == 0, absent.err  # the CRDs are not installed: nothing to lint
    # /apis serves the group (else its lists are not asked for); a proxy answers them with its own page
    apiserver.install_crds("nodepools.karpenter.sh", "nodeclaims.karpenter.sh")
    apiserver.fault(path=r"^/apis/karpenter\.sh/", status=404, raw=NOT_FOUND_PAGE, content_type="text/html")
    result = cli("lint", "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    assert "HTML page titled '404 Not Found'" in _one_line(result)


def test_an_html_404_on_the_group_discovery_is_an_error(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/apis$", status=404, raw=NOT_FOUND_PAGE, content_type="text/html")
    result = cli("lint", "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    assert "HTML page titled '404 Not Found'" in _one_line(result)


def test_a_real_api_server_is_proven_once_per_command(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(node("n1"))
    assert cli("nodes", "--kubeconfig", str(kubeconfig)).code == 0
    paths = [r.path for r in apiserver.requests]
    assert paths.count("/version") == 1 and paths.count("/api") == 1


def test_version_forbidden_by_rbac_still_proves_an_api_server(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """Some clusters take /version away from users; a Status 403 is an API server's own answer."""
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/version$", status=403)
    assert cli("nodes", "--kubeconfig", str(kubeconfig)).code == 0
