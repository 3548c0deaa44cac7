"""The benchmark's targets (bench/README.md) checked against one run's figures.

* time: every read-only command, as a whole process, at most 2x the GC-off orjson parse of the same file
  on shapes of 1,000 nodes and more (issue 22; issue 13 had 2x from 2,000 and 3x from 5,000), on our
  bundles and on compact `kind: List` files alike; on the many-Pending shape (`pending`), `pending` and
  `diagnose` at most 3x; smaller shapes are reported without a time target (the interpreter's start-up,
  ~0.3 s, dominates them);
* memory: peak RSS at most 1.5x the floor's own (the GC-off orjson run of the same file), on every shape
  with a time target; and, on our bundles (streamed), at most 3x the file (issue 13);
* output: the JSON document no larger than the input, on every shape with a time target;
* load: `load_snapshot` in-process at most 1.5x the GC-off `orjson.loads` of the same file, on every shape
  measured in-process (any input layout);
* growth: over each family (the N-nodes bundles, the compact Lists), the exponent k of time ~ N^k (least
  squares on log-log) at most 1.1 for every command, as a whole process and with its start-up (its time on
  the tiny demo bundle) taken off;
* the exit code is 0 or 1 (findings); anything else is a missed target.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Load", "Row", "growth", "print_targets", "target_for"]

GROWTH_MAX = 1.1
RSS_MAX = 3.0  # x the file, streamed bundles
RSS_FLOOR_MAX = 1.5  # x the GC-off orjson run's own peak
LOAD_MAX = 1.5  # load_snapshot in-process, x GC-off orjson.loads
#: Per-shape time targets that differ from `target_for`: command -> ratio.
SHAPE_TARGETS: dict[str, dict[str, float]] = {"pending": {"pending": 3.0, "diagnose": 3.0}}
SHAPE_NODES = {"pending": 1000}  # the many-Pending shape has 500 nodes but 30,000 pods: targets apply


@dataclass(frozen=True)
class Row:
    """One command on one shape."""

    shape: str
    nodes: int
    command: str
    seconds: float
    orjson_nogc: float
    peak_rss_mib: float
    file_mib: float
    rc: int
    floor_rss_mib: float = 0.0
    out_mib: float = 0.0
    layout: str = "bundle"  # bundle (streamed) | list (a compact kind: List, read whole)

    @property
    def ratio(self) -> float:
        return self.seconds / self.orjson_nogc if self.orjson_nogc else math.inf

    @property
    def rss_ratio(self) -> float:
        return self.peak_rss_mib / self.file_mib if self.file_mib else math.inf

    @property
    def rss_floor_ratio(self) -> float:
        return self.peak_rss_mib / self.floor_rss_mib if self.floor_rss_mib else math.inf


@dataclass(frozen=True)
class Load:
    """`load_snapshot` in-process on one shape: its median ratio to GC-off orjson.loads."""

    shape: str
    ratio: float


def target_for(nodes: int, shape: str = "", command: str = "") -> float | None:
    """The time target (x GC-off orjson) for `command` on a shape of `nodes` nodes; None below 1,000."""
    special = SHAPE_TARGETS.get(shape, {}).get(command)
    if special is not None:
        return special
    return 2.0 if max(nodes, SHAPE_NODES.get(shape, 0)) >= 1000 else None


def growth(points: Sequence[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(seconds) against log(nodes); None with fewer than two sizes."""
    pts = [(math.log(n), math.log(t)) for n, t in points if n > 0 and t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def _line(markdown: bool, cells: Iterable[str]) -> str:
    cells = list(cells)
    if markdown:
        return "| " + " | ".join(cells) + " |"
    return "  ".join(f"{c:<18}" if i < 3 else c for i, c in enumerate(cells))


class _Verdicts:
    """Prints each target's line and counts the missed ones."""

    def __init__(self, markdown: bool) -> None:
        self.markdown, self.missed = markdown, 0

    def check(self, target: str, shape: str, command: str, figure: str, ok: bool) -> None:
        self.missed += not ok
        print(_line(self.markdown, (target, shape, command, figure, "met" if ok else "MISSED")))


def _row_targets(v: _Verdicts, r: Row) -> None:
    if r.rc not in (0, 1):
        v.check("exit 0/1", r.shape, r.command, f"exit {r.rc}", False)
        return
    limit = target_for(r.nodes, r.shape, r.command)
    if limit is None:
        return
    v.check(f"time <= {limit:g}x", r.shape, r.command, f"{r.ratio:.2f}x", r.ratio <= limit)
    figure = f"{r.rss_floor_ratio:.2f}x ({r.peak_rss_mib:.0f} MiB)"
    v.check(
        f"RSS <= {RSS_FLOOR_MAX:g}x floor's", r.shape, r.command, figure, r.rss_floor_ratio <= RSS_FLOOR_MAX
    )
    if r.layout == "bundle":
        v.check(
            f"RSS <= {RSS_MAX:g}x file", r.shape, r.command, f"{r.rss_ratio:.2f}x", r.rss_ratio <= RSS_MAX
        )
    figure = f"{r.out_mib:.1f} / {r.file_mib:.0f} MiB"
    v.check("JSON <= input", r.shape, r.command, figure, r.out_mib <= r.file_mib)


def print_targets(
    rows: Sequence[Row],
    families: Mapping[str, Mapping[str, Sequence[tuple[int, float]]]],
    startup: Mapping[str, float],
    *,
    markdown: bool,
    loads: Sequence[Load] = (),
) -> int:
    """Every target with its figure, met or missed; returns the number missed. `families`: family name ->
    command -> (nodes, seconds) of each member."""
    v = _Verdicts(markdown)
    print("\nTARGETS" + ("\n" if markdown else ""))
    if markdown:
        print("| target | shape | command | figure | verdict |")
        print("|---|---|---|---:|---|")
    for r in rows:
        _row_targets(v, r)
    for load in loads:
        v.check(
            f"load <= {LOAD_MAX:g}x orjson",
            load.shape,
            "load_snapshot",
            f"{load.ratio:.2f}x",
            load.ratio <= LOAD_MAX,
        )
    for name, commands in families.items():
        for command, points in commands.items():
            for label, pts in (
                ("growth", points),
                ("growth - start-up", [(n, t - startup.get(command, 0.0)) for n, t in points]),
            ):
                k = growth(pts)
                if k is not None:
                    sizes = f"{name} {min(n for n, _ in pts)}..{max(n for n, _ in pts)}"
                    v.check(f"{label} <= {GROWTH_MAX}", sizes, command, f"{k:.2f}", k <= GROWTH_MAX)
    worst = max((r for r in rows if r.shape.startswith("fuzz")), key=lambda r: r.ratio, default=None)
    if worst is not None:
        cells = (
            "fuzz: worst ratio",
            worst.shape,
            worst.command,
            f"{worst.ratio:.2f}x",
            f"{worst.nodes} nodes",
        )
        print(_line(markdown, cells))
    print(f"\n{v.missed} target(s) missed" if v.missed else "\nevery target met")
    return v.missed
