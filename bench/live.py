#!/usr/bin/env python3
"""Benchmark: a command reading a live cluster, with a round-trip latency on every request.

    python bench/live.py [--sizes S,M] [--latency-ms 0,50] [--command "pending -A"] [--repeat 3] [--markdown]
                         [--python /other/checkout/.venv/bin/python]   # a baseline: another version's client

For each size and latency, the bundle (bench/out/cluster-SIZE.json, from bench/generate.py) is served by
bench/apiserver.py in its own process with `--latency-ms`, and `python -m kubectl_gpu COMMAND -o json
--kubeconfig ...` reads it (stdout to /dev/null). Measured: the command's wall time (median of --repeat),
its peak RSS, and the requests the server answered (in all, per path: pages of one list are one path),
counted by the server itself, so that what the client did is not taken on its word.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"


def serve(bundle: Path, latency_ms: float, out: Path) -> tuple[subprocess.Popen[str], str, Path]:
    """bench/apiserver.py on `bundle`, its URL, and a kubeconfig (context `bench`) for it."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "apiserver.py"), str(bundle), "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().split()[-1]
    kubeconfig = out / f"bench-live-kubeconfig-{os.getpid()}.json"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "bench", "cluster": {"server": url}}],
        "users": [{"name": "bench", "user": {}}],
        "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
        "current-context": "bench",
    }
    kubeconfig.write_text(json.dumps(config))
    return proc, url, kubeconfig


def _bench_get(url: str, path: str) -> dict[str, int]:
    with urllib.request.urlopen(url + path, timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def run_once(command: list[str], kubeconfig: Path, python: str) -> tuple[float, float, int]:
    """Wall seconds, peak RSS MiB and exit code of one run of the command."""
    argv = [python, "-m", "kubectl_gpu", *command, "-o", "json", "--kubeconfig", str(kubeconfig)]
    started = time.perf_counter()
    # Not from the checkout: `-m` would import its kubectl_gpu, whichever interpreter runs it.
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=kubeconfig.parent)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{shlex.join(argv)} exited {code}: {err.strip()}")
    return wall, usage.ru_maxrss / 1024, code


def bench(
    size: str, latency_ms: float, command: list[str], repeat: int, out: Path, python: str = sys.executable
) -> dict[str, object]:
    bundle = out / f"cluster-{size}.json"
    if not bundle.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), "--size", size], check=True)
    proc, url, kubeconfig = serve(bundle, latency_ms, out)
    try:
        walls, rss, requests = [], [], {}
        for _ in range(repeat):
            _bench_get(url, "/_bench/reset")
            wall, peak, _ = run_once(command, kubeconfig, python)
            walls.append(wall)
            rss.append(peak)
            requests = _bench_get(url, "/_bench/requests")
    finally:
        proc.kill()
        proc.wait()
        kubeconfig.unlink(missing_ok=True)
    return {
        "size": size,
        "latency_ms": latency_ms,
        "command": " ".join(command),
        "wall_s": round(statistics.median(walls), 2),
        "peak_rss_mib": round(max(rss)),
        "requests": sum(requests.values()),
        "per_path": dict(sorted(requests.items())),
    }


def markdown(rows: list[dict[str, object]]) -> str:
    lines = [
        "| size | latency | command | wall s | peak RSS MiB | requests | pod pages | event lists |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        per_path: dict[str, int] = row["per_path"]  # type: ignore[assignment]
        lines.append(
            f"| {row['size']} | {row['latency_ms']:g} ms | `{row['command']}` | {row['wall_s']} | "
            f"{row['peak_rss_mib']:,} | {row['requests']} | {per_path.get('/api/v1/pods', 0)} | "
            f"{per_path.get('/api/v1/events', 0)} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="S,M")
    parser.add_argument("--latency-ms", default="0,50", help="comma-separated latencies to inject")
    parser.add_argument("--command", default="pending -A", help="the kubectl-gpu command line (no -o)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kubectl_gpu runs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [
        bench(size, float(latency), shlex.split(args.command), args.repeat, args.out, args.python)
        for size in args.sizes.split(",")
        for latency in args.latency_ms.split(",")
    ]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
