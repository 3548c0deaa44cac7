"""`smi` on a node a snapshot holds no probe of: data missing, not a node failing (issue 41, point 6)."""

from __future__ import annotations

from kubectl_gpu.cli.debug.smi import _exit_code
from kubectl_gpu.core.analyses.smi.analysis import SmiResult
from kubectl_gpu.core.errors import ExitCode

MISSING = SmiResult(
    "i-0cpu", None, None, error="node i-0cpu: the snapshot holds no nvidia-smi output", missing=True
)
FAILED = SmiResult("i-0bad", None, None, error="node i-0bad: the debug pod failed")
FINE = SmiResult("i-0ok", "request", None)


def test_a_node_without_a_probe_is_could_not_look() -> None:
    assert _exit_code([MISSING]) == ExitCode.INCOMPLETE == 4
    assert _exit_code([FINE, MISSING]) == ExitCode.INCOMPLETE


def test_a_failed_node_outranks_missing_data() -> None:
    assert _exit_code([MISSING, FAILED]) == ExitCode.CLUSTER
    assert _exit_code([FINE]) == ExitCode.OK
