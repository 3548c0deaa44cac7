#!/usr/bin/env python3
"""Time `kubectl-gpu` commands on the synthetic inputs, against orjson merely loading the same file.

    python bench/run.py [--sizes S,M] [--family 250,..] [--lists 250,..] [--shapes pools,pending]
                        [--commands nodes,pending] [--repeat 3] [--out bench/out] [--markdown]

Per shape (our bundles from `bench/generate.py` and `bench/family.py`, compact `kind: List` files from
`bench/compact.py`, generated on first use):
* `orjson.loads`: a fresh `python -c` that reads and parses the file - the floor for any command;
* each command: `python -m kubectl_gpu <command> --snapshot FILE -o json --now NOW` (the generators'
  capture time), stdout to a file (its size is the document's); wall time (median of --repeat runs) and
  peak RSS (`os.wait4` rusage of that child), and the ratio of its time to the GC-off orjson subprocess run
  just before it;
* in-process, in a fresh child: `load_snapshot([FILE])` (file -> models) against
  `orjson.loads(FILE.read_bytes())`, median of --repeat each, alternating (every shape but fuzzed ones).
The targets (`targets.py`) are printed at the end, each with its figure; the exit status is 1 when one is
missed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
TARGET_RATIO = 1.5
sys.path.insert(0, str(ROOT / "bench"))
import compact  # noqa: E402
import family  # noqa: E402
from generate import EXAMPLE_PENDING_POD, NOW_TEXT, SIZES, generate  # noqa: E402
from targets import Load, Row, print_targets  # noqa: E402

# Command name -> arguments after `python -m kubectl_gpu`. Adding a command is one line here; names the
# installed kubectl-gpu does not have yet are skipped with a note.
COMMANDS: dict[str, list[str]] = {
    "nodes": ["nodes"],
    "pending": ["pending", "-A"],
    "explain": ["explain", EXAMPLE_PENDING_POD],
    "drivers": ["drivers"],
    "nvme": ["nvme"],
    "lifecycle": ["lifecycle"],
    "lint": ["lint"],
    "cost": ["cost"],
    "diagnose": ["diagnose"],
    "inventory": ["inventory"],
}
DEFAULT_COMMANDS = tuple(COMMANDS)


@dataclass
class Measure:
    label: str
    seconds: list[float]
    peak_rss_kib: int
    rc: int = 0
    note: str = ""
    ratios: list[float] = field(default_factory=list)  # to the GC-off orjson run just before each run
    out_bytes: int = 0  # the size of what it printed (its last run)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


STDOUT = OUT / ".stdout"


def run_child(argv: list[str], keep_stdout: bool = False) -> tuple[float, int, int, str, int]:
    """Run one child; (wall seconds, peak RSS KiB, exit code, stderr tail, bytes printed). Its stdout goes
    to /dev/null, or with `keep_stdout` to a file (a document's size is a target)."""
    STDOUT.parent.mkdir(parents=True, exist_ok=True)
    with open(STDOUT if keep_stdout else os.devnull, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, cwd=ROOT)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    tail = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
    printed = STDOUT.stat().st_size if keep_stdout else 0
    return wall, usage.ru_maxrss, proc.returncode, tail[0], printed


def measure(label: str, argv: list[str], repeat: int) -> Measure:
    times, peak, rc, note = [], 0, 0, ""
    for _ in range(repeat):
        wall, rss, rc, note, _ = run_child(argv)
        times.append(wall)
        peak = max(peak, rss)
        if rc not in (0, 1):  # 1 = findings, a normal outcome
            break
    return Measure(label, times, peak, rc, note if rc not in (0, 1) else "")


def measure_paired(label: str, argv: list[str], baseline: list[str], repeat: int) -> Measure:
    """`measure`, each run right after a run of `baseline` (GC-off orjson on the same file): the ratio of
    the pair is what the targets use, so a machine that slows down for a while slows both."""
    out = Measure(label, [], 0)
    for _ in range(repeat):
        base = run_child(baseline)[0]
        wall, rss, rc, note, out.out_bytes = run_child(argv, keep_stdout=True)
        out.seconds.append(wall)
        out.ratios.append(wall / base)
        out.peak_rss_kib = max(out.peak_rss_kib, rss)
        out.rc, out.note = rc, note if rc not in (0, 1) else ""
        if rc not in (0, 1):
            break
    return out


def available_commands() -> set[str]:
    import typer

    from kubectl_gpu.cli.app import app

    return set(getattr(typer.main.get_command(app), "commands", {}))


def in_process(path: Path, repeat: int) -> dict[str, object]:
    """Runs in a fresh child (`--in-process`): times of orjson.loads (GC as configured, and GC disabled)
    and load_snapshot on `path`, interleaved so drift in machine load hits all three alike."""
    import orjson

    from kubectl_gpu.kube.snapshot import load_snapshot

    counts: dict[str, int] = {}

    def plain() -> None:
        orjson.loads(path.read_bytes())

    def no_gc() -> None:
        enabled = gc.isenabled()
        gc.disable()
        try:
            orjson.loads(path.read_bytes())
        finally:
            if enabled:
                gc.enable()

    def load() -> None:
        state = load_snapshot([path])
        counts.update(nodes=len(state.nodes), pods=len(state.pods), events=len(state.events))
        gc.unfreeze()  # load_snapshot may freeze what it loaded; let it be collected before the next run

    runs = {"orjson": plain, "orjson_nogc": no_gc, "load_snapshot": load}
    times: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs)
    for i in range(repeat):
        for name in order[i % 3 :] + order[: i % 3]:
            gc.collect()
            start = time.perf_counter()
            runs[name]()
            times[name].append(time.perf_counter() - start)
    return {**times, "counts": counts}


