#!/usr/bin/env python3
"""Time the TUI on the synthetic bundles: start to the first full screen, a refresh, and how long a key
takes, at rest and while a refresh runs in the worker.

    python bench/tui.py [--sizes M,L] [--repeat 3] [--refreshes 3] [--live] [--now RFC3339] [--out bench/out]
                        [--markdown]

Per size (bundles from `bench/generate.py`, generated on first use), `--repeat` fresh children each run
the app headless at 200x50 on `--snapshot FILE` (Textual's test driver: the same app, no terminal):
* first screen: from the child's spawn (interpreter start and imports included) until the first refresh's
  data is on screen (the Overview rendered); the child starts as `kubectl gpu tui --snapshot FILE` does
  (`__main__`: the cyclic collector held off until the first read, the file read ahead on a thread);
  its CPU time (user+sys, every thread) to that moment, and `kubectl gpu diagnose`'s (spawn to exit),
  run right after each first screen (a shared machine's speed drifts over minutes), the median of the
  pairs' ratios: the target is on wall time (`first / diagnose` at most 1.2x), CPU says what a busy machine
  hides;
* refresh: `r` until the new data is on screen. The bundle never changes, so this is the refresh of an
  unchanged cluster: a file whose modification time and size are the same is not read again, nor analysed
  again (the same instant: its capture time); live, a short watch per list says nothing changed, and the
  analyses run again at the new instant, unless `--now` fixes it;
* key `j`/`k` (the cursor on the Nodes view), median of 30: from the key until its handler ran and the
  screen rendered what changed; the same while a refresh runs in the worker thread (a key every 50 ms;
  median and worst);
* a view switch (`p`, `f`, `n`), the same way, median; the event loop's longest pause during the
  refreshes (the screen could not take a key or repaint); peak RSS, RSS after the first screen and after
  the refreshes.

With `--live` the bundle is served by `bench/apiserver.py` in another process and the TUI reads it as a
live cluster (paginated lists, as from a real API server).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from generate import NOW_TEXT, SIZES, generate  # noqa: E402
from live import serve  # noqa: E402

CHILD = r"""
import asyncio, json, resource, statistics, sys, time
spawned, path, refreshes, kubeconfig = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
from datetime import datetime
now = datetime.fromisoformat(sys.argv[5]) if sys.argv[5] else None
# What `kubectl gpu tui --snapshot FILE` does before the TUI's imports (kubectl_gpu/__main__.py): the cyclic
# collector held off until the first read, and the file read on a thread meanwhile.
from kubectl_gpu.kube.heap import hold_off_for_startup
hold_off_for_startup()
if not kubeconfig:
    from kubectl_gpu.kube.read_ahead import start
    start(["--snapshot", path])
from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.config import TuiConfig

def rss_mib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024

async def until(predicate):
    while not predicate():
        await asyncio.sleep(0.005)

async def painted(app, key, done):
    # Seconds from a key to its frame: the handler has run (`done()`), then the screen renders what changed
    # (Textual does that on its next refresh tick; here at once, so the figure is the work, not the tick).
    # A refresh in the worker thread competes with it for the interpreter.
    start = time.perf_counter()
    app.simulate_key(key)
    while not done() and time.perf_counter() - start < 30:
        await asyncio.sleep(0.0005)
    app.screen._on_timer_update()
    return time.perf_counter() - start

async def cursor_key(app, index):
    grid, before = app.view.grid, app.view.grid.cursor
    return await painted(app, "jk"[index % 2], lambda: grid.cursor != before)

async def ticker(gaps, stop):
    # The event loop's longest pause: how long the screen could not take a key or repaint.
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now

