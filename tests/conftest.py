"""Fixtures every test gets: a home and a kubeconfig of its own, and the CLI run in-process.

Nothing on the developer's machine leaks in: `HOME` is a fresh directory (so `~/.kube/config` and
`~/.config/kubectl-gpu` do not exist) and `KUBECONFIG`, `NO_COLOR` and the tool's own variables are unset.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# A suite started in the background of a script (`.ci/run &`, as a CI runner may start it) inherits SIGINT
# ignored: POSIX has a non-interactive shell's asynchronous commands ignore it, and an ignored signal stays
# ignored in every process spawned after. kubectl-gpu started that way rightly takes no Ctrl-C, and the tests
# that press it, on a child or in-process, would wait on a process that never answers. So the suite's
# processes (pytest, its workers, whatever they spawn) start from Python's default, as from a terminal.
# SIGHUP stays as it came (the suite may run under nohup): tests that send it reset it in the child only
# (`tests.helpers.default_hangup`).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# scripts/check runs the suite on pytest-xdist workers, often on a loaded machine, where wall-clock limits
# only measure the neighbours: no per-example deadline and no too-slow health check for any property test.
# What each property asserts, and how many examples it tries, is unchanged.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

_LEAKY = (
    "KUBECONFIG",
    "NO_COLOR",
    "KUBECTL_GPU_IMAGE",
    "KUBECTL_GPU_NEURON_IMAGE",
    "KUBECTL_GPU_CONFIG",
    "KUBECTL_GPU_MAX_SNAPSHOT_BYTES",
)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for name in _LEAKY:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def _no_remembered_secrets() -> Iterator[None]:
    """Credentials remembered by one in-process run (kube.secret_text) are not scrubbed from the next."""
    yield
    from kubectl_gpu.kube.secret_text import forget_all

    forget_all()


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run `kubectl-gpu ARGS` in-process; returns exit code, stdout and stderr."""
    from kubectl_gpu.cli.app import main

    def run(*args: str) -> Result:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        captured = capsys.readouterr()
        code = info.value.code
        return Result(code if isinstance(code, int) else 1, captured.out, captured.err)

    return run
