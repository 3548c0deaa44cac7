#!/usr/bin/env python3
"""Benchmark (issue 38): `load_snapshot` in-process against GC-off `orjson.loads`, pair by pair, on any files.

    python bench/load_pairs.py FILE [FILE ...] [--repeat 3] [--markdown]

Per file, one fresh child (`bench/run.py --in-process`) times `orjson.loads(read_bytes())` with the GC as
Python ships it, with the GC off, and `load_snapshot([FILE])`, the three in rotation within each repeat (so
drift in the machine's load hits all three alike). The ratio of a repeat is its `load_snapshot` over its
GC-off orjson; the figure is the median of those (goal: at most 1.5x). The 1-minute load average is read
before and after each file. Files: e.g. `bench/shapes.py --shape small --nodes 2000 --out F` or the bench's
compact List (`compact.generate_compact(2000, F)`: C2000).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pairs import compiled

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5


def measure(path: Path, repeat: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--in-process", str(path), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    ratios = [load / floor for load, floor in zip(times["load_snapshot"], times["orjson_nogc"], strict=True)]
    return {
        "file": path.name,
        "mib": path.stat().st_size / 2**20,
        "counts": times["counts"],
        "load_s": times["load_snapshot"],
        "orjson_nogc_s": times["orjson_nogc"],
        "orjson_s": times["orjson"],
        "ratios": ratios,
        "ratio": statistics.median(ratios),
        "load": (before, os.getloadavg()[0]),
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| file | MiB | nodes / pods | load_snapshot s | orjson GC off s | ratio, median (each) | goal | load avg |",
        "|---|---:|---|---:|---:|---:|---|---|",
    ]
    for r in rows:
        each = ", ".join(f"{v:.2f}" for v in r["ratios"])
        verdict = "met" if r["ratio"] <= TARGET else "MISSED"
        lines.append(
            f"| {r['file']} | {r['mib']:.0f} | {r['counts']['nodes']:,} / {r['counts']['pods']:,} "
            f"| {statistics.median(r['load_s']):.2f} | {statistics.median(r['orjson_nogc_s']):.2f} "
            f"| {r['ratio']:.2f} ({each}) | <= {TARGET} {verdict} | {r['load'][0]:.2f}-{r['load'][1]:.2f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    missing = [str(path) for path in args.files if not path.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    compiled()
    rows = [measure(path, args.repeat) for path in args.files]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))
    return 0 if all(r["ratio"] <= TARGET for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
