#!/usr/bin/env python3
"""Issue 38's whole table in one sitting: what bench/README.md's "Where it stands" shows, measured again.

    python bench/table.py [--repeat 5] [--out bench/out/table]

It runs the benches that make each row, one after the other, with nothing else between them:
* `pairs.py` on every shape of `shapes.py` (the commands of each shape's plan), against the floor;
* `load_pairs.py` on `small` and `kubectl-list` at 2,000 nodes (the in-process load);
* `tui.py` on the same two files (the first screen against `diagnose`);
* `usage_live.py` and `smi_live.py` (`--repeat 3`: each run takes seconds of waiting, not of CPU).

Each bench's JSON goes to `--out`, and the table is printed as "Where it stands" writes it: a row per
shape and command with each pair's ratio, then the other rows, the UTC minutes of each part, and how many
rows meet their goal. Missing shapes are generated first (about a minute for all of them). The exit code is
0 when every row meets its goal, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load_pairs
import shapes
import smi_live
import tui
import usage_live

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"

#: the shapes in the order "Where it stands" lists them
ORDER = ("small", "kubectl-list", "events50k", "yaml", "taints-labels", "nodeclaims", "namespaces", "pools300",
         "many-pending")  # fmt: skip
#: the 2,000-node files of the load and TUI rows, as "Where it stands" names them
LARGE = (("small2000", "small"), ("klist2000", "kubectl-list"))
#: each row's goal, as its own bench holds it
GOALS = {
    "load": load_pairs.TARGET,
    "tui": tui.FIRST_SCREEN_TARGET,
    "usage": usage_live.TARGET,
    "smi": smi_live.TARGET,
}


def _stamp() -> str:
    return time.strftime("%H:%M", time.gmtime())


def _bench(script: str, *args: str, printed: bool = True) -> Any:
    """Run `bench/SCRIPT ARGS`; the JSON it prints last (progress lines may come before it), when `printed`.
    Its exit code 1 says a goal was missed, which the table says too."""
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, check=False, cwd=ROOT
    )
    text = done.stdout
    start = 0 if text.startswith("[\n") else text.rfind("\n[\n") + 1  # a line of its own: `[`
    if done.returncode not in (0, 1) or (printed and start == 0 and not text.startswith("[\n")):
        raise SystemExit(f"bench/{script} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(text[start:]) if printed else None


def _large_files() -> list[Path]:
    paths = []
    for _, shape in LARGE:
        path = shapes.path_for(shape, nodes=2000)
        if not path.exists():
            subprocess.run(
                [sys.executable, str(BENCH / "shapes.py"), "--shape", shape, "--nodes", "2000"], check=True
            )
        paths.append(path)
    return paths


def _each(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def pair_rows(pairs: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    """A markdown row per shape and command, and whether it meets its goal."""
    rows = []
    for r in pairs:
        ratio, goal = r["ratio"], r["goal"]
        met = goal is not None and ratio <= goal
        goal_text = "<= 1.2 x libyaml" if r["shape"] == "yaml" else f"<= {goal:g}"
        row = (
            f"| `{r['shape']}` | `{r['command']}` | {ratio:.2f} ({_each(r['ratios'])}) "
            f"| {statistics.median(r['cpu_ratios']):.2f} "
            f"| {statistics.median(r['seconds']):.2f} / {statistics.median(r['floor_seconds']):.2f} "
            f"| {r['peak_rss_mib'] / r['floor_rss_mib']:.2f} | {r['out_mib'] / r['file_mib']:.3f} "
            f"| {r['load'][0]:.1f}-{r['load'][1]:.1f} | {goal_text} | {'met' if met else '**missed**'} |"
        )
        rows.append((row, met))
    return rows


def other_rows(found: dict[str, Any]) -> list[tuple[str, bool]]:
    """The in-process load, the TUI's first screen, `usage` and `smi --all`, a markdown row each."""
    # each figure: its name as the row writes it, its median, each pair's
    load = [
        (f"`{name}` ", r["ratio"], r["ratios"]) for (name, _), r in zip(LARGE, found["load"], strict=True)
    ]
    first = [
        (f"`{name}` ", r["first_vs_diagnose"], r["first_vs_diagnose_each"])
        for (name, _), r in zip(LARGE, found["tui"], strict=True)
    ]
    usage = [("", r["ratio"], [p["ratio"] for p in r["pairs"]]) for r in found["usage"]]
    smi = [
        (f"pods of {r['pod_s']:g} s: ", r["ratio"], [p["ratio"] for p in r["pairs"]]) for r in found["smi"]
    ]
    out = []
    for label, key, figures in (
        ("in-process load, 2,000 nodes", "load", load),
        ("TUI first screen, 2,000 nodes", "tui", first),
        ("`usage`, 500 inference pods", "usage", usage),
        ("`smi --all`, 40 nodes", "smi", smi),
    ):
        met = all(ratio <= GOALS[key] for _, ratio, _ in figures)
        text = "; ".join(f"{name}{ratio:.2f} ({_each(each)})" for name, ratio, each in figures)
        out.append((f"| {label} | {text} | <= {GOALS[key]:g} | {'met' if met else '**missed**'} |", met))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="pairs per row (usage and smi: 3)")
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "table", help="each bench's JSON")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    repeat = str(args.repeat)
    large = [str(p) for p in _large_files()]
    minutes: dict[str, str] = {}
    found: dict[str, Any] = {}
    steps: list[tuple[str, str, tuple[str, ...]]] = [
        ("pairs", "pairs.py", (*(a for s in ORDER for a in ("--shape", s)), "--repeat", repeat,
                               "--json", str(args.out / "pairs.json"))),
        ("load", "load_pairs.py", ("--repeat", repeat, *large)),
        ("tui", "tui.py", ("--sizes", ",".join(large), "--repeat", repeat, "--refreshes", "1")),
        ("usage", "usage_live.py", ("--repeat", "3")),
        ("smi", "smi_live.py", ("--repeat", "3")),
    ]  # fmt: skip
    for name, script, bench_args in steps:
        start = _stamp()
        printed = _bench(script, *bench_args, printed=name != "pairs")
        if name == "pairs":  # pairs.py writes its JSON itself
            found[name] = json.loads((args.out / "pairs.json").read_text())
        else:
            found[name] = printed
            (args.out / f"{name}.json").write_text(json.dumps(printed, indent=1))
        minutes[name] = f"{start}-{_stamp()}"
        print(f"# {name}: {minutes[name]} UTC", file=sys.stderr, flush=True)
    rows = pair_rows(found["pairs"]) + other_rows(found)
    met = sum(ok for _, ok in rows)
    print(f"{met} of {len(rows)} rows meet their goal ({os.cpu_count()} CPUs; UTC: "
          + ", ".join(f"{k} {v}" for k, v in minutes.items()) + ")\n")  # fmt: skip
    print("| shape | command | ratio (each pair) | CPU ratio | s: command / floor | peak RSS / floor's "
          "| output / input | load avg | goal | verdict |")  # fmt: skip
    print("|---|---|---|---:|---:|---:|---:|---|---:|---|")
    print("\n".join(row for row, _ in rows[: len(found["pairs"])]))
    print("\n| row | ratio, median (each pair) | goal | verdict |\n|---|---|---:|---|")
    print("\n".join(row for row, _ in rows[len(found["pairs"]) :]))
    return 0 if met == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
