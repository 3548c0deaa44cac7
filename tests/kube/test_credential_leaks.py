"""Credentials never reach a message, a warning or a traceback (issue 12, item 1).

Every path a credential travels is tried: a `tokenFile` written with its final newline (trimmed, as
kubectl does), a token no header can carry (one line, exit 3, the token nowhere, not even with
`--debug`), an exec plugin's token, a password in the server URL, a kubeconfig YAML error on a token's
line, and an unexpected error whose text happens to hold the token (the net in `cli.app.main`).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_exec_kubeconfig

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
TOKEN = "k8s-aws-v1.c2VjcmV0LXRva2VuLXZhbHVl"


def _kubeconfig(path: Path, server: str, user: dict[str, Any], ca_pem: bytes | None = None) -> Path:
    """`ca_pem`: the TLS server's certificate (credentials go to an https server only, as kubectl's)."""
    cluster: dict[str, Any] = {"server": server}
    if ca_pem is not None:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "test", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "test",
    }
    path.write_text(json.dumps(doc))
    return path


def _token_file(tmp_path: Path, api: FakeKubeAPI, content: str) -> Path:
    token = tmp_path / "token"
    token.write_text(content)
    return _kubeconfig(tmp_path / "kubeconfig", api.url, {"tokenFile": str(token)}, api.ca_pem)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """A real process: what the user's terminal would show, tracebacks included."""
    return subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", *args],
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_token_file_with_a_final_newline_is_trimmed_as_kubectl_does(
    cli: Cli, tls_apiserver: FakeKubeAPI, tmp_path: Path
) -> None:
    tls_apiserver.require_token = TOKEN
    tls_apiserver.add(node("n1"))
    kubeconfig = _token_file(tmp_path, tls_apiserver, f"{TOKEN}\n")
    result = cli("nodes", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.code == 0, result.err
    sent = {r.headers.get("authorization") for r in tls_apiserver.requests}
    assert sent == {f"Bearer {TOKEN}"}


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_a_token_no_header_can_carry_is_one_line_and_never_printed(
    tls_apiserver: FakeKubeAPI, tmp_path: Path, debug: bool
) -> None:
    kubeconfig = _token_file(tmp_path, tls_apiserver, f"{TOKEN[:12]}\n{TOKEN[12:]}\n")
    result = _run("nodes", "--kubeconfig", str(kubeconfig), *(["--debug"] if debug else []))
    assert result.returncode == 3, result.stderr
    for part in (TOKEN[:12], TOKEN[12:]):
        assert part not in result.stderr and part not in result.stdout
    last = result.stderr.splitlines()[-1]
    assert last.startswith("error: the credentials of context 'test' cannot be sent"), result.stderr
    assert "internal error" not in result.stderr
    if not debug:
        assert len(result.stderr.splitlines()) == 1, result.stderr


def test_exec_plugin_token_with_a_newline_is_trimmed(
    cli: Cli, tls_apiserver: FakeKubeAPI, tmp_path: Path
) -> None:
    tls_apiserver.require_token = TOKEN
    tls_apiserver.add(node("n1"))
    kubeconfig = write_exec_kubeconfig(
        tmp_path / "kubeconfig", tls_apiserver.url, f"{TOKEN}\n", ca_pem=tls_apiserver.ca_pem
    )
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert TOKEN not in result.err + result.out


def test_an_error_holding_the_token_is_scrubbed(
    cli: Cli, tls_apiserver: FakeKubeAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The net under every message: an unexpected error quoting the token prints it redacted."""
    tls_apiserver.require_token = TOKEN
    kubeconfig = _token_file(tmp_path, tls_apiserver, TOKEN)

    def fetch(self: object, kinds: object = None) -> None:
        raise RuntimeError(f"boom while sending Authorization: Bearer {TOKEN}")

    monkeypatch.setattr("kubectl_gpu.kube.live.LiveSource.fetch", fetch)
    for extra in ((), ("--debug",)):
        result = cli("nodes", "--kubeconfig", str(kubeconfig), *extra)
        assert result.code == 3
        assert TOKEN not in result.err and "Authorization: <redacted>" in result.err, result.err


def test_a_password_in_the_server_url_is_not_printed(cli: Cli, tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", "http://admin:hunter22@127.0.0.1:1", {})
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 3 and "hunter22" not in result.err, result.err
    assert "cannot connect to the API server at http://<redacted>@127.0.0.1:1" in result.err


def test_a_kubeconfig_yaml_error_does_not_quote_the_line(cli: Cli, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(f"apiVersion: v1\nusers:\n- name: u\n  user:\n    token: {TOKEN}: x\n")
    result = cli("nodes", "--kubeconfig", str(kubeconfig))
    assert result.code == 2, result.err
    assert TOKEN not in result.err and result.err.startswith("error: malformed kubeconfig at line 5"), (
        result.err
    )


def test_a_failing_plugin_says_what_failed_not_rejected_credentials(
    tls_apiserver: FakeKubeAPI, tmp_path: Path
) -> None:
    """Wording (item 5): the plugin failed; the server never saw, let alone rejected, a credential."""
    apiserver = tls_apiserver
    kubeconfig = write_exec_kubeconfig(
        tmp_path / "kubeconfig", apiserver.url, "unused", ca_pem=apiserver.ca_pem
    )
    (tmp_path / "kubeconfig-credential.py").write_text(
        "import sys\nsys.stderr.write('no SSO session\\n')\nsys.exit(1)\n"
    )
    for command in (("nodes",), ("smi", "i-0aaa"), ("cleanup",)):
        result = _run(*command, "--kubeconfig", str(kubeconfig))
        assert result.returncode == 3, result.stderr
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: cannot get credentials for context 'test': exec: "), line
        assert "no SSO session" in line and "rejected" not in line and "RBAC" not in line, line
    assert not [r for r in apiserver.requests if r.path.startswith("/api/v1/")]
