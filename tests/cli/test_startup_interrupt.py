"""Ctrl-C while the CLI starts (typer, rich and kubernetes take a few hundred ms to import) is
`interrupted` and exit 130, never a traceback: the entry point imports almost nothing itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.core.errors import caused_by_interrupt
from tests.conftest import Result
from tests.helpers import default_hangup

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "automode-gpu-demo.json"
#: Points of the start-up, in the order it reaches them, and the command line that reaches them: the signal
#: is sent while the process is held at the import of each (a gate, below), not after a guessed delay. A
#: busy machine only makes the wait longer. A plain command line is answered without typer (cli.direct);
#: `--all=true` makes it typer's.
PLAIN = ("nodes", "--snapshot", str(DEMO))
TYPERS = ("nodes", "--all=true", "--snapshot", str(DEMO))
GATES = (
    ("kubectl_gpu.cli", PLAIN),  # the first import of main(): nothing of ours loaded yet but the entry point
    ("kubectl_gpu.cli.direct", PLAIN),
    ("kubectl_gpu.cli.exits", PLAIN),
    ("kubectl_gpu.cli.app", TYPERS),
    ("typer", TYPERS),
    ("rich.console", PLAIN),
    ("rich.console", TYPERS),
    ("kubectl_gpu.cli.nodes", PLAIN),
    ("kubectl_gpu.cli.nodes", TYPERS),
    ("kubectl_gpu.kube.snapshot", PLAIN),  # the command runs
    ("kubectl_gpu.core.analyses.nodes", PLAIN),
    ("kubectl_gpu.core.analyses.nodes", TYPERS),
)
#: Run in the child before `python -m kubectl_gpu` (runpy, as -m does): when `GATE` is first imported, say
#: so on the `ready` pipe and wait on the `go` pipe. The signal interrupts that wait, inside the import,
#: exactly where a Ctrl-C at that moment would land; if nothing raises, the parent's closing `go` ends it.
_CHILD = """
import importlib.abc, os, runpy, sys
ready, go, gate = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
class Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == gate:
            sys.meta_path.remove(self)
            os.write(ready, b"r")
            os.close(ready)
            os.read(go, 1)
        return None
sys.meta_path.insert(0, Gate())
sys.argv = ["kubectl-gpu", *sys.argv[4:]]
runpy.run_module("kubectl_gpu", run_name="__main__", alter_sys=True)
"""


def _interrupted_at(gate: str, argv: tuple[str, ...], sig: signal.Signals) -> subprocess.CompletedProcess[str]:
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    cmd = [sys.executable, "-c", _CHILD, str(ready_w), str(go_r), gate, *argv]
    with subprocess.Popen(
        cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        pass_fds=(ready_w, go_r), preexec_fn=default_hangup,
    ) as proc:  # fmt: skip
        os.close(ready_w)
        os.close(go_r)
        try:
            reached = os.read(ready_r, 1) == b"r"  # b"": the child ended without importing `gate`
            if reached:
                proc.send_signal(sig)
        finally:
            os.close(ready_r)
            os.close(go_w)
        out, err = proc.communicate(timeout=120)
    assert reached, f"{gate} was never imported: {err}"
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@pytest.mark.parametrize(("gate", "argv"), GATES, ids=[f"{g}-{'plain' if a == PLAIN else 'typer'}" for g, a in GATES])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_during_start_up_is_interrupted_not_a_traceback(
    sig: signal.Signals, gate: str, argv: tuple[str, ...]
) -> None:
    """Ctrl-C, and SIGTERM or SIGHUP (a supervisor, a closed terminal) before any handler of the debug
    commands exists: `interrupted` and 130, as later on; never a traceback, nor a silent kill. Each case
    holds the start-up at one import and signals it there: no wall-clock margin (issue 21, item 8)."""
    result = _interrupted_at(gate, argv, sig)
    assert (result.returncode, result.stderr) == (130, "interrupted\n"), (gate, sig.name, result.stderr)


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
