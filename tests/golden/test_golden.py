"""Every command's JSON on the demo bundle and on the bench S cluster, byte for byte.

The architecture move (issue 8) must not change a single byte of what runbooks parse. The outputs were
captured from main before the move; `UPDATE_GOLDEN=1 pytest tests/golden` rewrites them when a change to
an output is intended (say so in the commit). Demo outputs are kept whole, so a diff shows what changed;
the bench S outputs (megabytes) are kept as sha256 digests of a bundle generated from a fixed seed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DEMO = str(ROOT / "examples" / "automode-gpu-demo.json")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

Cli = Callable[..., Result]

# name -> arguments (the snapshot and -o json are added). Every read-only command, with its main options.
DEMO_CASES: dict[str, list[str]] = {
    "nodes": ["nodes"],
    "nodes-all": ["nodes", "--all"],
    "nodes-selector": ["nodes", "-l", "eks.amazonaws.com/nodeclass=gpu"],
    "pending": ["pending"],
    "pending-all": ["pending", "--all-pending"],
    "pending-ns": ["pending", "-n", "ml"],
    "explain-toleration": ["explain", "default/chat-api-7d9f8c6b5d-x2k4p"],
    "explain-limit": ["explain", "ml/pretrain-8x-h100-1"],
    "drivers": ["drivers"],
    "nvme": ["nvme"],
    "lifecycle": ["lifecycle"],
    "lifecycle-needs": ["lifecycle", "--pod", "ml/pretrain-8x-h100-0", "--needs", "11d"],
    "lint": ["lint"],
    "lint-warning": ["lint", "--fail-on", "warning"],
    "cost": ["cost"],
    "inventory": ["inventory"],
    "diagnose": ["diagnose"],
    "diagnose-warning": ["diagnose", "--fail-on", "warning"],
    "diagnose-only": ["diagnose", "--only", "pending,drivers"],
    "smi": ["smi", "--all"],
    "nodes-yaml": ["nodes", "-o", "yaml"],
}
BENCH_CASES: dict[str, list[str]] = {
    "nodes": ["nodes"],
    "pending": ["pending", "-A"],
    "drivers": ["drivers"],
    "nvme": ["nvme"],
    "lifecycle": ["lifecycle"],
    "lint": ["lint"],
    "cost": ["cost"],
    "inventory": ["inventory"],
    "diagnose": ["diagnose"],
}


def _argv(args: list[str], snapshot: str) -> list[str]:
    has_format = "-o" in args
    return [*args, "--snapshot", snapshot, *([] if has_format else ["-o", "json"])]


def _check(path: Path, result: Result) -> None:
    actual = {"exit": result.code, "stderr": result.err, "stdout": result.out}
    if UPDATE:
        path.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n")
        return
    expected = json.loads(path.read_text())
    assert result.code == expected["exit"], result.err
    assert result.err == expected["stderr"]
    assert result.out == expected["stdout"]


@pytest.mark.parametrize("name", sorted(DEMO_CASES))
def test_demo_output_is_unchanged(name: str, cli: Cli) -> None:
    result = cli(*_argv(DEMO_CASES[name], DEMO))
    _check(HERE / "demo" / f"{name}.json", result)


@pytest.fixture(scope="module")
def bench_s(tmp_path_factory: pytest.TempPathFactory) -> str:
    sys.path.insert(0, str(ROOT / "bench"))
    from generate import SIZES, generate  # type: ignore[import-not-found]

    nodes, pods = SIZES["S"]
    out = tmp_path_factory.mktemp("bench") / "cluster-S.json"
    generate(nodes, pods, out, seed=7)
    return str(out)


@pytest.mark.slow
@pytest.mark.xdist_group("golden-bench")  # one worker: one bench bundle, one writer of bench-s.json
@pytest.mark.parametrize("name", sorted(BENCH_CASES))
def test_bench_s_output_is_unchanged(name: str, cli: Cli, bench_s: str) -> None:
    result = cli(*_argv(BENCH_CASES[name], bench_s))
    digests_file = HERE / "bench-s.json"
    digests = json.loads(digests_file.read_text()) if digests_file.exists() else {}
    actual = {
        "exit": result.code,
        "stderr": result.err.replace(bench_s, "<bundle>"),
        "stdout_sha256": hashlib.sha256(result.out.encode()).hexdigest(),
        "stdout_bytes": len(result.out.encode()),
    }
    if UPDATE:
        digests[name] = actual
        digests_file.write_text(json.dumps(dict(sorted(digests.items())), indent=1) + "\n")
        return
    assert actual == digests[name]
