"""The process exits without freeing the loaded snapshot (kubectl_gpu.__main__._exit_now,
kube.heap.keep_until_exit), and loses no output doing so."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from kubectl_gpu.__main__ import _exit_now
from kubectl_gpu.kube.heap import keep_until_exit

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "automode-gpu-demo.json"


class _Thing:
    pass


def test_whole_output_is_written_before_the_fast_exit() -> None:
    for command, code in ((["nodes"], 0), (["pending"], 1)):
        proc = subprocess.run(
            [sys.executable, "-m", "kubectl_gpu", *command, "--snapshot", str(DEMO), "-o", "json"],
            capture_output=True,
            cwd=ROOT,
            check=False,
        )
        assert proc.returncode == code, proc.stderr
        assert json.loads(proc.stdout)["apiVersion"] == "kubectl-gpu/v1"


def test_usual_exit_when_something_wants_the_shutdown() -> None:
    # pytest registers atexit work (and may trace): the usual SystemExit, with the code, never os._exit.
    with pytest.raises(SystemExit) as exc:
        _exit_now(3)
    assert exc.value.code == 3


def test_only_the_latest_state_is_kept() -> None:
    first, second = _Thing(), _Thing()
    gone = weakref.ref(first)
    keep_until_exit(first)
    del first
    gc.collect()
    assert gone() is not None  # held until the process ends
    keep_until_exit(second)
    gc.collect()
    assert gone() is None  # a second command in one process lets the first go
