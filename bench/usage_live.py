#!/usr/bin/env python3
"""Benchmark (issue 38): `kubectl gpu usage` live on 500 inference pods read through the pod proxy.

    python bench/usage_live.py [--pods 500] [--scrape-ms 200] [--slowest-ms 1000] [--window 5] [--repeat 3]
                               [--markdown] [--tree /tmp/before]   # also that checkout's, interleaved

`bench/fake_cluster.py usage` serves the pods (the suite's fake API server, its own process): each pod's
`/metrics` answers after `--scrape-ms`, the last one's after `--slowest-ms`. Each run is a fresh
`python -m kubectl_gpu usage --window Ns -o json` (stdout to /dev/null), spawn to exit; the target is the
issue's model, **the window plus twice the slowest read** (7 s for the defaults): wall / model <= 1.5.
Each run is paired with `kubectl gpu nodes -o json` on the same server right before it (the same start-up
and list, no scrape), so what the window adds is seen apart from the load of the machine. The server counts
the proxy reads (2 per pod) and when the first and the last arrived.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pairs import compiled

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5


class Server:
    """bench/fake_cluster.py in a child process, its URL, a kubeconfig for it, and its `stats`."""

    def __init__(self, argv: list[str], workdir: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "fake_cluster.py"), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            raise SystemExit(f"fake_cluster.py did not start: {line!r}")
        self.url = line.split()[-1]
        self.kubeconfig = workdir / "kubeconfig.json"
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "bench", "cluster": {"server": self.url}}],
            "users": [{"name": "bench", "user": {}}],
            "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
            "current-context": "bench",
        }
        self.kubeconfig.write_text(json.dumps(config))

    def ask(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def child_env(workdir: Path, tree: Path | None = None) -> dict[str, str]:
    """The timed child's environment: bytecode as installed (no PYTHONDONTWRITEBYTECODE), its own config
    directory (no user config file changes what it reads); with `tree`, that checkout's kubectl_gpu."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CONFIG_HOME"] = str(workdir / "xdg")
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH", "")]))
    return env


def timed(
    argv: list[str],
    workdir: Path,
    allowed: tuple[int, ...] = (0,),
    tree: Path | None = None,
    out: Path | None = None,
) -> tuple[float, float]:
    """(wall s, CPU s user+sys) of one whole `python -m kubectl_gpu ARGV`, spawn to exit (`tree`: run that
    checkout's kubectl_gpu, e.g. a `git archive` of another commit; `out`: its stdout there, else nowhere)."""
    start = time.perf_counter()
    stdout = out.open("wb") if out is not None else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=workdir,
        env=child_env(workdir, tree),
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if out is not None:
        stdout.close()  # type: ignore[union-attr]
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if code not in allowed:
        raise SystemExit(f"kubectl_gpu {' '.join(argv)} exited {code}: {err.strip()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def add_tree_option(parser: argparse.ArgumentParser) -> None:
    """`--tree DIR` (repeatable): the live benches run that checkout's kubectl_gpu too, interleaved."""
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        default=[],
        help="also run kubectl_gpu from this checkout (a `git archive` of a commit: before), interleaved",
    )


def tree_rows(
    trees: list[Path | None], runs: dict[int, list[dict[str, Any]]], load: tuple[float, float], **fields: Any
) -> list[dict[str, Any]]:
    """One row per tree: its name, `fields`, its runs, the median of each run's `ratio` and the load average."""
    return [
        {
            "tree": str(tree) if tree is not None else "this checkout",
            **fields,
            "pairs": runs[index],
            "ratio": statistics.median(p["ratio"] for p in runs[index]),
            "load": load,
        }
        for index, tree in enumerate(trees)
    ]


def exit_code(rows: list[dict[str, Any]], target: float) -> int:
    """0 when this checkout's every row meets `target`, else 1."""
    return 0 if all(r["ratio"] <= target for r in rows if r["tree"] == "this checkout") else 1


