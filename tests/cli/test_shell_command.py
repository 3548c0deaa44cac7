"""`kubectl gpu shell NODE -- CMD ARGS...` (issue 41, item 2): one command in the debug pod, as the interactive
shell runs (`kubectl exec`, no shell of ours around it), its stdout and stderr passed through, its exit code
the tool's, and zero debug pods left: on success, on failure, and on a signal (later signals never cut the
delete short).

A stand-in `kubectl` on `KUBECTL_GPU_KUBECTL` checks the pod is Running on the fake API server, records its
command line, then runs the command after `--` here, with the streams it was given, and exits with its code:
what `kubectl exec` does with the remote command's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli.test_debug_signals import WAIT, GatedAPI, Lines
from tests.conftest import Result
from tests.helpers import default_hangup
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import KUBECTL, write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

REPO = Path(__file__).resolve().parents[2]

#: `block` stands for a command still running: it says so (a file) and waits to be killed.
STAND_IN = """\
import json, pathlib, subprocess, sys, time, urllib.request
args = sys.argv[1:]
ns, pod = args[args.index("-n") + 1], args[args.index("-n") + 2]
server = json.load(open(args[args.index("--kubeconfig") + 1]))["clusters"][0]["cluster"]["server"]
live = json.load(urllib.request.urlopen(f"{server}/api/v1/namespaces/{ns}/pods/{pod}"))
record = {"argv": args, "phase": live["status"]["phase"]}
pathlib.Path(sys.argv[0] + ".json").write_text(json.dumps(record))
command = args[args.index("--") + 1:]
if command == ["block"]:
    pathlib.Path(sys.argv[0] + ".running").write_text("")
    time.sleep(600)
sys.exit(subprocess.call(command))
"""


def _stand_in(tmp_path: Path) -> Path:
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!{sys.executable}\n{STAND_IN}")
    fake.chmod(0o755)
    return fake


@dataclass
class Cluster:
    api: FakeKubeAPI
    kubeconfig: Path
    kubelet: SimulatedKubelet | None = None


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(_stand_in(tmp_path)))
    for var in ("KUBECTL_GPU_IMAGE", "KUBECTL_GPU_NEURON_IMAGE"):
        monkeypatch.delenv(var, raising=False)
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        api.add(gpu_node("i-0aaa"))
        yield Cluster(api, write_kubeconfig(tmp_path / "kubeconfig", api.url), kubelet)
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


@pytest.fixture
def run(capfd: pytest.CaptureFixture[str], cluster: Cluster) -> Callable[..., Result]:
    """`kubectl-gpu shell i-0aaa --kubeconfig K -- COMMAND...` in-process, the command's own output (a
    child process writing to file descriptors 1 and 2) captured with ours."""
    from kubectl_gpu.cli.app import main

    def shell(*command: str) -> Result:
        capfd.readouterr()
        with pytest.raises(SystemExit) as info:
            main(["shell", "i-0aaa", "--kubeconfig", str(cluster.kubeconfig), "--", *command])
        captured = capfd.readouterr()
        code = info.value.code
        return Result(code if isinstance(code, int) else 1, captured.out, captured.err)

    return shell


@pytest.mark.parametrize("rc", [0, 3, 42])
def test_the_commands_exit_code_and_output_pass_through(
    run: Callable[..., Result], cluster: Cluster, tmp_path: Path, rc: int
) -> None:
    script = f'echo "out: $1"; echo "err: $2" >&2; exit {rc}'
    result = run("sh", "-c", script, "sh", "one two", "--three")
    assert result.code == rc, result.err
    assert result.out == "out: one two\n"  # stdout is the command's alone
    assert "err: --three" in result.err.splitlines()
    assert "kubectl-gpu: shell on node" not in result.err  # no greeting around a command
    seen = json.loads((tmp_path / "kubectl.json").read_text())
    assert seen["phase"] == "Running"
    argv = seen["argv"]
    assert argv[:4] == ["--kubeconfig", str(cluster.kubeconfig), "--context", "test"]
    assert argv[4:7] == ["exec", "-i", "-n"] and argv[8].startswith("gpu-debug-i-0aaa-")  # no -t: a pipe
    assert argv[9:] == ["-c", "debugger", "--", "sh", "-c", script, "sh", "one two", "--three"]
    assert debug_pods(cluster.api) == []


def test_options_after_the_dashes_belong_to_the_command(run: Callable[..., Result], cluster: Cluster) -> None:
    result = run("echo", "--dry-run", "-n", "x", "--help")
    assert (result.code, result.out) == (0, "--dry-run -n x --help\n"), result.err
    assert debug_pods(cluster.api) == []


def test_a_pod_that_cannot_start_is_the_tools_exit_3(
    run: Callable[..., Result], cluster: Cluster, tmp_path: Path
) -> None:
    """The tool's own failures are its documented codes with one `error:` line; the command never ran."""
    assert cluster.kubelet is not None
    cluster.kubelet.faults["i-0aaa"] = "image-pull"
    result = run("true")
    assert result.code == 3 and result.out == ""
    assert result.err.startswith("error: node i-0aaa: cannot pull image"), result.err
    assert not (tmp_path / "kubectl.json").exists()
    assert debug_pods(cluster.api) == []


