from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from kubectl_gpu.cli.app import main


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run `kubectl-gpu ARGS` in-process; returns exit code, stdout and stderr."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)

    def run(*args: str) -> Result:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        captured = capsys.readouterr()
        code = info.value.code
        return Result(code if isinstance(code, int) else 1, captured.out, captured.err)

    return run


# The API server fixtures, for end-to-end tests against a live (test) cluster.
from tests.kube.conftest import apiserver, kubeconfig  # noqa: E402, F401