async def main():
    result = {}
    if kubeconfig:
        source = SourceOptions(kubeconfig=kubeconfig, context="bench", request_timeout=300.0)
    else:
        source = SourceOptions(snapshot=(path,))
    app = GpuApp(TuiConfig(source, refresh=None, now=now))
    async with app.run_test(size=(200, 50)) as pilot:
        await until(lambda: app.snapshot is not None)
        # On screen: every message queued so far handled, then the frame rendered (as `painted` does). Not
        # `pilot.pause()`: its wait for an idle process lasts up to 1 s while the other views build.
        await pilot._wait_for_screen()
        app.screen._on_timer_update()
        result["first_screen"] = time.time() - spawned
        usage = resource.getrusage(resource.RUSAGE_SELF)  # CPU to the first screen, every thread's
        result["first_screen_cpu"] = usage.ru_utime + usage.ru_stime
        result["load_and_analyse"] = app.snapshot.seconds
        result["rss_first_mib"] = rss_mib()
        result["nodes"], result["pods"] = len(app.snapshot.state.nodes), len(app.snapshot.state.pods)
        switch = []
        for key, view in zip("pfnpfn", ("pending", "findings", "nodes") * 2):
            switch.append(await painted(app, key, lambda v=view: app.current == v))
            await pilot.pause()
        result["view_switch"] = statistics.median(switch)
        result["key"] = statistics.median([await cursor_key(app, i) for i in range(30)])
        result["refresh"], during, gaps, stop = [], [], [], asyncio.Event()
        watch = asyncio.create_task(ticker(gaps, stop))
        for _ in range(refreshes):
            shown = app.snapshot
            start = time.perf_counter()
            app.simulate_key("r")
            while app.snapshot is shown:
                during.append(await cursor_key(app, len(during)))
                await asyncio.sleep(0.05)
            await pilot.pause()
            result["refresh"].append(time.perf_counter() - start)
            await asyncio.sleep(0.5)  # what follows the swap (the old data freed) counts too
        stop.set()
        await watch
        result["stall"] = max(gaps)
        result["key_wall_during_refresh"] = statistics.median(during) if during else None
        result["key_worst_during_refresh"] = max(during) if during else None
        result["keys_during_refresh"] = len(during)
        result["rss_after_mib"] = rss_mib()
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("RESULT " + json.dumps(result))