@dataclass(frozen=True)
class Bundle:
    """A benchmark shape: its file, its node count, the Pending pod `explain` targets, its layout."""

    label: str
    path: Path
    nodes: int
    explain: str
    layout: str = "bundle"  # bundle | list


def _family_kwargs(label: str, fuzz: dict[str, dict[str, int]]) -> dict[str, int]:
    if label in fuzz:
        return dict(fuzz[label])
    n = int(label[1:]) if label[:1] == "N" and label[1:].isdigit() else None
    kwargs = dict(family.SHAPES.get(label) or ({"nodes": n, "pods": 20 * n} if n else {}))
    if not kwargs:
        shapes = ", ".join([*family.SHAPES, "pending"])
        raise SystemExit(f"unknown shape {label!r}: S, M, L, N<nodes>, C<nodes>, {shapes}")
    return kwargs


def ensure(label: str, out: Path, regenerate: bool, fuzz: dict[str, dict[str, int]]) -> Bundle:
    """The input of a size (S, M, L), a family shape (N250.., pools), a compact List (C250.., pending) or a
    fuzzed shape; generated if missing."""
    if label in SIZES:
        path, nodes, pod, layout = (
            out / f"cluster-{label}.json",
            SIZES[label][0],
            EXAMPLE_PENDING_POD,
            "bundle",
        )
        make = lambda: generate(*SIZES[label], path)  # noqa: E731
    elif label == "pending":
        path, nodes, pod, layout = out / "list-pending.json", compact.MANY_PENDING["nodes"], "", "list"
        make = lambda: compact.generate_many_pending(path)  # noqa: E731
    elif label[:1] == "C" and label[1:].isdigit():
        path, nodes, pod, layout = (
            out / f"list-{label}.json",
            int(label[1:]),
            family.EXAMPLE_PENDING_POD,
            "list",
        )
        make = lambda: compact.generate_compact(nodes, path)  # noqa: E731
    else:
        kwargs = _family_kwargs(label, fuzz)
        path, nodes, pod, layout = (
            out / f"family-{label}.json",
            kwargs["nodes"],
            family.EXAMPLE_PENDING_POD,
            "bundle",
        )
        make = lambda: family.generate_family(kwargs.pop("nodes"), kwargs.pop("pods"), path, **kwargs)  # noqa: E731
    if regenerate or not path.exists():
        print(f"[{label}] generating {path} ...", flush=True)
        make()
    return Bundle(label, path, nodes, pod or family.EXAMPLE_PENDING_POD, layout)


def command_argv(name: str, path: Path, explain: str) -> list[str]:
    """The command on the file, evaluated at the generators' capture time (`generate.NOW_TEXT`): a bundle
    says when it was captured, a compact List does not, and at the wall clock's time its NodeClaims in flight
    would be past their registration TTL and its pods days old: not the cluster the file describes."""
    args = [explain if a == EXAMPLE_PENDING_POD else a for a in COMMANDS[name]]
    options = ["--snapshot", str(path), "-o", "json", "--now", NOW_TEXT]
    return [sys.executable, "-m", "kubectl_gpu", *args, *options]


