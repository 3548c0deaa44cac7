"""bench/table.py: issue 38's table as bench/README.md writes it, from what each bench prints (its JSON keys
as the benches write them; the figures are arbitrary)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
table = load_script(ROOT / "bench" / "table.py", "bench_table")


def _pair(shape: str, command: str, goal: float, ratios: list[float]) -> dict[str, Any]:
    return {
        "shape": shape,
        "command": command,
        "goal": goal,
        "ratios": ratios,
        "seconds": [0.9, 1.0, 1.1],
        "floor_seconds": [0.5, 0.5, 0.6],
        "cpu_ratios": [1.1, 1.2, 1.3],
        "peak_rss_mib": 100.0,
        "floor_rss_mib": 400.0,
        "out_mib": 1.0,
        "file_mib": 80.0,
        "load": [0.5, 0.75],
        "ratio": sorted(ratios)[1],
    }


def test_a_pair_row_says_each_pair_and_its_verdict() -> None:
    rows = table.pair_rows([_pair("small", "diagnose", 2.0, [1.9, 2.1, 1.5]), _pair("yaml", "diagnose", 1.2, [1.3, 1.25, 1.4])])
    assert rows[0] == (
        "| `small` | `diagnose` | 1.90 (1.90, 2.10, 1.50) | 1.20 | 1.00 / 0.50 | 0.25 | 0.013 | 0.5-0.8 | <= 2 | met |",
        True,
    )
    assert rows[1][0].endswith("| <= 1.2 x libyaml | **missed** |") and rows[1][1] is False


def test_the_other_rows_meet_only_when_every_figure_does() -> None:
    found = {
        "load": [{"ratio": 1.2, "ratios": [1.2, 1.1]}, {"ratio": 1.6, "ratios": [1.6]}],
        "tui": [
            {"first_vs_diagnose": 1.1, "first_vs_diagnose_each": [1.1]},
            {"first_vs_diagnose": 1.0, "first_vs_diagnose_each": [1.0]},
        ],
        "usage": [{"ratio": 1.3, "pairs": [{"ratio": 1.3}, {"ratio": 1.2}]}],
        "smi": [{"pod_s": 1.0, "ratio": 1.1, "pairs": [{"ratio": 1.1}]}, {"pod_s": 3.0, "ratio": 1.05, "pairs": [{"ratio": 1.05}]}],
    }
    rows = table.other_rows(found)
    assert [met for _, met in rows] == [False, True, True, True]  # klist2000's load is over 1.5
    assert rows[0][0] == (
        "| in-process load, 2,000 nodes | `small2000` 1.20 (1.20, 1.10); `klist2000` 1.60 (1.60) | <= 1.5 | **missed** |"
    )
    assert rows[2][0] == "| `usage`, 500 inference pods | 1.30 (1.30, 1.20) | <= 1.5 | met |"
    assert rows[3][0] == "| `smi --all`, 40 nodes | pods of 1 s: 1.10 (1.10); pods of 3 s: 1.05 (1.05) | <= 1.3 | met |"
