#!/usr/bin/env python3
"""A change against the tree before it, interleaved: floor, before, after, floor, before, after, ...

    python bench/ab.py --before DIR --shape small --commands lifecycle,pending [--repeat 5]
    python bench/ab.py --before DIR --shape pools300 --analyses pending,lint [--repeat 8]

`pairs.py --tree` measures one tree at a time, so a before and an after run minutes apart, and on a shared
machine the minute moves a ratio as much as a small change does. Here each round runs the floor, the command
from `--before` (a checkout, e.g. `git worktree add --detach /tmp/before HEAD~3`) and the command from this
tree, back to back; each tree's ratio is the median over the rounds of its wall time over that round's floor.
Both trees are byte-compiled first (`pairs.compiled`): a tree left uncompiled under PYTHONDONTWRITEBYTECODE
would measure the compiler.

`--analyses` times the analyses alone, in-process: each round runs, from each tree, a fresh child that loads
the file, then runs one analysis (`diagnose.analyse(only=[NAME])`, or all of them for `diagnose`) with the GC
off, as the CLI runs it, and prints the CPU seconds it took. No floor: a change of ~10 % to an analysis is a
few percent of a command, which a command's pairs cannot resolve on a noisy machine. The row gives each
tree's minimum and median over the rounds.

`--instructions` counts, instead of timing, the instructions the analysis executes (valgrind's cachegrind,
`--cache-sim=no`: ~50x slower, so once per tree), with PYTHONHASHSEED=0: the count of a child that loads the
file and runs the analysis, less that of one that only loads it. The same tree and input give the same count
(pools300's lint, twice: 2,897,710,885 and 2,897,710,882 with the load), where this VM's CPU seconds move by
half from one minute to the next; it weighs what the interpreter executes, not cache misses, so a change it
favours is then checked with `--analyses`.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pairs
import shapes


def _argv(command: str, path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "kubectl_gpu",
        *pairs.COMMANDS[command],
        "--snapshot",
        str(path),
        "-o",
        "json",
        "--now",
        shapes.NOW_TEXT,
    ]


def compare(before: Path, path: Path, command: str, repeat: int) -> str:
    """One markdown row: the command's median ratio to the floor from each tree, and the load average."""
    base_env = dict(os.environ, PYTHONHASHSEED="0")
    envs = {
        "before": dict(base_env, PYTHONPATH=str(before)),
        "after": dict(base_env, PYTHONPATH=str(pairs.ROOT)),
    }
    floor = [sys.executable, "-c", pairs.FLOOR_JSON, str(path)]
    ratios: dict[str, list[float]] = {"before": [], "after": []}
    load = os.getloadavg()[0]
    for _ in range(repeat):
        base = pairs.run(floor, base_env)[0]
        for tree, env in envs.items():
            ratios[tree].append(pairs.run(_argv(command, path), env)[0] / base)
    cells = [f"{statistics.median(r):.2f} ({', '.join(f'{x:.2f}' for x in r)})" for r in ratios.values()]
    return f"| {path.name} | {command} | {cells[0]} | {cells[1]} | {load:.1f}-{os.getloadavg()[0]:.1f} |"


# A child of `--analyses`: argv FILE NAME NOW; prints the analysis's CPU seconds.
IN_PROCESS = """
import gc, sys, time
from datetime import datetime
from pathlib import Path
from kubectl_gpu.core.analyses import diagnose
from kubectl_gpu.core.catalog.loader import load_catalog
from kubectl_gpu.kube.snapshot import load_snapshot
gc.disable()
state, catalog = load_snapshot([Path(sys.argv[1])]), load_catalog()
now = datetime.fromisoformat(sys.argv[3].replace("Z", "+00:00"))
start = time.process_time()
if sys.argv[2] != "none":  # "none": the load alone (`--instructions`' baseline)
    diagnose.analyse(state, catalog, now, only=None if sys.argv[2] == "diagnose" else [sys.argv[2]])
print(time.process_time() - start)
"""

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(root: Path, path: Path, analysis: str) -> int:
    """The instructions `IN_PROCESS` executes from `root` for the analysis, its load's subtracted."""
    counts = []
    for name in ("none", analysis):
        argv = [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            sys.executable,
            "-c",
            IN_PROCESS,
            str(path),
            name,
            shapes.NOW_TEXT,
        ]
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(root))
        out = subprocess.run(argv, env=env, cwd=root, capture_output=True, text=True)
        found = _REFS.search(out.stderr)
        if out.returncode or found is None:
            raise SystemExit(f"{root}: {name} on {path.name} failed: {out.stderr.strip()[-300:]}")
        counts.append(int(found[1].replace(",", "")))
    return counts[1] - counts[0]