asyncio.run(main())
"""


def run_child(
    path: Path, refreshes: int, kubeconfig: Path | None, now: str = "", python: str = sys.executable
) -> dict[str, object]:
    argv = [
        python,
        "-c",
        CHILD,
        str(time.time()),
        str(path),
        str(refreshes),
        str(kubeconfig or ""),
        now,
    ]
    # Not from the checkout: `-c` would import its kubectl_gpu, whichever interpreter runs it.
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=path.parent, check=False, env=child_env())
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"child failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    data: dict[str, object] = json.loads(line[len("RESULT ") :])
    return data


def _median(runs: list[dict[str, object]], key: str) -> float | None:
    values: list[float] = []
    for run in runs:
        value = run.get(key)
        if isinstance(value, list):
            values += [float(v) for v in value]
        elif isinstance(value, int | float):
            values.append(float(value))
    return statistics.median(values) if values else None


#: the TUI's first screen against `kubectl gpu diagnose` on the same file (issue 18): at most this ratio
FIRST_SCREEN_TARGET = 1.2


def _bundle(size: str, out: Path) -> Path:
    """S, M, L (`generate.py`), F<N>: the family of N nodes and 20N pods (`family.py`), C<N>: the same as
    one compact `kubectl get -o json` List, or P: the many-Pending shape (`compact.py`); a path to an existing file is that file."""
    if Path(size).is_file():  # any other input: a `kubectl get -o json` List, a bundle (bench/shapes.py's)
        return Path(size).resolve()
    family = size[:1] in ("F", "C") and size[1:].isdigit()
    if not (size in SIZES or size == "P" or family):
        raise SystemExit(f"--sizes: {size!r} is neither a file nor one of S, M, L, F<N>, C<N>, P")
    path = out / f"cluster-{size}.json"
    if path.exists():
        return path
    print(f"[{size}] generating {path} ...", flush=True)
    if size.startswith("F") and size[1:].isdigit():
        from family import generate_family

        nodes = int(size[1:])
        generate_family(nodes, 20 * nodes, path)
    elif size.startswith("C") and size[1:].isdigit():
        from compact import generate_compact

        generate_compact(int(size[1:]), path)
    elif size == "P":
        from compact import generate_many_pending

        generate_many_pending(path)
    else:
        generate(*SIZES[size], path)
    return path


def child_env() -> dict[str, str]:
    """The environment of every timed child: bytecode as an installed package has it (a session that sets
    PYTHONDONTWRITEBYTECODE would make each child compile the package's sources again: 0.4 s of the TUI's
    start-up and less of diagnose's, which imports fewer modules)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_package(python: str) -> None:
    subprocess.run(
        [python, "-m", "compileall", "-q", str(ROOT / "kubectl_gpu")], check=False, env=child_env()
    )


def diagnose_seconds(path: Path, python: str, now: str = "") -> tuple[float, float]:
    """One whole `kubectl gpu diagnose --snapshot FILE` (its table to /dev/null), at the TUI's `--now`,
    spawn to exit: (wall, CPU user+sys)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-m", "kubectl_gpu", "diagnose", "--snapshot", str(path), *(["--now", now] if now else [])],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=child_env(),
    )
    _, status, usage = os.wait4(proc.pid, 0)  # reaped here, with its CPU time
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def bench_size(
    size: str, repeat: int, refreshes: int, out: Path, live: bool, now: str = "", python: str = sys.executable
) -> dict[str, object]:
    path = _bundle(size, out)
    server, _, kubeconfig = serve(path, 0, out) if live else (None, None, None)
    runs, timed = [], []
    try:
        for index in range(repeat):
            print(f"[{size}] run {index + 1}/{repeat} ...", flush=True)
            runs.append(run_child(path, refreshes, kubeconfig, now, python))
            if not live:  # diagnose right after each: a shared machine's speed drifts over minutes
                timed.append(diagnose_seconds(path, python, now))
    finally:
        if server is not None:
            server.terminate()
            server.wait()
    keys = (
        "first_screen",
        "first_screen_cpu",
        "load_and_analyse",
        "refresh",
        "key",
        "key_wall_during_refresh",
        "key_worst_during_refresh",
        "view_switch",
        "stall",
        "peak_rss_mib",
        "rss_first_mib",
        "rss_after_mib",
    )
    summary: dict[str, object] = {"size": f"{size} {'live' if live else 'snapshot'}{' --now' if now else ''}"}
    summary.update(nodes=runs[0]["nodes"], pods=runs[0]["pods"])
    summary.update({key: _median(runs, key) for key in keys})
    summary["keys_during_refresh"] = sum(int(r["keys_during_refresh"]) for r in runs)  # type: ignore[call-overload]
    if timed:  # paired with the first screens: the same file, the same machine, the same minutes
        summary["diagnose"] = statistics.median(wall for wall, _ in timed)
        summary["diagnose_cpu"] = statistics.median(cpu for _, cpu in timed)
        # The median of each pair's ratio; and the same in CPU time (user+sys), which a shared machine's
        # load changes least.
        summary["first_vs_diagnose"] = _pair_ratio(runs, "first_screen", [wall for wall, _ in timed])
        summary["first_vs_diagnose_each"] = _pair_ratios(runs, "first_screen", [wall for wall, _ in timed])
        summary["first_vs_diagnose_cpu"] = _pair_ratio(runs, "first_screen_cpu", [cpu for _, cpu in timed])
    return summary


def _pair_ratios(runs: list[dict[str, object]], key: str, diagnose: list[float]) -> list[float]:
    values = [r.get(key) for r in runs]
    return [v / d for v, d in zip(values, diagnose, strict=True) if isinstance(v, float)]


def _pair_ratio(runs: list[dict[str, object]], key: str, diagnose: list[float]) -> float | None:
    ratios = _pair_ratios(runs, key, diagnose)
    return statistics.median(ratios) if ratios else None


def _ms(value: object) -> str:
    return f"{float(value) * 1000:.0f} ms" if isinstance(value, int | float) else "-"


def _s(value: object) -> str:
    return f"{float(value):.1f} s" if isinstance(value, int | float) else "-"


def _ratio(value: object) -> str:
    if not isinstance(value, float):
        return "-"
    return f"{value:.2f}x{'' if value <= FIRST_SCREEN_TARGET else ' MISSED'}"


def _each(ratios: object) -> str:
    """Each pair's ratio, after the median: ` (1.02, 1.06, 1.10)`."""
    if not isinstance(ratios, list) or len(ratios) < 2:
        return ""
    return " (" + ", ".join(f"{float(v):.2f}" for v in ratios) + ")"


def _cpu(row: dict[str, object]) -> str:
    first, diagnose, ratio = (
        row.get("first_screen_cpu"),
        row.get("diagnose_cpu"),
        row.get("first_vs_diagnose_cpu"),
    )
    if not isinstance(ratio, float):
        return "-"
    return f"{_s(first)} / {_s(diagnose)} = {ratio:.2f}x"


def markdown(rows: list[dict[str, object]]) -> str:
    head = (
        "| size | nodes | pods | first screen | diagnose | first / diagnose | CPU first / diagnose "
        "| load + analyse | refresh "
        "| key `j` to its frame "
        "| `j` during a refresh (median / worst) | view switch | longest freeze | peak RSS MiB "
        "| RSS first / after refreshes MiB |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = [
        f"| {r['size']} | {r['nodes']:,} | {r['pods']:,} | {_s(r['first_screen'])} | {_s(r.get('diagnose'))} "
        f"| {_ratio(r.get('first_vs_diagnose'))}{_each(r.get('first_vs_diagnose_each'))} | {_cpu(r)} | {_s(r['load_and_analyse'])} "
        f"| {_s(r['refresh'])} | {_ms(r['key'])} "
        f"| {_ms(r['key_wall_during_refresh'])} / {_ms(r['key_worst_during_refresh'])} "
        f"| {_ms(r['view_switch'])} | {_ms(r['stall'])} | {float(r['peak_rss_mib']):,.0f} | {float(r['rss_first_mib']):,.0f} / {float(r['rss_after_mib']):,.0f} |"  # type: ignore[arg-type]
        for r in rows
    ]
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the TUI on the synthetic bundles.")
    parser.add_argument(
        "--sizes",
        default="M",
        help="comma-separated: S, M, L, F<N> (the N-node family), C<N> (as a compact List), P (many Pending), "
        "or the path of any input file (bench/shapes.py's)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--refreshes", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--markdown", action="store_true", help="print the table for bench/README.md")
    parser.add_argument(
        "--live", action="store_true", help="read the bundle from bench/apiserver.py instead of the file"
    )
    parser.add_argument(
        "--now",
        default=None,
        help="evaluate the TUI and diagnose at this instant (RFC 3339), as `--now` does; default: a file at "
        "the generators' capture time (a compact List has none of its own), live at the clock's; '' for "
        "the file's or the clock's",
    )
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose kubectl_gpu runs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    compile_package(args.python)
    sizes = [s.strip() for s in args.sizes.split(",")]
    now = args.now if args.now is not None else "" if args.live else NOW_TEXT
    rows = [
        bench_size(size, args.repeat, args.refreshes, args.out.resolve(), args.live, now, args.python)
        for size in sizes
    ]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=2))
    missed = [
        r["size"]
        for r in rows
        if isinstance(ratio := r.get("first_vs_diagnose"), float) and ratio > FIRST_SCREEN_TARGET
    ]
    if missed:
        print(
            f"first screen over {FIRST_SCREEN_TARGET}x diagnose: {', '.join(map(str, missed))}",
            file=sys.stderr,
        )
    return 1 if missed else 0


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    raise SystemExit(main())