def one_usage(
    server: Server, connect: list[str], window_s: float, workdir: Path, tree: Path | None
) -> dict[str, Any]:
    """One whole `usage --window` (from `tree`, or this checkout) and what the server saw of it."""
    server.ask("reset")
    answer = workdir / "usage.json"
    argv = ["usage", "--window", f"{window_s:g}s", *connect]
    wall, cpu = timed(argv, workdir, tree=tree, out=answer)
    proxy = server.ask("stats")["kinds"].get("proxy", {"count": 0, "first": 0.0, "last": 0.0})
    window = json.loads(answer.read_bytes())["window"]
    return {
        "wall": wall,
        "cpu": cpu,
        "reads": proxy["count"],
        "reads_span": proxy["last"] - proxy["first"],
        "failed": [f"{f.get('pod')}: {f.get('error')}" for f in window.get("failedReads", [])],
    }


def bench(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Per tree (`--tree` first, then this checkout), the runs, interleaved: each repeat runs `nodes`, then
    `usage` from every tree, on the same server."""
    model = args.window + 2 * args.slowest_ms / 1000
    trees: list[Path | None] = [*args.tree, None]
    pairs: dict[int, list[dict[str, Any]]] = {index: [] for index in range(len(trees))}
    with tempfile.TemporaryDirectory(prefix="bench-usage-") as tmp:
        workdir = Path(tmp)
        server = Server(
            ["usage", "--pods", str(args.pods), "--scrape-ms", str(args.scrape_ms),
             "--slowest-ms", str(args.slowest_ms)],
            workdir,
        )  # fmt: skip
        connect = ["--kubeconfig", str(server.kubeconfig), "-o", "json"]
        load_before = os.getloadavg()[0]
        try:
            for _ in range(args.repeat):
                base_wall, base_cpu = timed(["nodes", *connect], workdir)
                for index, tree in enumerate(trees):
                    run = one_usage(server, connect, args.window, workdir, tree)
                    run.update(nodes_wall=base_wall, nodes_cpu=base_cpu, ratio=run["wall"] / model)
                    pairs[index].append(run)
        finally:
            server.close()
        load = (load_before, os.getloadavg()[0])
    return tree_rows(trees, pairs, load, pods=args.pods, model_s=model)


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| tree | run | usage wall s (CPU s) | nodes wall s (CPU s) | proxy reads | failed | first to last read s "
        "| x model |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary = []
    for row in rows:
        for number, p in enumerate(row["pairs"], 1):
            lines.append(
                f"| {row['tree']} | {number} | {p['wall']:.2f} ({p['cpu']:.2f}) "
                f"| {p['nodes_wall']:.2f} ({p['nodes_cpu']:.2f}) | {p['reads']} | {len(p['failed'])} "
                f"| {p['reads_span']:.2f} | {p['ratio']:.2f} |"
            )
        each = ", ".join(f"{p['ratio']:.2f}" for p in row["pairs"])
        verdict = "met" if row["ratio"] <= TARGET else "MISSED"
        summary.append(
            f"{row['tree']}: {row['pods']} pods, model (window + 2 x slowest) {row['model_s']:g} s: median "
            f"{row['ratio']:.2f}x ({each}), goal <= {TARGET}x: {verdict}; load average {row['load'][0]:.2f} -> "
            f"{row['load'][1]:.2f}"
        )
    return "\n".join([*lines, "", *summary])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pods", type=int, default=500)
    parser.add_argument("--scrape-ms", type=float, default=200.0)
    parser.add_argument("--slowest-ms", type=float, default=1000.0)
    parser.add_argument("--window", type=float, default=5.0, help="seconds")
    parser.add_argument("--repeat", type=int, default=3)
    add_tree_option(parser)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    compiled(*args.tree)
    rows = bench(args)
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))
    return exit_code(rows, TARGET)


if __name__ == "__main__":
    raise SystemExit(main())
