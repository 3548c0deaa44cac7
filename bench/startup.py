#!/usr/bin/env python3
"""Benchmark: start-up of what a shell runs often: `--help`, `--version`, completion (each TAB).

    python bench/startup.py [--repeat 20] [--python /other/checkout/.venv/bin/python] [--markdown]
    python bench/startup.py --before /main/checkout/.venv/bin/python ...   # before and after, interleaved

Each line runs in a fresh interpreter, stdin, stdout and stderr on /dev/null (no terminal: help is the
plain 80-column text), from `/`; wall time from spawn to exit, median and best of --repeat, interleaved (one
run of each line per round, and with --before each line under both interpreters, so that load on the
machine spreads evenly). The baseline is `python -c "import typer"` (of the interpreter measured); a
two-command typer app's `--help` shows what typer's own help costs (its rich formatting, and pydantic once
it parses a root option's value); `COLUMNS=60` makes kubectl-gpu render its help through typer, as on a
terminal narrower than the pre-rendered text.

The target: `--help`, `nodes --help` and `smi --help` within 1.5x `import typer` (issue 13), and
`completion bash|zsh` too (issue 22); each line's verdict is printed, and the exit status is 1 when one is
missed. Issue 38: what a command pays before it reads its input, `nodes -o json` of a snapshot (an empty
List, and examples/automode-gpu-demo.json), beside `python -c "import orjson"` (the floor's own start-up);
each line's median CPU seconds (user + system of the child) too, which load on the machine moves less.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MINIMAL_APP = """
import typer
app = typer.Typer(add_completion=False)
@app.callback()
def root(context: str | None = typer.Option(None, "--context")) -> None: ...
@app.command()
def nodes(include_all: bool = typer.Option(False, "--all")) -> None: ...
@app.command()
def pending() -> None: ...
app()
"""


BASELINE = 'python -c "import typer"'
#: Lines with a target, as a multiple of the baseline's median (issue 13: `--help` within 1.5x import typer).
#: Issue 22: `completion SHELL` prints fixed text, pre-rendered as the help is: the same target.
TARGETS = {
    "kubectl-gpu --help": 1.5,
    "kubectl-gpu nodes --help": 1.5,
    "kubectl-gpu smi --help": 1.5,
    "kubectl-gpu completion bash": 1.5,
    "kubectl-gpu completion zsh": 1.5,
}
Line = tuple[list[str], dict[str, str]]  # argv, and variables set for it
DEMO = Path(__file__).resolve().parent.parent / "examples" / "automode-gpu-demo.json"
EMPTY_LIST = Path(tempfile.gettempdir()) / "kubectl-gpu-bench-empty-list.json"
NOW = "2026-11-28T09:00:00Z"


def lines(python: str) -> dict[str, Line]:
    bindir = Path(python).parent
    script = [python, "-m", "kubectl_gpu"]
    return {
        BASELINE: ([python, "-c", "import typer"], {}),
        "typer app of 2 commands: --help": ([python, "-c", MINIMAL_APP, "--help"], {}),
        "typer app of 2 commands: nodes --help": ([python, "-c", MINIMAL_APP, "nodes", "--help"], {}),
        "kubectl-gpu --help": ([*script, "--help"], {}),
        "kubectl-gpu nodes --help": ([*script, "nodes", "--help"], {}),
        "kubectl-gpu smi --help": ([*script, "smi", "--help"], {}),
        "kubectl-gpu nodes --help, COLUMNS=60 (typer renders)": (
            [*script, "nodes", "--help"],
            {"COLUMNS": "60"},
        ),
        "kubectl-gpu --version": ([*script, "--version"], {}),
        "kubectl-gpu completion bash": ([*script, "completion", "bash"], {}),
        "kubectl-gpu completion zsh": ([*script, "completion", "zsh"], {}),
        "kubectl_complete-gpu pen (TAB)": ([str(bindir / "kubectl_complete-gpu"), "pen"], {}),
        "kubectl-gpu __complete nodes -- (TAB)": ([*script, "__complete", "nodes", "--"], {}),
        'python -c "import orjson"': ([python, "-c", "import orjson"], {}),
        "kubectl-gpu nodes -o json, --snapshot of an empty List": (
            [*script, "nodes", "--snapshot", str(EMPTY_LIST), "--now", NOW, "-o", "json"],
            {},
        ),
        "kubectl-gpu nodes -o json, --snapshot of the demo": (
            [*script, "nodes", "--snapshot", str(DEMO), "--now", NOW, "-o", "json"],
            {},
        ),
    }


def _run(line: Line) -> tuple[float, float]:
    """Wall seconds from spawn to exit, and the child's CPU seconds (user + system)."""
    argv, extra = line
    # No variable of ours that changes how help is rendered (a terminal's COLUMNS, NO_COLOR, FORCE_COLOR ...)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR", "TERMINAL_WIDTH")
    }
    started = time.perf_counter()
    # cwd: not the checkout, whose kubectl_gpu `-m` and `-c` would import whatever the interpreter
    child = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        cwd="/", env={**env, **extra},
    )  # fmt: skip
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped here; Popen must not wait for it again
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def measure(pythons: list[str], repeat: int) -> list[dict[str, list[tuple[float, float]]]]:
    """(wall, CPU) seconds per line for each interpreter, every line of every interpreter run once per round."""
    EMPTY_LIST.write_text('{"apiVersion":"v1","kind":"List","items":[]}\n', encoding="utf-8")
    tables = [lines(python) for python in pythons]
    times: list[dict[str, list[tuple[float, float]]]] = [{name: [] for name in table} for table in tables]
    for _ in range(repeat):
        for name in tables[0]:
            for table, out in zip(tables, times, strict=True):
                out[name].append(_run(table[name]))
    return times


