"""Issue 36 items 3-4 through the CLI: kubectl's connection flags, `-n` checked as kubectl checks it, the
kubeconfig refusals as exit 2, `--debug` naming the resolved connection, and the debug-pod path connecting
exactly as kubectl does (the same identity headers on the wire)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.cli.debug.common import cleanup_command, kubectl_flags
from kubectl_gpu.cli.options import GlobalOptions
from tests.conftest import Result
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import CLOSED_PORT_SERVER, KUBECTL
from tests.kube.wire import RecordedRequest

Cli = Callable[..., Result]
TOKEN = "flag-token-0123456789"
needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")


def _kubeconfig(
    path: Path, api: FakeKubeAPI, user: dict[str, Any], cluster: dict[str, Any] | None = None
) -> Path:
    body: dict[str, Any] = {"server": api.url, **(cluster or {})}
    if api.ca_pem:
        body["certificate-authority-data"] = base64.b64encode(api.ca_pem).decode()
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "c", "cluster": body},
                    {"name": "closed", "cluster": {"server": CLOSED_PORT_SERVER}},
                ],
                "users": [{"name": "u", "user": user}],
                "contexts": [
                    {"name": "test", "context": {"cluster": "c", "user": "u"}},
                    {"name": "other", "context": {"cluster": "closed", "user": "u"}},
                ],
                "current-context": "test",
            }
        )
    )
    return path


@pytest.fixture
def tls_api() -> Iterator[FakeKubeAPI]:
    with FakeKubeAPI(tls=True) as api:
        api.add(node("n1"))
        yield api


def _identity(request: RecordedRequest) -> list[tuple[str, str]]:
    lines = [(k, v) for k, v in request.header_lines if k.lower().startswith("impersonate-")]
    return sorted(
        lines + [("Authorization", v) for k, v in request.header_lines if k.lower() == "authorization"]
    )


def _pod_lists(api: FakeKubeAPI) -> list[RecordedRequest]:
    return [r for r in api.requests if r.method == "GET" and r.path.endswith("/pods")]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nodes", "-n", "a/../x"], "error: invalid namespace \"a/../x\": [may not contain '/']"),
        (["-n", "..", "nodes"], "error: invalid namespace \"..\": [may not be '..']"),
        (["smi", "i-0aaa", "-n", "Team_A"], 'error: invalid namespace "Team_A": [a lowercase RFC 1123 label'),
        (
            ["cleanup", "-n", "x" * 64],
            'error: invalid namespace "' + "x" * 64 + '": [must be no more than 63',
        ),
        (
            ["nodes", "--snapshot", "nowhere.json", "-n", "a%b"],
            "error: invalid namespace \"a%b\": [may not contain '%']",
        ),
    ],
)
def test_an_invalid_namespace_is_exit_2_before_anything_is_read(cli: Cli, args: list[str], said: str) -> None:
    result = cli(*args, "--kubeconfig", os.devnull)
    assert result.code == 2, result.err
    (line,) = result.err.splitlines()
    assert line.startswith(said), line


def test_a_kubeconfig_with_a_ca_and_insecure_is_exit_2(
    cli: Cli, tls_api: FakeKubeAPI, tmp_path: Path
) -> None:
    kubeconfig = _kubeconfig(
        tmp_path / "kubeconfig", tls_api, {"token": TOKEN}, {"insecure-skip-tls-verify": True}
    )
    for command in ("nodes", "cleanup"):
        result = cli(command, "--kubeconfig", str(kubeconfig))
        assert result.code == 2, result.err
        (line,) = result.err.splitlines()
        assert line.startswith(
            "error: specifying a root certificates file with the insecure flag is not allowed; "
        )
    assert not tls_api.requests
    ca = tmp_path / "ca.pem"
    ca.write_bytes(tls_api.ca_pem or b"")
    fixed = cli("cleanup", "--kubeconfig", str(kubeconfig), "--certificate-authority", str(ca))
    assert fixed.code == 0, fixed.err


@needs_kubectl
def test_the_debug_pod_path_connects_as_kubectl_does(cli: Cli, tls_api: FakeKubeAPI, tmp_path: Path) -> None:
    """`cleanup` (the debug pods' connection) with kubectl's identity flags, before and after the command:
    the pod list carries what `kubectl get pods` carries with the same flags."""
    user = {"token": "kubeconfig-token-1", "as": "carol", "as-user-extra": {"reason": ["debug"]}}
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", tls_api, user)
    flags = ["--as", "alice", "--as-group", "gpu-admins", "--as-uid", "u-7", "--token", TOKEN]
    result = cli("--as-group", "ml", "cleanup", "-A", "--kubeconfig", str(kubeconfig), *flags)
    assert result.code == 0, result.err
    (ours,) = _pod_lists(tls_api)
    tls_api.requests.clear()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")} | {"HOME": str(tmp_path)}
    theirs = subprocess.run(
        [
            KUBECTL,
            "--kubeconfig",
            str(kubeconfig),
            "--cache-dir",
            str(tmp_path / "cache"),
            "get",
            "pods",
            "-A",
            "--as-group",
            "ml",
            *flags,
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert theirs.returncode == 0, theirs.stderr
    (kubectls,) = _pod_lists(tls_api)
    assert _identity(ours) == _identity(kubectls)
    assert ("Impersonate-Group", "ml") in _identity(ours) and (
        "Impersonate-Group",
        "gpu-admins",
    ) in _identity(ours)
    assert ("Authorization", f"Bearer {TOKEN}") in _identity(ours)


def test_debug_shows_the_resolved_connection_without_credentials(
    cli: Cli, tls_api: FakeKubeAPI, tmp_path: Path
) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", tls_api, {"token": "kubeconfig-token-1"})
    result = cli(
        "cleanup", "--debug", "--kubeconfig", str(kubeconfig), "--token", TOKEN, "--as", "alice", "-n", "ml"
    )
    assert result.code == 0, result.err
    shown = [line for line in result.err.splitlines() if line.startswith("debug: connection: ")]
    text = "\n".join(shown)
    assert f"context 'test': cluster 'c', server {tls_api.url}" in text
    assert "user 'u': bearer token (--token)" in text and "impersonating: 'alice'" in text
    assert "TLS: verified against inline data" in text and "namespace: ml (from -n)" in text
    assert TOKEN not in result.err + result.out and "kubeconfig-token-1" not in result.err


def test_a_token_is_not_sent_over_http_and_a_warning_says_so(cli: Cli, tmp_path: Path) -> None:
    with FakeKubeAPI() as api:
        kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api, {"token": "kubeconfig-token-1"})
        result = cli("cleanup", "--kubeconfig", str(kubeconfig), "--token", TOKEN)
        assert result.code == 0, result.err
        assert all("authorization" not in r.headers for r in api.requests)
        url = api.url
    (warning,) = result.err.splitlines()
    said = "the token of user 'u' is not sent (as kubectl, credentials go over TLS only)"
    assert warning == f"warning: {url} is not https: {said}"


def test_fleet_mode_refuses_flags_that_pin_one_cluster(cli: Cli, tmp_path: Path) -> None:
    with FakeKubeAPI() as api:
        kubeconfig = _kubeconfig(tmp_path / "kubeconfig", api, {})
        result = cli("nodes", "--contexts", "test,other", "--kubeconfig", str(kubeconfig), "-s", api.url)
        assert result.code == 2, result.err
        assert result.err.startswith(
            "error: -s/--server and --contexts/--all-contexts: fleet mode reads each"
        )
        assert not api.requests
        impersonating = cli(
            "nodes", "--all-contexts", "--kubeconfig", str(kubeconfig), "--as", "alice", "-o", "json"
        )
        assert impersonating.code != 2, impersonating.err


def test_kubectl_is_handed_the_same_flags_and_a_printed_line_no_token() -> None:
    """A kubectl we run gets our connection flags, the token too (`token=True`: `shell`'s `kubectl exec`);
    a command line printed for the user (the cleanup line, --dry-run's `kubectl debug`) never the token."""
    opts = GlobalOptions(
        kubeconfig="/k", server="https://h:6443", token=TOKEN, as_user="alice", as_group=("a", "b"),
        insecure_skip_tls_verify=True, tls_server_name="api.internal",
    )  # fmt: skip
    shown = [
        "--kubeconfig", "/k", "--context", "ctx", "--server", "https://h:6443",
        "--tls-server-name", "api.internal", "--as", "alice", "--as-group", "a", "--as-group", "b",
        "--insecure-skip-tls-verify",
    ]  # fmt: skip
    assert kubectl_flags(opts, "ctx") == shown
    assert kubectl_flags(opts, "ctx", token=True) == [*shown[:6], "--token", TOKEN, *shown[6:]]
    line = cleanup_command(opts, "ctx", "ml", ["p1"])
    assert TOKEN not in line and "--token" not in line and "--as alice" in line


def test_dry_run_prints_the_flags_but_not_the_token(cli: Cli, tls_api: FakeKubeAPI, tmp_path: Path) -> None:
    from tests.kube.kubelet import gpu_node

    tls_api.add(gpu_node("i-0aaa"))
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", tls_api, {})
    result = cli(
        "smi", "i-0aaa", "--dry-run", "--kubeconfig", str(kubeconfig), "--token", TOKEN, "--as", "alice"
    )
    assert result.code == 0, result.err
    assert "--as alice" in result.out and "debug node/i-0aaa" in result.out
    assert TOKEN not in result.out + result.err


def test_the_read_only_commands_connect_with_the_flags(
    cli: Cli, tls_api: FakeKubeAPI, tmp_path: Path
) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", tls_api, {"token": "kubeconfig-token-1"})
    result = cli("nodes", "--kubeconfig", str(kubeconfig), "--as", "alice", "--token", TOKEN, "-o", "json")
    assert result.code == 0, result.err
    (request,) = [r for r in tls_api.requests if r.path == "/api/v1/nodes"]
    assert ("Impersonate-User", "alice") in _identity(request)
    assert ("Authorization", f"Bearer {TOKEN}") in _identity(request)
