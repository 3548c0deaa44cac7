"""docs/runbooks.md: every step runs on the demo bundle with the exit code it states, names findings the output
really has, and the scripted runbook works as written.

Each `kubectl gpu ...` line of a ```sh block is run (in-process) with `--snapshot examples/automode-gpu-demo.json`
appended; its comment states `exit N`, which must be the exit code, and every finding code it names (an
UPPER_SNAKE word) must be in the output. The "In a script" block runs in bash with a `kubectl` that sends
`kubectl gpu` to the installed kubectl-gpu on the demo bundle."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

ROOT = Path(__file__).resolve().parent.parent
RUNBOOKS = ROOT / "docs" / "runbooks.md"
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
TITLES = [
    "1. A GPU pod is Pending",
    '2. A node lost a GPU (XID, ECC, "GPU is lost")',
    "3. CUDA errors after an AMI rollout",
    "4. A training job is at risk of being disrupted",
    "5. The local NVMe cache is not used",
]


def _blocks() -> list[tuple[str, str]]:
    """(section title, block text) of every ```sh block."""
    text = RUNBOOKS.read_text()
    out = []
    for match in re.finditer(r"^```sh\n(.*?)^```", text, re.M | re.S):
        titles = re.findall(r"^## (.+)$", text[: match.start()], re.M)
        out.append((titles[-1] if titles else "", match.group(1)))
    return out


def _steps() -> list[tuple[str, str]]:
    return [
        (title, line)
        for title, block in _blocks()
        if title != "In a script"
        for line in block.splitlines()
        if line.startswith("kubectl gpu ")
    ]


STEPS = _steps()


def test_the_five_runbooks_are_there_and_each_has_steps() -> None:
    titles = re.findall(r"^## (.+)$", RUNBOOKS.read_text(), re.M)
    assert titles == [*TITLES, "In a script"]
    assert {title for title, _ in STEPS} == set(TITLES)
    assert all(line.startswith("kubectl gpu ") for _, block in _blocks()[:-1] for line in block.splitlines())


@pytest.mark.parametrize(("title", "line"), STEPS, ids=[line.split("#")[0].strip() for _, line in STEPS])
def test_each_step_runs_on_the_demo_with_the_exit_code_it_states(
    cli: Callable[..., Result], title: str, line: str
) -> None:
    command, _, comment = line.partition("#")
    stated = re.match(r"\s*exit (\d+)\b", comment)
    assert stated, f"{line!r}: the comment must start with 'exit N'"
    words = shlex.split(command)
    if ">" in words:  # a redirection: the output goes to a file in the runbook, here we read it
        words = words[: words.index(">")]
    result = cli(*words[2:], "--snapshot", str(DEMO))
    assert result.code == int(stated.group(1)), (
        f"{title}: {command.strip()}: exit {result.code}\n{result.err}"
    )
    for code in re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", comment):
        assert code in result.out + result.err, f"{command.strip()}: {code} is not in its output"
    for name in re.findall(r"\b(i-[0-9a-f]{17}|nodeclass/\w+)\b", comment):
        assert name.split("/")[-1] in result.out, f"{command.strip()}: {name} is not in its output"


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_the_scripted_runbook(tmp_path: Path) -> None:
    (script,) = [block for title, block in _blocks() if title == "In a script"]
    kubectl_gpu = Path(sys.executable).parent / "kubectl-gpu"
    shim = f'kubectl() {{ [ "$1" = gpu ] && shift && "{kubectl_gpu}" "$@" --snapshot "{DEMO}"; }}\n'
    done = subprocess.run(
        ["bash", "-c", shim + script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert "ACCELERATED_HARDWARE_NOT_READY Node/i-04b975f2935588ecc" in lines
    assert "REQUIREMENT_CONFLICT Pod/batch-spot" in lines
    assert (tmp_path / "diagnose.json").exists()