def summarise(times: dict[str, list[tuple[float, float]]]) -> list[dict[str, object]]:
    base = statistics.median(wall for wall, _ in times[BASELINE])
    rows: list[dict[str, object]] = []
    for name, pairs in times.items():
        values = [wall for wall, _ in pairs]
        ratio = statistics.median(values) / base
        row: dict[str, object] = {
            "line": name,
            "median_s": round(statistics.median(values), 3),
            "best_s": round(min(values), 3),
            "x_import_typer": round(ratio, 2),
            "median_cpu_s": round(statistics.median(cpu for _, cpu in pairs), 3),
        }
        if name in TARGETS:
            row["target"] = f"<= {TARGETS[name]:g}x"
            row["verdict"] = "met" if ratio <= TARGETS[name] else "MISSED"
        rows.append(row)
    return rows


def markdown(after: list[dict[str, object]], before: list[dict[str, object]] | None) -> str:
    def target(r: dict[str, object]) -> str:
        return f"{r['target']}: {r['verdict']}" if "target" in r else ""

    if before is None:
        out = [
            "| command | median s | best s | x `import typer` | median CPU s | target |",
            "|---|---:|---:|---:|---:|---|",
        ]
        out += [
            f"| `{r['line']}` | {r['median_s']} | {r['best_s']} | {r['x_import_typer']} "
            f"| {r['median_cpu_s']} | {target(r)} |"
            for r in after
        ]
        return "\n".join(out)
    out = [
        "| command | before: median / best | before, x `import typer` | before: CPU s "
        "| after: median / best | after, x `import typer` | after: CPU s | target (after) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for b, a in zip(before, after, strict=True):
        out.append(
            f"| `{a['line']}` | {b['median_s']} / {b['best_s']} s | {b['x_import_typer']} | {b['median_cpu_s']} "
            f"| {a['median_s']} / {a['best_s']} s | {a['x_import_typer']} | {a['median_cpu_s']} | {target(a)} |"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kubectl_gpu runs")
    parser.add_argument("--before", help="another checkout's interpreter, measured in the same rounds")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    pythons = [args.python] if args.before is None else [args.python, args.before]
    times = measure(pythons, args.repeat)
    after = summarise(times[0])
    before = summarise(times[1]) if args.before else None
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    if args.markdown:
        print(markdown(after, before))
    else:
        print(json.dumps({"after": after, "before": before} if before else after, indent=2))
    missed = [str(r["line"]) for r in after if r.get("verdict") == "MISSED"]
    print(f"\ntarget missed: {', '.join(missed)}" if missed else "\nevery target met", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
