"""Ctrl-C while the CLI starts (typer, rich and kubernetes take a few hundred ms to import) is
`interrupted` and exit 130, never a traceback: the entry point imports almost nothing itself."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.core.errors import caused_by_interrupt
from tests.conftest import Result

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "automode-gpu-demo.json"
DELAYS = (0.02, 0.03, 0.04, 0.06, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.4)
# Python's own start-up (site and its .pth files, runpy finding the module: some 20 ms) is before any code
# of ours runs: Python prints a KeyboardInterrupt there itself, or the default SIGINT action ends the process.
# Once our code runs, a traceback would have a frame of our entry point or of the package.
_OUR_FRAME = re.compile(r'kubectl_gpu/__main__\.py", line \d+, in main|kubectl_gpu/(cli|core|kube|render)/')


def _interrupted_after(delay: float, sig: signal.Signals = signal.SIGINT) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "kubectl_gpu", "nodes", "--snapshot", str(DEMO)]
    with subprocess.Popen(
        cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        time.sleep(delay)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _python_still_starting(
    result: subprocess.CompletedProcess[str], sig: signal.Signals = signal.SIGINT
) -> bool:
    if result.returncode == -sig and not result.stderr:
        return True
    return result.stderr.rstrip().endswith("KeyboardInterrupt") and not _OUR_FRAME.search(result.stderr)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_during_start_up_is_interrupted_not_a_traceback(sig: signal.Signals) -> None:
    """Ctrl-C, and SIGTERM or SIGHUP (a supervisor, a closed terminal) before any handler of the debug
    commands exists: `interrupted` and 130, as later on; never a traceback, nor a silent kill."""
    interrupted = 0
    for delay in DELAYS:
        result = _interrupted_after(delay, sig)
        if result.returncode == 0 or _python_still_starting(result, sig):
            continue  # finished before the signal came, or Python had not reached our code yet
        assert (result.returncode, result.stderr) == (130, "interrupted\n"), f"{sig.name} after {delay}s"
        interrupted += 1
    assert interrupted >= len(DELAYS) // 2


def test_console_script_is_the_light_entry_point() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {
        "kubectl-gpu": "kubectl_gpu.__main__:main",
        "kubectl_complete-gpu": "kubectl_gpu.cli.completion:kubectl_complete",  # tests/cli/test_completion.py
    }
    for module in ("kubectl_gpu.__main__", "kubectl_gpu.cli.completion"):
        probe = f"import sys, {module}\nprint(','.join(sorted(sys.modules)))"
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
        loaded = {m.split(".")[0] for m in out.strip().split(",")}
        assert not loaded & {"typer", "rich", "kubernetes", "yaml", "orjson"}, module


def test_interrupt_wrapped_by_python_is_still_an_interrupt(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in a dataclass's `__set_name__` (a lazy import mid-command) arrives as a RuntimeError."""

    def load(paths: object, **options: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on '_HAS_DEFAULT_FACTORY_CLASS'") from exc

    monkeypatch.setattr("kubectl_gpu.kube.snapshot.load_snapshot", load)
    result = cli("nodes", "--snapshot", str(DEMO))
    assert (result.code, result.err) == (130, "interrupted\n")


def test_caused_by_interrupt() -> None:
    assert caused_by_interrupt(KeyboardInterrupt())
    assert not caused_by_interrupt(RuntimeError("x"))
    looped = ValueError("a")
    looped.__context__ = TypeError("b")
    looped.__context__.__context__ = looped
    assert not caused_by_interrupt(looped)
