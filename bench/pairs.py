#!/usr/bin/env python3
"""Each command against the floor, in pairs: the ratio that counts on a shared machine (issue 38).

    python bench/pairs.py --shape small --shape many-pending [--commands nodes,diagnose] [--repeat 3]
                          [--file F ...] [--tree DIR] [--json OUT]

For every input (a shape of `bench/shapes.py`, written on first use to bench/out/, or any `--file`):
* the **floor**: a fresh `python -c` that disables the GC and parses the file, with orjson (JSON) or
  libyaml's `CSafeLoader` (YAML: the `kubectl-list` shape holds the same objects as JSON);
* each command: `python -m kubectl_gpu CMD --snapshot FILE -o json --now NOW`, stdout to a file;
* run in alternation: floor, command, floor, command, ... `--repeat` times; each pair's ratio is the
  command's wall time over the floor run just before it, and the figure is the **median ratio**. Peak
  RSS (`os.wait4`) is taken against the floor's, and the document's size against the file's; the CPU
  ratio (user + system time of the pair, from the same `wait4`) is shown beside it: on a busy machine a
  process waits for a core, which the wall time counts and the CPU time does not.

The load average (`os.getloadavg`) is recorded before and after each input: on a busy machine both runs
of a pair slow down, which is why only the ratios are compared. `--tree DIR` runs the commands from
another checkout (PYTHONPATH=DIR), e.g. a `git archive` of the commit before a change. The code measured
is byte-compiled first (`compiled`), so no run pays for compiling it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import shapes  # noqa: E402

COMMANDS: dict[str, list[str]] = {
    "nodes": ["nodes"],
    "pending": ["pending", "-A"],
    "drivers": ["drivers"],
    "lint": ["lint"],
    "lifecycle": ["lifecycle"],
    "nvme": ["nvme"],
    "cost": ["cost"],
    "inventory": ["inventory"],
    "diagnose": ["diagnose"],
}
# Per shape, the commands issue 38 measured (and the goal), or ours for our own shapes.
PLAN: dict[str, tuple[tuple[str, ...], float]] = {
    "small": (("nodes", "pending", "drivers", "lint", "lifecycle", "diagnose"), 2.0),
    "many-pending": (("pending", "diagnose"), 3.0),
    "pools300": (("diagnose", "lint", "pending"), 3.0),
    "kubectl-list": (("diagnose",), 2.0),
    "events50k": (("pending", "diagnose"), 2.0),
    "yaml": (("diagnose",), 1.2),
    "taints-labels": (("nodes", "pending", "diagnose"), 2.0),
    "nodeclaims": (("pending", "lifecycle", "diagnose"), 2.0),
    "namespaces": (("nodes", "pending", "diagnose"), 2.0),
}
FLOOR_JSON = "import gc,sys,orjson; gc.disable(); orjson.loads(open(sys.argv[1],'rb').read())"
FLOOR_YAML = (
    "import gc,sys,yaml; gc.disable(); yaml.load(open(sys.argv[1],'rb').read(), Loader=yaml.CSafeLoader)"
)
STDOUT = ROOT / "bench" / "out" / ".pairs-stdout"


@dataclass
class Pair:
    shape: str
    command: str
    goal: float | None
    ratios: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    floor_seconds: list[float] = field(default_factory=list)
    cpu_ratios: list[float] = field(default_factory=list)  # CPU time (user + system) over the floor's
    peak_rss_mib: float = 0.0
    floor_rss_mib: float = 0.0
    out_mib: float = 0.0
    file_mib: float = 0.0
    rc: int = 0
    note: str = ""
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before / after the input's pairs

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios) if self.ratios else float("nan")


def run(
    argv: list[str], env: dict[str, str], keep: bool = False
) -> tuple[float, float, int, str, int, float]:
    """(wall s, peak RSS MiB, exit code, last stderr line, bytes printed, CPU s: user + system)."""
    STDOUT.parent.mkdir(parents=True, exist_ok=True)
    with open(STDOUT if keep else os.devnull, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.PIPE, env=env, cwd=env.get("PYTHONPATH", ROOT)
        )
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.stderr.close()
    tail = (err.decode(errors="replace").strip().splitlines() or [""])[-1]
    return (
        wall,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
        tail,
        STDOUT.stat().st_size if keep else 0,
        usage.ru_utime + usage.ru_stime,
    )


def compiled(*trees: Path) -> None:
    """Byte-compile the code measured first, this checkout's and each other tree's: with PYTHONDONTWRITEBYTECODE
    set (or a fresh `git archive`), each run would compile every module it imports, and the pair would measure
    the compiler. (compileall writes the bytecode whatever that variable says.)"""
    import compileall

    for tree in (ROOT, *trees):
        compileall.compile_dir(str(tree / "kubectl_gpu"), quiet=1)


def measure(
    shape: str, path: Path, commands: list[str], goal: float | None, repeat: int, tree: Path | None
) -> list[Pair]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    yaml_input = path.suffix in (".yaml", ".yml")
    floor = [sys.executable, "-c", FLOOR_YAML if yaml_input else FLOOR_JSON, str(path)]
    size = path.stat().st_size / 2**20
    pairs = [Pair(shape, c, goal, file_mib=size) for c in commands]
    before = os.getloadavg()[0]
    for _ in range(repeat):
        for p in pairs:
            if p.rc not in (0, 1):
                continue
            base, base_rss, _, _, _, base_cpu = run(floor, env)
            argv = [sys.executable, "-m", "kubectl_gpu", *COMMANDS[p.command], "--snapshot", str(path)]
            wall, rss, p.rc, note, printed, cpu = run(
                [*argv, "-o", "json", "--now", shapes.NOW_TEXT], env, keep=True
            )
            p.ratios.append(wall / base)
            p.cpu_ratios.append(cpu / max(base_cpu, 1e-3))
            p.seconds.append(wall)
            p.floor_seconds.append(base)
            p.peak_rss_mib, p.floor_rss_mib = max(p.peak_rss_mib, rss), max(p.floor_rss_mib, base_rss)
            p.out_mib = printed / 2**20
            if p.rc == 1 and (not printed or note.startswith(("Traceback", "ImportError", "ModuleNotFound"))):
                p.rc = 3  # Python's own exit 1 (an import error, a traceback), not findings
            p.note = note if p.rc not in (0, 1) else ""
    after = os.getloadavg()[0]
    for p in pairs:
        p.load = (before, after)
    return pairs


def table(pairs: list[Pair]) -> str:
    lines = [
        "| shape | command | median ratio (pairs) | goal | command s (median) | floor s (median) | CPU ratio"
        " (median) | peak RSS / floor's | output / input | load avg before-after |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for p in pairs:
        verdict = "" if p.goal is None else (" met" if p.ratio <= p.goal else " **missed**")
        ratios = ", ".join(f"{r:.2f}" for r in p.ratios)
        cpu = f"{statistics.median(p.cpu_ratios):.2f}" if p.cpu_ratios else "-"
        lines.append(
            f"| {p.shape} | {p.command}{f' (exit {p.rc}: {p.note})' if p.rc not in (0, 1) else ''} "
            f"| {p.ratio:.2f} ({ratios}) | {p.goal or '-'}{verdict} | {statistics.median(p.seconds):.2f} "
            f"| {statistics.median(p.floor_seconds):.2f} | {cpu} | {p.peak_rss_mib / p.floor_rss_mib:.2f} "
            f"| {p.out_mib / p.file_mib:.3f} | {p.load[0]:.1f}-{p.load[1]:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shape", action="append", default=[], choices=sorted(shapes.SHAPES))
    parser.add_argument("--file", action="append", type=Path, default=[], help="any other input")
    parser.add_argument("--nodes", type=int, help="the shapes at another node count")
    parser.add_argument("--commands", help="comma-separated; default: the shape's plan (PLAN)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, help="run kubectl_gpu from this checkout")
    parser.add_argument("--json", type=Path, help="write every pair here")
    args = parser.parse_args(argv)
    print(f"# {os.cpu_count()} CPUs, load average {os.getloadavg()}", flush=True)
    inputs: list[tuple[str, Path]] = [(f.name, f) for f in args.file]
    for shape in args.shape:
        path = shapes.path_for(shape, nodes=args.nodes)
        if not path.exists():  # in a child: a shape built here would stay in this process's memory, and
            # every child's peak RSS (`wait4`) counts the parent's pages it starts in (vfork)
            nodes = ["--nodes", str(args.nodes)] if args.nodes else []
            generate = [
                sys.executable,
                str(ROOT / "bench" / "shapes.py"),
                "--shape",
                shape,
                "--out",
                str(path),
            ]
            subprocess.run([*generate, *nodes], check=True)
        inputs.append((shape, path))
    compiled(*([args.tree] if args.tree is not None else []))
    results: list[Pair] = []
    for shape, path in inputs:
        plan, goal = PLAN.get(shape, (tuple(COMMANDS), None))
        commands = args.commands.split(",") if args.commands else list(plan)
        results += measure(shape, path, commands, goal, args.repeat, args.tree)
        print(table([p for p in results if p.shape == shape]).split("\n", 2)[-1], flush=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(p) | {"ratio": p.ratio} for p in results], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