def compare_instructions(before: Path, path: Path, analysis: str) -> str:
    """One markdown row: the analysis's instructions from each tree (millions) and after / before."""
    counts = [instructions(root, path, analysis) for root in (before, pairs.ROOT)]
    return (
        f"| {path.name} | {analysis} | {counts[0] / 1e6:,.0f} | {counts[1] / 1e6:,.0f} | "
        f"{counts[1] / counts[0]:.3f} |"
    )


def compare_in_process(before: Path, path: Path, analysis: str, repeat: int) -> str:
    """One markdown row: the analysis's CPU seconds from each tree, minimum and median, and the load average."""
    base_env = dict(os.environ, PYTHONHASHSEED="0")
    trees = {"before": before, "after": pairs.ROOT}
    seconds: dict[str, list[float]] = {"before": [], "after": []}
    load = os.getloadavg()[0]
    for _ in range(repeat):
        for tree, root in trees.items():
            argv = [sys.executable, "-c", IN_PROCESS, str(path), analysis, shapes.NOW_TEXT]
            out = subprocess.run(
                argv, env=dict(base_env, PYTHONPATH=str(root)), cwd=root, capture_output=True, text=True
            )
            if out.returncode:
                raise SystemExit(f"{tree}: {analysis} on {path.name} failed: {out.stderr.strip()[-300:]}")
            seconds[tree].append(float(out.stdout.strip().splitlines()[-1]))
    cells = [
        f"{min(t):.3f} / {statistics.median(t):.3f} ({', '.join(f'{x:.3f}' for x in t)})"
        for t in seconds.values()
    ]
    return f"| {path.name} | {analysis} | {cells[0]} | {cells[1]} | {load:.1f}-{os.getloadavg()[0]:.1f} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--shape", action="append", default=[], choices=sorted(shapes.SHAPES))
    parser.add_argument("--file", action="append", type=Path, default=[], help="any other JSON input")
    parser.add_argument("--nodes", type=int, help="the shapes at another node count")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--commands", help="comma-separated, as in pairs.COMMANDS")
    which.add_argument(
        "--analyses",
        help="comma-separated: pending, lint, health, drivers, ... or diagnose (all), in-process",
    )
    parser.add_argument(
        "--instructions", action="store_true", help="with --analyses: count instructions (valgrind), once"
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in (*args.file, *(shapes.path_for(s, nodes=args.nodes) for s in args.shape))]
    if missing := [str(p) for p in paths if not p.exists()]:
        parser.error(f"not written yet (bench/shapes.py --shape ...): {', '.join(missing)}")
    pairs.compiled(args.before)
    print(f"# {os.cpu_count()} CPUs; before: {args.before}, after: {pairs.ROOT}", flush=True)
    if args.analyses and args.instructions:
        print("| input | analysis | before: instructions (M) | after: instructions (M) | after / before |")
        print("|---|---|---:|---:|---:|")
        for path in paths:
            for analysis in args.analyses.split(","):
                print(compare_instructions(args.before, path, analysis), flush=True)
        return 0
    if args.analyses:
        print(
            "| input | analysis | before: CPU s, min / median (each) | after: CPU s, min / median (each) | load avg |"
        )
        print("|---|---|---:|---:|---|")
        for path in paths:
            for analysis in args.analyses.split(","):
                print(compare_in_process(args.before, path, analysis, args.repeat), flush=True)
        return 0
    print("| input | command | before: ratio (each round) | after: ratio (each round) | load avg |")
    print("|---|---|---:|---:|---|")
    for path in paths:
        for command in args.commands.split(","):
            print(compare(args.before, path, command, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
