"""A failing exec credential plugin (an expired `aws sso` login under `aws eks get-token`) is one line of
our own on stderr and exit 3: the kubernetes client only logs the failure, through the root logger."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_exec_kubeconfig

REPO = Path(__file__).resolve().parents[2]


def _failing_plugin_kubeconfig(tmp_path: Path, api: FakeKubeAPI) -> Path:
    """An https server's: as kubectl, no plugin runs for an http one."""
    path = write_exec_kubeconfig(tmp_path / "kubeconfig", api.url, "unused", ca_pem=api.ca_pem)
    plugin = tmp_path / "kubeconfig-credential.py"
    assert json.loads(path.read_text())["users"][0]["user"]["exec"]["args"] == [str(plugin)]
    plugin.write_text(
        "import sys\nsys.stderr.write('Error loading SSO Token: the SSO session has expired\\n')\nsys.exit(255)\n"
    )
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    return subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_failing_exec_plugin_is_one_line_and_exit_3(tls_apiserver: FakeKubeAPI, tmp_path: Path) -> None:
    apiserver = tls_apiserver
    apiserver.require_token = "secret"
    kubeconfig = _failing_plugin_kubeconfig(tmp_path, apiserver)
    result = _run("--kubeconfig", str(kubeconfig), "nodes")
    assert result.returncode == 3, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "ERROR:root" not in result.stderr and "Traceback" not in result.stderr
    # The plugin's own reason reaches the user, not a bare 401 from a request sent without credentials.
    assert "SSO session has expired" in lines[0]
    assert "'test'" in lines[0]
    assert not [r for r in apiserver.requests if r.path.startswith("/api/v1/nodes")]


def test_plugin_failing_when_its_token_expires_is_one_line(
    tls_apiserver: FakeKubeAPI, tmp_path: Path
) -> None:
    """The client re-runs the plugin when the token it gave expires (mid-command, for a long one)."""
    tls_apiserver.require_token = "secret"
    kubeconfig = _failing_plugin_kubeconfig(tmp_path, tls_apiserver)
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {"token": "secret", "expirationTimestamp": "2000-01-01T00:00:00Z"},
    }
    runs = tmp_path / "runs"
    (tmp_path / "kubeconfig-credential.py").write_text(
        "import json, pathlib, sys\n"
        f"runs = pathlib.Path({str(runs)!r})\n"
        "if runs.exists():\n"
        "    sys.stderr.write('token refresh denied\\n')\n"
        "    sys.exit(1)\n"
        "runs.write_text('1')\n"
        f"print(json.dumps({credential!r}))\n"
    )
    result = _run("--kubeconfig", str(kubeconfig), "nodes")
    assert runs.exists()
    assert result.returncode == 3, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "token refresh denied" in result.stderr and "ERROR:root" not in result.stderr


def test_client_errors_logged_by_another_thread_are_not_this_loads() -> None:
    """Fleet mode loads several contexts at once: a plugin failing for one must not fail another."""
    import logging
    import threading

    from kubectl_gpu.kube.credentials import _client_log

    with _client_log() as logged:
        other = threading.Thread(target=logging.error, args=("exec: another context's plugin failed",))
        other.start()
        other.join()
        logging.error("exec: this context's plugin failed")
    assert logged == ["exec: this context's plugin failed"]
