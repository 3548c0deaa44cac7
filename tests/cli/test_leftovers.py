"""Input errors found late (issue 8, item 10): each is exit 2 and one line naming the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "automode-gpu-demo.json"


def _one_line_error(result: Result, code: int, *needles: str) -> None:
    assert result.code == code, result.err
    assert len(result.err.splitlines()) == 1, result.err
    assert result.err.startswith("error: ") and "Traceback" not in result.err
    for needle in needles:
        assert needle in result.err


# --- smi --from-file: a file that is not nvidia-smi output ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        DEMO.read_text(),  # a snapshot bundle: its probes hold collector output, JSON-escaped
        json.dumps({"log": "===KUBECTL-GPU:COLLECTOR=== started\n"}),
        "grep found ===KUBECTL-GPU:COLLECTOR in the pod log\n",
    ],
    ids=["snapshot-bundle", "json-with-marker", "log-line-with-marker"],
)
def test_smi_from_file_not_smi_output_is_bad_input(cli: Cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "not-smi.txt"
    path.write_text(text)
    result = cli("smi", "--from-file", str(path))
    _one_line_error(result, 2, str(path))