def bench_size(
    bundle: Bundle, commands: list[str], repeat: int, known: set[str], with_in_process: bool
) -> list[Measure]:
    path = bundle.path
    mb = path.stat().st_size / 1e6
    print(f"[{bundle.label}] {path.name}: {mb:.0f} MB, {bundle.nodes} nodes", flush=True)
    py = sys.executable
    loader = "import orjson,sys; orjson.loads(open(sys.argv[1],'rb').read())"
    nogc = [py, "-c", "import gc; gc.disable(); " + loader, str(path)]
    results = [
        measure("orjson.loads (subprocess)", [py, "-c", loader, str(path)], repeat),
        measure("orjson.loads, GC off (subproc)", nogc, repeat),
    ]
    for name in commands:
        if name not in COMMANDS:
            results.append(Measure(name, [0.0], 0, note="unknown to bench/run.py: add it to COMMANDS"))
        elif COMMANDS[name][0] not in known:
            results.append(Measure(name, [0.0], 0, note="not implemented yet in kubectl-gpu: skipped"))
        else:
            results.append(measure_paired(name, command_argv(name, path, bundle.explain), nogc, repeat))
    if not with_in_process:
        return results
    proc = subprocess.run(
        [py, __file__, "--in-process", str(path), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    inproc = json.loads(proc.stdout)
    results.append(Measure("orjson.loads (in-process)", inproc["orjson"], 0))
    results.append(Measure("orjson.loads, GC off (in-proc)", inproc["orjson_nogc"], 0))
    results.append(
        Measure("load_snapshot (in-process)", inproc["load_snapshot"], 0, note=str(inproc["counts"]))
    )
    return results


def rows_of(bundle: Bundle, results: list[Measure]) -> list[Row]:
    by = {r.label: r for r in results}
    floor = by["orjson.loads, GC off (subproc)"]
    file_mib = bundle.path.stat().st_size / 2**20
    return [
        Row(
            bundle.label,
            bundle.nodes,
            r.label,
            r.median,
            r.median / statistics.median(r.ratios) if r.ratios else floor.median,
            r.peak_rss_kib / 1024,
            file_mib,
            r.rc,
            floor_rss_mib=floor.peak_rss_kib / 1024,
            out_mib=r.out_bytes / 2**20,
            layout=bundle.layout,
        )
        for r in results
        if r.label in COMMANDS and not r.note.startswith(("not implemented", "unknown"))
    ]


def load_of(bundle: Bundle, results: list[Measure]) -> list[Load]:
    """The in-process load's ratio to GC-off orjson.loads (median of the interleaved runs), when measured."""
    by = {r.label: r for r in results}
    load, floor = by.get("load_snapshot (in-process)"), by.get("orjson.loads, GC off (in-proc)")
    if load is None or floor is None:
        return []
    return [
        Load(
            bundle.label, statistics.median(a / b for a, b in zip(load.seconds, floor.seconds, strict=False))
        )
    ]


#: Runs of each command on the demo bundle, after one not counted; the start-up is the fastest of them.
STARTUP_RUNS = 5


def startup_times(commands: list[str], known: set[str]) -> dict[str, float]:
    """Each command on the tiny demo bundle: its start-up, taken off for the growth exponent. The fastest
    of `STARTUP_RUNS` after a warm-up: the start-up is a floor, and on C500 it is half a command's time, so
    one slow run taken for it tilts the fitted slope (two runs read drivers' as 0.38 s, warm 0.22 s: its
    growth less start-up then read 1.15 for ~1.0)."""
    demo = ROOT / "examples" / "automode-gpu-demo.json"
    out = {}
    for name in commands:
        if name in COMMANDS and COMMANDS[name][0] in known:
            argv = command_argv(name, demo, "ml/pretrain-8x-h100-1")
            run_child(argv)  # its modules' files read once
            out[name] = min(run_child(argv)[0] for _ in range(STARTUP_RUNS))
    return out


def report(size: str, results: list[Measure], markdown: bool) -> None:
    """One row per measurement; ratios to orjson with the GC as Python ships it, and with the GC off."""
    by = {r.label: r.median for r in results}
    sub, sub_nogc = by["orjson.loads (subprocess)"], by["orjson.loads, GC off (subproc)"]
    inp, inp_nogc = by.get("orjson.loads (in-process)", 1.0), by.get("orjson.loads, GC off (in-proc)", 1.0)
    header = ("size", "measurement", "wall s", "peak RSS MiB", "x orjson", "x orjson GC off", "note")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|---|---|---:|---:|---:|---:|---|")
    else:
        print(
            f"{header[0]:<4} {header[1]:<31} {header[2]:>7} {header[3]:>12} {header[4]:>8} {header[5]:>15}  note"
        )
    for r in results:
        if r.note.startswith(("not implemented", "unknown")):
            row = (size, r.label, "-", "-", "-", "-", r.note)
        else:
            ref, ref_nogc = (inp, inp_nogc) if "in-pro" in r.label else (sub, sub_nogc)
            rss = f"{r.peak_rss_kib / 1024:.0f}" if r.peak_rss_kib else "-"
            note = r.note or (f"exit {r.rc}" if r.rc not in (0, 1) else "")
            if r.label.startswith("load_snapshot"):
                (load,) = load_of(Bundle(size, Path(), 0, ""), results) or [None]
                paired = load.ratio if load is not None else r.median / ref_nogc
                verdict = "meets" if paired <= TARGET_RATIO else "misses"
                note = (
                    f"{verdict} {TARGET_RATIO}x (vs GC off: {paired:.2f}x, the median of the pairs); {note}"
                )
            elif r.label in COMMANDS:
                note = f"JSON {r.out_bytes / 2**20:.1f} MiB" + (f"; {note}" if note else "")
            row = (
                size,
                r.label,
                f"{r.median:.2f}",
                rss,
                f"{r.median / ref:.2f}",
                f"{statistics.median(r.ratios) if r.ratios else r.median / ref_nogc:.2f}",
                note,
            )
        if markdown:
            print("| " + " | ".join(row) + " |")
        else:
            print(f"{row[0]:<4} {row[1]:<31} {row[2]:>7} {row[3]:>12} {row[4]:>8} {row[5]:>15}  {row[6]}")
    sys.stdout.flush()


def _labels(text: str, prefix: str = "") -> list[str]:
    return [prefix + (t.strip() if prefix else t.strip().upper()) for t in text.split(",") if t.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark kubectl-gpu commands on synthetic inputs.")
    parser.add_argument("--sizes", default="S,M", help="default-mix sizes (S, M, L); default S,M")
    parser.add_argument(
        "--family",
        default="250,500,1000,2000",
        help="N of the N-nodes / 20N-pods bundle family (up to 5000); '' for none; default 250,500,1000,2000",
    )
    parser.add_argument(
        "--lists",
        default="250,500,1000,2000",
        help="N of the compact kind: List family (bench/compact.py, to 4000); '' for none",
    )
    parser.add_argument(
        "--shapes",
        default="pools,pending",
        help="other named shapes (pools: 1,200 NodePools; pending: many Pending)",
    )
    parser.add_argument("--fuzz", type=int, default=3, help="fuzzed shapes (random sizes of every kind)")
    parser.add_argument("--fuzz-seed", type=int, default=13)
    parser.add_argument("--fuzz-max-nodes", type=int, default=2500)
    parser.add_argument("--commands", default=",".join(DEFAULT_COMMANDS), help="comma-separated commands")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT, help="where the inputs are (generated if missing)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the inputs even if they exist")
    parser.add_argument(
        "--keep", action="store_true", help="keep generated shapes but S, M, L (default: delete)"
    )
    parser.add_argument("--in-process", type=Path, help=argparse.SUPPRESS)
    return parser


def compile_package() -> None:
    """Bytecode for the package as an installed one has it: with PYTHONDONTWRITEBYTECODE set (this sandbox
    sets it) a module changed since its last compile is compiled again by every timed child, which read
    up to 0.4 s more start-up after a change touching many modules (the TUI bench does the same)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "kubectl_gpu")], check=False, env=env
    )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.in_process:
        print(json.dumps(in_process(args.in_process, args.repeat)))
        return 0
    compile_package()
    known = available_commands()
    commands = [c for c in args.commands.split(",") if c]
    fuzz = family.fuzzed(args.fuzz_seed, args.fuzz, args.fuzz_max_nodes)
    families = {"N": _labels(args.family, "N"), "C": _labels(args.lists, "C")}
    shapes = [t.strip() for t in args.shapes.split(",") if t.strip()]
    labels = [*_labels(args.sizes), *families["N"], *families["C"], *shapes, *fuzz]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, repeat {args.repeat}", flush=True)
    startup = startup_times(commands, known)
    print("start-up on the demo (s): " + ", ".join(f"{c} {t:.2f}" for c, t in startup.items()), flush=True)
    rows: list[Row] = []
    loads: list[Load] = []
    started = time.perf_counter()
    for label in labels:
        bundle = ensure(label, args.out, args.regenerate, fuzz)
        results = bench_size(bundle, commands, args.repeat, known, with_in_process=label not in fuzz)
        report(label, results, args.markdown)
        rows += rows_of(bundle, results)
        loads += load_of(bundle, results)
        if label not in SIZES and not args.keep:
            bundle.path.unlink()
    points: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for r in rows:
        for name, members in families.items():
            if r.shape in members:
                points.setdefault(name, {}).setdefault(r.command, []).append((r.nodes, r.seconds))
    missed = print_targets(rows, points, startup, markdown=args.markdown, loads=loads)
    print(f"bench took {time.perf_counter() - started:.0f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
