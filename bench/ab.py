#!/usr/bin/env python3
"""A change against the tree before it, interleaved: floor, before, after, floor, before, after, ...

    python bench/ab.py --before DIR --shape small --commands lifecycle,pending [--repeat 5]

`pairs.py --tree` measures one tree at a time, so a before and an after run minutes apart, and on a shared
machine the minute moves a ratio as much as a small change does. Here each round runs the floor, the command
from `--before` (a checkout, e.g. `git worktree add --detach /tmp/before HEAD~3`) and the command from this
tree, back to back; each tree's ratio is the median over the rounds of its wall time over that round's floor.
Both trees are byte-compiled first (`pairs.compiled`): a tree left uncompiled under PYTHONDONTWRITEBYTECODE
would measure the compiler.
"""

from __future__ import annotations

import argparse
import os
import statistics
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    parser.add_argument("--shape", action="append", default=[], choices=sorted(shapes.SHAPES))
    parser.add_argument("--file", action="append", type=Path, default=[], help="any other JSON input")
    parser.add_argument("--nodes", type=int, help="the shapes at another node count")
    parser.add_argument("--commands", required=True, help="comma-separated, as in pairs.COMMANDS")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    paths = [*args.file, *(shapes.path_for(s, nodes=args.nodes) for s in args.shape)]
    if missing := [str(p) for p in paths if not p.exists()]:
        parser.error(f"not written yet (bench/shapes.py --shape ...): {', '.join(missing)}")
    pairs.compiled(args.before)
    print(f"# {os.cpu_count()} CPUs; before: {args.before}, after: {pairs.ROOT}", flush=True)
    print("| input | command | before: ratio (each round) | after: ratio (each round) | load avg |")
    print("|---|---|---:|---:|---|")
    for path in paths:
        for command in args.commands.split(","):
            print(compare(args.before, path, command, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
