"""`kubectl gpu usage` on windows whose texts hold NaN, infinities, 1e308, figures out of range and a
counter below 0 (issue 36, item 2): exit 0 with a note, in a table and in JSON, never "internal error"
(before: exit 3, OverflowError), never a negative rate or cost. The bundle is the usage scenario
(tests/scenarios/usage/ours__usage-window.json) with its exporter's second read and vLLM's middle read
replaced by the hostile texts of tests/core/usage/ours/ (README.md there)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]
ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "tests" / "scenarios" / "usage" / "ours__usage-window.json"
OURS = ROOT / "tests" / "core" / "usage" / "ours"
PAIRS = [
    ("ours__dcgm-t4-nonfinite.txt", "ours__vllm-nonfinite-counter.txt"),
    ("ours__dcgm-t4-nonfinite.txt", "ours__vllm-infinite-counter.txt"),
    ("ours__dcgm-t4-out-of-range.txt", "ours__vllm-absurd-counter.txt"),
    ("ours__dcgm-t4-out-of-range.txt", "ours__vllm-negative-counter.txt"),
    ("ours__dcgm-t4-nonfinite.txt", "ours__vllm-two-series-1e308.txt"),
]


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


@pytest.mark.parametrize(("dcgm", "vllm"), PAIRS, ids=[f"{d[6:-4]}+{v[6:-4]}" for d, v in PAIRS])
def test_hostile_values_are_a_note_never_an_internal_error(
    cli: Cli, tmp_path: Path, dcgm: str, vllm: str
) -> None:
    bundle = json.loads(SCENARIO.read_text())
    scrapes = bundle["usage"]["scrapes"]
    exporter = [s for s in scrapes if s["pod"] == "nvidia-dcgm-exporter-aaaaa"]
    server = [s for s in scrapes if s["pod"].startswith("vllm-")]
    exporter[-1]["text"] = (OURS / dcgm).read_text()
    server[1]["text"] = (OURS / vllm).read_text()
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(bundle))
    table = cli("usage", "--snapshot", str(path))
    assert table.code == 0, table.err
    assert "internal error" not in table.err and "were not believed" in table.err
    result = cli("usage", "--snapshot", str(path), "-o", "json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert all(
        n >= 0 for n in _numbers({k: doc[k] for k in ("totals", "inference", "nodes", "pods", "gpus")})
    )
    (row,) = [r for r in doc["inference"] if r["name"] == "vllm"]
    assert row["outputTokensPerSecond"] is None or row["outputTokensPerSecond"] >= 0


def test_the_reviews_overflow_on_the_demo_is_exit_0(cli: Cli, tmp_path: Path) -> None:
    """The demo's vLLM server whose last read holds two series of its token counter at 1e308: before, exit 3
    "internal error: OverflowError: intermediate overflow in fsum"; a negative counter gave -0.333 tokens/s."""
    demo = json.loads((ROOT / "examples" / "automode-gpu-demo.json").read_text())
    for hostile in ("ours__vllm-two-series-1e308.txt", "ours__vllm-negative-counter.txt"):
        bundle = json.loads(json.dumps(demo))
        [s for s in bundle["usage"]["scrapes"] if s["pod"].startswith("vllm-qwen32b")][-1]["text"] = (
            OURS / hostile
        ).read_text()
        path = tmp_path / "demo.json"
        path.write_text(json.dumps(bundle))
        result = cli("usage", "--snapshot", str(path), "-o", "json")
        assert result.code == 0, result.err
        rows = {r["name"]: r for r in json.loads(result.out)["inference"]}
        assert rows["vllm-qwen32b"]["outputTokensPerSecond"] is None  # one good read left: unknown
        assert rows["vllm-qwen32b"]["usdPerMillionOutputTokens"] is None
        assert rows["vllm-l40s"]["outputTokensPerSecond"] == 96.0  # the others as before
