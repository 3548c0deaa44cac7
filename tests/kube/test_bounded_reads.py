"""Every wait is bounded (issue 12, item 4): a credential plugin that hangs, a server that repeats its
`continue` token, a list that pages on past the command's deadline; and a malformed list is a one-line
cluster error, not an internal one. Hang-prone cases run in a child process with a timeout of their own,
so that a regression fails the test instead of hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_exec_kubeconfig
from tests.kube.kubelet import wait_for

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    return subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _hanging_plugin(tmp_path: Path, api: FakeKubeAPI) -> Path:
    """An https server's (as kubectl, no plugin runs for an http one)."""
    kubeconfig = write_exec_kubeconfig(tmp_path / "kubeconfig", api.url, "unused", ca_pem=api.ca_pem)
    (tmp_path / "kubeconfig-credential.py").write_text("import time\ntime.sleep(600)\n")
    return kubeconfig


@pytest.mark.parametrize("command", [("nodes",), ("smi", "i-0aaa"), ("cleanup",)], ids=lambda c: c[0])
def test_a_hanging_credential_plugin_ends_at_the_request_timeout(
    tls_apiserver: FakeKubeAPI, tmp_path: Path, command: tuple[str, ...]
) -> None:
    kubeconfig = _hanging_plugin(tmp_path, tls_apiserver)
    result = _run(*command, "--kubeconfig", str(kubeconfig), "--request-timeout", "1s")
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: cannot get credentials for context 'test': exec: the credential plugin ")
    assert "did not answer within 1s" in line and "may be waiting for a login" in line, line


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (a container's init may be slow to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


# A wrapper script around the real plugin, as `aws-vault exec ... -- aws eks get-token` wrappers are: the
# shell forks its command (no `exec`), so killing the shell alone leaves the child holding the pipes.
FORKING_PLUGINS = {
    "sh-forks-sleep": "#!/bin/sh\necho $$ > {pids}\nsleep 100000\n",
    "sh-forks-a-background-child": "#!/bin/sh\n(sleep 100000; echo late) &\necho $! > {pids}\nwait\n",
}


@pytest.mark.parametrize("script", list(FORKING_PLUGINS.values()), ids=list(FORKING_PLUGINS))
def test_a_plugin_that_forks_is_ended_with_its_children(
    tls_apiserver: FakeKubeAPI, tmp_path: Path, script: str
) -> None:
    """Issue 21 item 4: the whole process group is killed at the timeout and nothing waits on its pipes:
    before, `sleep` kept the command running (for as long as it slept: here, a day)."""
    import json

    kubeconfig = write_exec_kubeconfig(
        tmp_path / "kubeconfig", tls_apiserver.url, "unused", ca_pem=tls_apiserver.ca_pem
    )
    plugin, pids = tmp_path / "plugin.sh", tmp_path / "pids"
    plugin.write_text(script.format(pids=pids))
    plugin.chmod(0o755)
    config = json.loads(kubeconfig.read_text())
    config["users"][0]["user"]["exec"].update(command=str(plugin), args=[])
    kubeconfig.write_text(json.dumps(config))
    # The child's own timeout is only the suite's guard against a hang: the plugin never answers.
    result = _run("nodes", "--kubeconfig", str(kubeconfig), "--request-timeout", "2s", timeout=300)
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.splitlines()
    assert "the credential plugin plugin.sh did not answer within 2s" in line, line
    pid = int(pids.read_text())
    assert wait_for(lambda: _gone(pid), timeout=60), f"process {pid} the plugin started still runs"


@pytest.mark.parametrize("command", [("nodes",), ("pending",), ("cleanup",)], ids=lambda c: c[0])
def test_a_repeated_continue_token_is_an_error_not_a_loop(
    apiserver: FakeKubeAPI, kubeconfig: Path, command: tuple[str, ...]
) -> None:
    apiserver.repeat_continue_token(r"^/api/v1/(nodes|pods)$")
    result = _run(*command, "--kubeconfig", str(kubeconfig))
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.splitlines()
    assert "sent the same continue token twice" in line and "the list would never end" in line, line


MALFORMED: dict[str, dict[str, Any]] = {
    "items-an-object": {"items": {"a": 1}, "metadata": "x"},
    "metadata-a-string": {"items": [], "metadata": "x"},
    "items-of-strings": {"items": ["n1"], "metadata": {}},
    "continue-a-number": {"items": [], "metadata": {"continue": 7}},
    "no-items": {"kind": "NodeList", "metadata": {}},
}


@pytest.mark.parametrize("body", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_list_is_a_one_line_cluster_error(
    apiserver: FakeKubeAPI, kubeconfig: Path, body: dict[str, Any]
) -> None:
    apiserver.fault(path=r"^/api/v1/nodes$", status=200, body=body)
    result = _run("nodes", "--kubeconfig", str(kubeconfig))  # a number as continue token looped for ever
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.splitlines()
    assert (
        line.startswith("error: the API server at http://127.0.0.1:")
        and "sent a malformed list for nodes (" in line
    )
    assert "internal error" not in line


@pytest.mark.slow
def test_reading_the_cluster_has_an_overall_deadline(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page answers within --request-timeout, but paging on for ever does not: at 10 times it, the
    read is stopped, with what to do."""
    monkeypatch.setattr("kubectl_gpu.kube.live.PAGE_SIZE", 1)
    monkeypatch.setattr("kubectl_gpu.kube.live.PAGE_SIZES", {})
    apiserver.add(node("n1"), *(pod(f"p{i:03d}", "ml") for i in range(60)))
    apiserver.fault(path=r"^/api/v1/pods$", delay=0.1)
    result = cli("pending", "--kubeconfig", str(kubeconfig), "--request-timeout", "300ms")
    assert result.code == 3, result.err
    (line,) = result.err.splitlines()
    assert "reading the cluster from http://127.0.0.1:" in line and "took longer than 3s" in line, line
    assert "raise --request-timeout" in line


def test_each_read_has_its_own_deadline(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """A source kept open (a TUI refreshing every minute) is not out of time for its later reads."""
    from kubectl_gpu.kube.live import LiveOptions, LiveSource

    apiserver.add(node("n1"))
    source = LiveSource(LiveOptions(kubeconfig=str(kubeconfig), request_timeout=0.2))
    first = source.deadline
    source.load(["nodes"])
    source.deadline.clock = lambda: first.clock() + 60  # a minute later: far past 10 x 0.2 s
    assert [n.name for n in source.load(["nodes"])[0].nodes] == ["n1"]
