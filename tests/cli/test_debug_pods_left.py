"""No debug pod is left behind silently (issue 12, item 3), end to end: real signals sent to a real
`kubectl-gpu smi` process (a third signal during cleanup, while DELETEs fail), an outage of the API while
deleting, and deletes that cannot succeed. Each test counts the debug pods left on the server: zero, or a
non-zero exit whose line names them and gives the exact `kubectl gpu cleanup` command, which then works."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.helpers import default_hangup
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
DELETES = r"/pods/gpu-debug-"


@pytest.fixture
def cluster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[FakeKubeAPI, SimulatedKubelet, Path]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        api.add(gpu_node("i-0aaa"))
        yield api, kubelet, write_kubeconfig(tmp_path / "kubeconfig", api.url)


def _spawn(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    return subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *args, "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
        preexec_fn=default_hangup,
    )  # fmt: skip


def _cleanup_line(err: str) -> list[str]:
    """The `kubectl gpu cleanup ...` command an error line ends with, as argv after `kubectl gpu`."""
    command = err.strip().splitlines()[-1].split("delete with: ", 1)[1]
    argv = shlex.split(command)
    assert argv[:3] == ["kubectl", "gpu", "cleanup"], command
    return argv[2:]


def _waiting(api: FakeKubeAPI) -> bool:
    return any(r.method == "GET" and "/pods/gpu-debug-" in r.path for r in list(api.requests))


def _deleting(api: FakeKubeAPI) -> bool:
    return any(r.method == "DELETE" for r in list(api.requests))


@pytest.mark.slow
def test_a_third_signal_during_cleanup_does_not_skip_it(
    cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path], tmp_path: Path
) -> None:
    """Ctrl-C, then Ctrl-C and SIGTERM and SIGHUP while the API refuses the deletes for a while: the
    process keeps deleting through the outage, says so, and ends with zero pods and exit 130."""
    api, kubelet, kubeconfig = cluster
    kubelet.faults["i-0aaa"] = "never-starts"
    api.fault(method="DELETE", path=DELETES, status=503, seconds=2.0)
    proc = _spawn(kubeconfig, tmp_path, "smi", "i-0aaa")
    try:
        assert wait_for(lambda: _waiting(api), timeout=30), "the pod was never polled"
        proc.send_signal(signal.SIGINT)
        assert wait_for(lambda: _deleting(api), timeout=30), "no delete was sent"
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            time.sleep(0.1)
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted again: still deleting debug pods" in err
    assert err.splitlines()[-1] == "interrupted: debug pods deleted", err
    assert debug_pods(api) == []


def test_interrupted_with_a_pod_that_cannot_be_deleted_names_it(
    cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path], tmp_path: Path, cli: Cli
) -> None:
    api, kubelet, kubeconfig = cluster
    kubelet.faults["i-0aaa"] = "never-starts"
    api.fault(method="DELETE", path=DELETES, status=403)
    proc = _spawn(kubeconfig, tmp_path, "smi", "i-0aaa")
    try:
        assert wait_for(lambda: _waiting(api), timeout=30)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    (left,) = debug_pods(api)
    last = err.splitlines()[-1]
    assert last.startswith(f"interrupted: could not delete debug pod {left} (403 Forbidden"), last
    api.clear_faults()
    done = cli(*_cleanup_line(err))
    assert done.code == 0, done.err
    assert debug_pods(api) == []


def test_smi_exits_3_naming_a_pod_it_could_not_delete(
    cli: Cli, cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path]
) -> None:
    api, _, kubeconfig = cluster
    api.fault(method="DELETE", path=DELETES, status=403)
    result = cli("smi", "i-0aaa", "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    (left,) = debug_pods(api)
    assert "NVIDIA L4" in result.out  # the results are still shown
    last = result.err.splitlines()[-1]
    assert last.startswith(f"error: could not delete debug pod {left} (403 Forbidden"), last
    argv = _cleanup_line(result.err)
    assert argv == [
        "cleanup",
        "--kubeconfig",
        str(kubeconfig),
        "--context",
        "test",
        "-n",
        "default",
        "--yes",
        left.split("/")[1],
    ]
    api.clear_faults()
    assert cli(*argv).code == 0 and debug_pods(api) == []


def test_shell_exits_3_naming_a_pod_it_could_not_delete(
    cli: Cli,
    cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api, _, kubeconfig = cluster
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(fake))
    api.fault(method="DELETE", path=DELETES, status=403)
    result = cli("shell", "i-0aaa", "--kubeconfig", str(kubeconfig))
    assert result.code == 3, result.err
    assert "could not delete debug pod default/gpu-debug-i-0aaa-" in result.err.splitlines()[-1]
    api.clear_faults()
    assert cli(*_cleanup_line(result.err)).code == 0 and debug_pods(api) == []


def test_snapshot_probe_writes_the_bundle_then_exits_3_for_a_pod_left(
    cli: Cli, cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path], tmp_path: Path
) -> None:
    api, _, kubeconfig = cluster
    api.fault(method="DELETE", path=DELETES, status=403)
    bundle = tmp_path / "bundle.json"
    result = cli("snapshot", "--probe", "--out", str(bundle), "--kubeconfig", str(kubeconfig))
    assert result.code == 3 and bundle.exists(), result.err
    assert "could not delete debug pod default/gpu-debug-i-0aaa-" in result.err.splitlines()[-1]
    api.clear_faults()
    assert cli(*_cleanup_line(result.err)).code == 0 and debug_pods(api) == []


@pytest.mark.slow
def test_smi_deletes_through_an_api_outage(
    cli: Cli, cluster: tuple[FakeKubeAPI, SimulatedKubelet, Path]
) -> None:
    api, _, kubeconfig = cluster
    api.fault(method="DELETE", path=DELETES, status=503, seconds=1.5)
    result = cli("smi", "i-0aaa", "--kubeconfig", str(kubeconfig))
    assert result.code == 0, result.err
    assert debug_pods(api) == []
