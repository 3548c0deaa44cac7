"""One line per failure, what failed then what to do, with the hint that fits the cause (issue 12, item 5):
an HTML page from a load balancer is named by its title, never pasted; 401 asks for fresh credentials and
5xx points at the control plane, in `smi` and `cleanup` as in the read-only commands (neither suggests
RBAC); 403 does; 429 with Retry-After is waited out a bounded number of times."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kubectl_gpu.kube.transport import RETRY_LIMIT
from tests.conftest import Result
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for
from tests.kube.webserver import BAD_GATEWAY_PAGE

Cli = Callable[..., Result]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[FakeKubeAPI, Path]]:
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02):
        api.add(gpu_node("i-0aaa"))
        yield api, write_kubeconfig(tmp_path / "kubeconfig", api.url)
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


def _line(result: Result) -> str:
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    return lines[0]


def test_an_html_502_is_named_not_pasted(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/nodes$", status=502, raw=BAD_GATEWAY_PAGE, content_type="text/html")
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 3
    line = _line(result)
    assert "answered 502 Bad Gateway: an HTML page titled '502 Bad Gateway'" in line, line
    assert "<" not in line and "awselb" not in line
    assert "the control plane, or a proxy or load balancer in front of it, failed" in line


SMI = ("smi", "i-0aaa")
CLEANUP = ("cleanup",)
# (command, the request to fail)
WHERE = {"smi": (SMI, "GET", r"^/api/v1/nodes/i-0aaa$"), "cleanup": (CLEANUP, "GET", r"^/api/v1/pods$")}


@pytest.mark.parametrize("command", list(WHERE))
@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, "unauthorized: the API server at"),
        (503, "answered 503 ServiceUnavailable"),
        (500, "answered 500 InternalError"),
    ],
)
def test_debug_commands_give_the_hint_of_the_cause(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path], command: str, status: int, expected: str
) -> None:
    api, kubeconfig = cluster
    args, method, path = WHERE[command]
    api.fault(method=method, path=path, status=status)
    result = cli(*args, "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    line = _line(result)
    assert expected in line and "RBAC" not in line, line
    if status == 401:
        assert "refresh them (for EKS: aws eks update-kubeconfig" in line
    else:
        assert "retry, and check the cluster's health" in line


@pytest.mark.parametrize("command", list(WHERE))
def test_a_403_does_suggest_rbac(cli: Cli, cluster: tuple[FakeKubeAPI, Path], command: str) -> None:
    api, kubeconfig = cluster
    args, method, path = WHERE[command]
    api.fault(method=method, path=path, status=403)
    line = _line(cli(*args, "--kubeconfig", str(kubeconfig)))
    assert "forbidden" in line and "you need RBAC" in line, line


def test_429_with_retry_after_is_waited_out(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/nodes$", status=429, headers={"Retry-After": "0"}, times=2)
    result = cli("nodes", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.code == 0, result.err
    assert sum(r.path == "/api/v1/nodes" for r in apiserver.requests) == 3


def test_a_503_with_retry_after_is_retried_too(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/nodes$", status=503, headers={"Retry-After": "0"}, times=1)
    assert cli("nodes", "--kubeconfig", str(kubeconfig)).code == 0


def test_endless_429_gives_up_after_bounded_retries(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.fault(path=r"^/api/v1/nodes$", status=429, headers={"Retry-After": "0"})
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 3
    assert sum(r.path == "/api/v1/nodes" for r in apiserver.requests) == RETRY_LIMIT + 1
    line = _line(result)
    assert "answered 429 TooManyRequests" in line and "shedding load" in line, line


def test_429_without_retry_after_is_not_retried(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """As client-go: only a server that says when to come back is asked again."""
    apiserver.fault(path=r"^/api/v1/nodes$", status=429)
    assert cli("nodes", "--kubeconfig", str(kubeconfig)).code == 3
    assert sum(r.path == "/api/v1/nodes" for r in apiserver.requests) == 1
