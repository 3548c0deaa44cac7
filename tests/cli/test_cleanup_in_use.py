"""Issue 21 item 3: `cleanup --yes` removes debug pods left behind, never someone's live `smi` or `shell`.

Left behind: finished, past its deadline, or its creator provably gone (the process named in the pod's
`kubectl-gpu/creator` annotation no longer runs on this host). The live cases use a real `kubectl-gpu smi`
child process: its pod is kept while it runs, and removed once it was killed without a chance to delete it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.debugpod import DebugPodSpec, Mode, build_debug_pod
from kubectl_gpu.core.debugpod.leftover import CREATOR_ANNOTATION, Creator, creator_value
from kubectl_gpu.kube.debug.runner.creator import this_creator
from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeKubeAPI, Path]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        kubelet.faults["i-0aaa"] = "never-starts"
        api.add(gpu_node("i-0aaa"))
        yield api, write_kubeconfig(tmp_path / "kubeconfig", api.url)


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(
    suffix: str,
    *,
    mode: Mode = Mode.SHELL,
    creator: Creator | None = None,
    phase: str = "Running",
    age: timedelta = timedelta(seconds=3),
    deadline: int = 4 * 3600,
) -> dict[str, Any]:
    spec = DebugPodSpec(
        "i-0aaa", "reg.example/debug:1", suffix, ("sh",), mode=mode, active_deadline_seconds=deadline,
        creator=creator_value(creator) if creator else None,
    )  # fmt: skip
    obj = build_debug_pod(spec)
    started = _stamp(datetime.now(UTC) - age)
    obj["metadata"]["creationTimestamp"] = started
    obj["status"] = {"phase": phase, "startTime": started}
    return obj


def _gone_pid() -> Creator:
    """A creator on this host that provably ended: a child process that ran and was reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return Creator(this_creator().host, child.pid, "1")


def test_live_pods_are_kept_and_left_behind_ones_removed(cli: Cli, cluster: tuple[FakeKubeAPI, Path]) -> None:
    api, kubeconfig = cluster
    api.add(
        _pod("bcdfg", creator=this_creator()),  # a shell of a process that runs (this one), 3 s old
        _pod("hjklm", mode=Mode.SMI, creator=Creator("laptop-of-someone", 4242, "9")),  # another machine
        _pod("npqrs", mode=Mode.SMI),  # no creator recorded (an older version), in its deadline
        _pod("tvwxz", mode=Mode.SMI, creator=_gone_pid()),  # its creator is gone
        _pod("bbbbb", mode=Mode.SMI, phase="Failed"),  # finished
        _pod("ccccc", mode=Mode.SMI, age=timedelta(minutes=10), deadline=300),  # past its deadline
    )
    args = ("--kubeconfig", str(kubeconfig))
    listed = cli("cleanup", *args)
    assert listed.code == 1 and "not deleting 3 debug pods without --yes" in listed.err, listed.err
    assert "in use: Running, its creator pid" in listed.out and "left behind: finished (Failed)" in listed.out
    done = cli("cleanup", "--yes", "-o", "json", *args)
    assert done.code == 0, done.err
    document = json.loads(done.out)
    assert sorted(document["deleted"]) == [
        "default/gpu-debug-i-0aaa-bbbbb",
        "default/gpu-debug-i-0aaa-ccccc",
        "default/gpu-debug-i-0aaa-tvwxz",
    ]
    assert [item.split(":")[0] for item in document["inUse"]] == [
        "default/gpu-debug-i-0aaa-bcdfg",
        "default/gpu-debug-i-0aaa-hjklm",
        "default/gpu-debug-i-0aaa-npqrs",
    ]
    assert "cannot tell from here" in document["inUse"][1]
    assert len(debug_pods(api)) == 3
    again = cli("cleanup", "--yes", *args)
    assert again.code == 0 and "No debug pods left behind (3 in use, kept)." in again.out, again.out
    # Named, a pod in use is deleted (the line smi and shell print for a pod they could not delete)...
    named = cli("cleanup", "--yes", "gpu-debug-i-0aaa-hjklm", *args)
    assert named.code == 0 and "deleted default/gpu-debug-i-0aaa-hjklm" in named.out, named.err
    # ...and --force deletes every one.
    forced = cli("cleanup", "--yes", "--force", *args)
    assert forced.code == 0 and debug_pods(api) == [], forced.err


def _spawn(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    return subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *args, "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip


def _created_by(api: FakeKubeAPI, pid: int) -> bool:
    return any(
        f"pid={pid} " in (p["metadata"].get("annotations") or {}).get(CREATOR_ANNOTATION, "")
        for p in api.objects("pods")
    )


def test_a_running_smi_keeps_its_pod_until_it_is_killed(
    cli: Cli, cluster: tuple[FakeKubeAPI, Path], tmp_path: Path
) -> None:
    api, kubeconfig = cluster
    proc = _spawn(kubeconfig, tmp_path, "smi", "i-0aaa", "--timeout", "10m")
    try:
        assert wait_for(lambda: _created_by(api, proc.pid), timeout=60), "smi created no pod"
        (pod,) = debug_pods(api)
        kept = cli("cleanup", "--yes", "--kubeconfig", str(kubeconfig))
        assert kept.code == 0 and f"not deleting {pod}: in use" in kept.err, kept.err
        assert debug_pods(api) == [pod] and proc.poll() is None
        proc.send_signal(signal.SIGKILL)  # no chance to delete its pod
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    done = cli("cleanup", "--yes", "--kubeconfig", str(kubeconfig))
    assert done.code == 0 and f"deleted {pod}" in done.out, done.out + done.err
    assert debug_pods(api) == []