def test_a_pod_that_cannot_be_deleted_outranks_the_code_and_keeps_it_in_a_note(
    run: Callable[..., Result], cluster: Cluster
) -> None:
    cluster.api.fault(method="DELETE", path=r"/pods/gpu-debug-", status=403)
    result = run("sh", "-c", "echo done; exit 42")
    assert result.code == 3 and result.out == "done\n", result.err
    lines = result.err.splitlines()
    assert lines[-2] == "note: the command exited 42", lines
    assert lines[-1].startswith("error: could not delete debug pod default/gpu-debug-i-0aaa-"), lines
    cluster.api.clear_faults()
    for name in debug_pods(cluster.api):
        cluster.api.remove("pods", name.split("/")[1], name.split("/")[0])


@pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")
def test_the_real_kubectl_takes_the_command_line(
    run: Callable[..., Result], cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real kubectl accepts `exec ... -- COMMAND ARGS`; the fake server cannot stream, so exec fails
    with kubectl's own status (1), and the pod is deleted all the same."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", KUBECTL)
    result = run("nvidia-smi", "-L")
    assert result.code not in (0, 2, 3, 130), result.err
    exec_requests = [r for r in cluster.api.requests if r.path.endswith("/exec")]
    assert exec_requests and exec_requests[0].query["container"] == "debugger"
    assert exec_requests[0].query.get("command") in ("nvidia-smi", "-L"), exec_requests[0].query
    assert debug_pods(cluster.api) == []


def _spawn(cluster: Cluster, *command: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE") or k == "KUBECTL_GPU_KUBECTL"}
    return subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", "shell", "i-0aaa", "--kubeconfig", str(cluster.kubeconfig),
         "--", *command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env, cwd=REPO,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=default_hangup,
    )  # fmt: skip


@pytest.fixture
def gated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    """A cluster whose first DELETE of a debug pod is held open until `api.gate` opens."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(_stand_in(tmp_path)))
    with GatedAPI() as api, SimulatedKubelet(api, delay=0.02):
        api.add(gpu_node("i-0aaa"))
        try:
            yield Cluster(api, write_kubeconfig(tmp_path / "kubeconfig", api.url))
        finally:
            api.gate.set()


def test_sigterm_while_the_command_runs_deletes_the_pod_whatever_follows(
    gated: Cluster, tmp_path: Path
) -> None:
    """SIGTERM while the command runs: kubectl exec is stopped, the pod deleted; SIGINT and SIGHUP during
    the delete only say so; exit 130, zero pods."""
    api = gated.api
    assert isinstance(api, GatedAPI)
    proc = _spawn(gated, "block")
    assert proc.stderr is not None
    err = Lines(proc.stderr)
    try:
        assert wait_for(lambda: (tmp_path / "kubectl.running").exists(), timeout=WAIT), err.lines
        proc.send_signal(signal.SIGTERM)
        assert api.deleting.wait(WAIT), "no DELETE reached the server"
        assert err.wait_for("interrupted: cleaning up, deleting the debug pod..."), err.lines
        for count, again in enumerate((signal.SIGINT, signal.SIGHUP), start=1):
            proc.send_signal(again)
            assert err.wait_for("interrupted again: still deleting the debug pod", count), err.lines
        assert proc.poll() is None and debug_pods(api), "the delete was cut short"
        api.gate.set()
        assert proc.wait(WAIT) == 130, err.rest()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = err.rest()
    assert lines[-1] == "interrupted", lines
    assert not any("Traceback" in line for line in lines), lines
    assert debug_pods(api) == []


def test_ctrl_c_stops_the_command_and_deletes_the_pod(gated: Cluster, tmp_path: Path) -> None:
    """Ctrl-C on a terminal signals the whole foreground group: kubectl exec dies of it, and the tool, which
    waits on it, deletes the pod and exits 130 (128 + SIGINT, as a shell reports it)."""
    gated.api.gate.set()  # nothing held: this one is about the exit code and the pod
    proc = _spawn(gated, "block")
    try:
        assert wait_for(lambda: (tmp_path / "kubectl.running").exists(), timeout=WAIT)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert out == ""
    assert debug_pods(gated.api) == []
