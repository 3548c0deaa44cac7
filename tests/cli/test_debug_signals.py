"""Ctrl-C, then more signals, while a debug pod is being deleted (issue 36, item 5): CI cancelling a job sends
SIGINT, then SIGTERM moments later. A second or third signal (SIGINT, SIGTERM, SIGHUP) never cuts the delete
short: the process says it is cleaning up, finishes the delete, and exits 130 with zero pods left.

Real signals to a real `kubectl-gpu smi` / `shell` process against the fake API server, whose DELETE of a
debug pod is held open (`GatedAPI`) so that the later signals land while it is in flight: each step waits on
what the server saw or what the process said, never on a time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.conftest import Result
from tests.helpers import default_hangup
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
DEBUG_POD = "/pods/gpu-debug-"
WAIT = 60.0  # an upper bound for a step that fails the test, never a margin a passing run depends on


class GatedAPI(FakeKubeAPI):
    """The first `held` DELETEs of a debug pod wait, once the server has them (`deleting` is set), until
    `gate` opens; later ones are answered at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = threading.Event()
        self.deleting = threading.Event()
        self.held = 1
        self._held_lock = threading.Lock()

    def handle(self, method: str, path: str, *rest: Any) -> Any:
        if method == "DELETE" and DEBUG_POD in path:
            with self._held_lock:
                hold = self.held > 0
                self.held -= 1
            if hold:
                self.deleting.set()
                self.gate.wait(WAIT * 2)
        return super().handle(method, path, *rest)


class Lines:
    """A stream read line by line on a thread, for a test to wait on what the process says."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self.ended = False  # the process closed stderr: it exited (or died)
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for(self, text: str, times: int = 1) -> bool:
        """Whether `text` has been said `times` times: waits until it is, or until the process has ended."""

        def said() -> bool:
            return sum(text in line for line in self.lines) >= times

        with self._changed:
            return self._changed.wait_for(lambda: said() or self.ended, WAIT) and said()

    def rest(self) -> list[str]:
        self._thread.join(WAIT)
        return list(self.lines)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[GatedAPI, Path]]:
    with GatedAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        api.add(gpu_node("i-0aaa"))
        kubelet.faults["i-0aaa"] = "never-starts"  # the pod stays Pending until it is deleted
        try:
            yield api, write_kubeconfig(tmp_path / "kubeconfig", api.url)
        finally:
            api.gate.set()  # no handler left waiting


def _spawn(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    fake = tmp_path / "kubectl"  # `shell` needs a kubectl binary; it never gets to run it here
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path), "KUBECTL_GPU_KUBECTL": str(fake)}
    return subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *args, "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
        cwd=REPO, preexec_fn=default_hangup,
    )  # fmt: skip


def _polled(api: FakeKubeAPI) -> bool:
    return any(r.method == "GET" and DEBUG_POD in r.path for r in list(api.requests))


#: command -> (what the first signal says, what each later one says, the last line)
SAID = {
    "smi": ("interrupted: deleting debug pods...", "interrupted again: still deleting debug pods",
            "interrupted: debug pods deleted"),
    "shell": ("interrupted: cleaning up, deleting the debug pod...",
              "interrupted again: still deleting the debug pod", "interrupted"),
}  # fmt: skip


@pytest.mark.parametrize("first", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
@pytest.mark.parametrize("command", ["smi", "shell"])
def test_later_signals_never_cut_the_delete_short(
    cluster: tuple[GatedAPI, Path], tmp_path: Path, command: str, first: signal.Signals
) -> None:
    api, kubeconfig = cluster
    first_said, again_said, last_said = SAID[command]
    proc = _spawn(kubeconfig, tmp_path, command, "i-0aaa")
    assert proc.stderr is not None
    err = Lines(proc.stderr)
    try:
        assert wait_for(lambda: _polled(api), timeout=WAIT), "never polled"
        assert debug_pods(api), "no pod was created"
        proc.send_signal(first)
        assert api.deleting.wait(WAIT), "no DELETE reached the server"
        assert err.wait_for(first_said), err.lines
        for count, again in enumerate((signal.SIGTERM, signal.SIGINT, signal.SIGHUP), start=1):
            proc.send_signal(again)  # while the DELETE is held open
            assert err.wait_for(again_said, count), (proc.poll(), err.lines)
        assert proc.poll() is None and debug_pods(api), "the delete was cut short"
        api.gate.set()
        assert proc.wait(WAIT) == 130, err.rest()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = err.rest()
    assert lines[-1] == last_said, lines
    assert not any("Traceback" in line for line in lines), lines
    assert debug_pods(api) == []


def test_sigkill_during_the_delete_leaves_a_pod_cleanup_finds(
    cluster: tuple[GatedAPI, Path], tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What no process can survive (SIGKILL) leaves the pod; `kubectl gpu cleanup` finds it as left behind
    (its creator is gone) and deletes it."""
    api, kubeconfig = cluster
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    proc = _spawn(kubeconfig, tmp_path, "smi", "i-0aaa")
    try:
        assert wait_for(lambda: _polled(api), timeout=WAIT), "never polled"
        proc.send_signal(signal.SIGINT)
        assert api.deleting.wait(WAIT), "no DELETE reached the server"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(WAIT) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (left,) = debug_pods(api)  # the held DELETE never went through
    listed = cli("cleanup", "--kubeconfig", str(kubeconfig))
    assert listed.code == 1 and left.split("/")[1] in listed.out, listed.out + listed.err
    done = cli("cleanup", "--yes", "--kubeconfig", str(kubeconfig))
    assert done.code == 0, done.err
    assert debug_pods(api) == []
