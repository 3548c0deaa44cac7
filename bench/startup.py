#!/usr/bin/env python3
"""Benchmark: start-up of what a shell runs often: `--help`, `--version`, completion (each TAB).

    python bench/startup.py [--repeat 20] [--python /other/checkout/.venv/bin/python] [--markdown]

Each line runs in a fresh interpreter, stdout and stderr to /dev/null; wall time from spawn to exit, median
and best of --repeat, interleaved (one run of each line per round, so that load on the machine spreads
evenly). The baseline is `python -c "import typer"`; a two-command typer app's `--help` shows what typer's
own help costs (its rich formatting, and pydantic once it parses a root option's value).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
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


def lines(python: str) -> dict[str, list[str]]:
    bindir = Path(python).parent
    script = [python, "-m", "kubectl_gpu"]
    return {
        'python -c "import typer"': [python, "-c", "import typer"],
        "typer app of 2 commands: --help": [python, "-c", MINIMAL_APP, "--help"],
        "typer app of 2 commands: nodes --help": [python, "-c", MINIMAL_APP, "nodes", "--help"],
        "kubectl-gpu --help": [*script, "--help"],
        "kubectl-gpu nodes --help": [*script, "nodes", "--help"],
        "kubectl-gpu smi --help": [*script, "smi", "--help"],
        "kubectl-gpu --version": [*script, "--version"],
        "kubectl_complete-gpu pen (TAB)": [str(bindir / "kubectl_complete-gpu"), "pen"],
        "kubectl-gpu __complete nodes -- (TAB)": [*script, "__complete", "nodes", "--"],
    }


def measure(python: str, repeat: int) -> list[dict[str, object]]:
    table = lines(python)
    times: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(repeat):
        for name, argv in table.items():
            started = time.perf_counter()
            # cwd: not the checkout, whose kubectl_gpu `-m` and `-c` would import whatever the interpreter
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd="/")
            times[name].append(time.perf_counter() - started)
    base = statistics.median(times['python -c "import typer"'])
    return [
        {
            "line": name,
            "median_s": round(statistics.median(values), 3),
            "best_s": round(min(values), 3),
            "x_import_typer": round(statistics.median(values) / base, 2),
        }
        for name, values in times.items()
    ]


def markdown(rows: list[dict[str, object]]) -> str:
    out = ["| command | median s | best s | x `import typer` |", "|---|---:|---:|---:|"]
    out += [f"| `{r['line']}` | {r['median_s']} | {r['best_s']} | {r['x_import_typer']} |" for r in rows]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kubectl_gpu runs")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = measure(args.python, args.repeat)
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
