"""The benchmark's targets (bench/README.md) checked against one run's figures.

* time: every read-only command, as a whole process, at most 2x the GC-off orjson parse of the same file on
  M-sized shapes (2,000 to 4,999 nodes) and at most 3x on L-sized ones (5,000 nodes and more); smaller
  shapes are reported without a time target (the interpreter's start-up, ~0.3 s, dominates them);
* memory: peak RSS at most 3x the file, on the same shapes;
* growth: over the N-nodes / 20N-pods family, the exponent k of time ~ N^k (least squares on log-log) at
  most 1.1 for every command, as a whole process and with its start-up (its time on the tiny demo bundle)
  taken off.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Row", "growth", "print_targets", "target_for"]

GROWTH_MAX = 1.1
RSS_MAX = 3.0


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

    @property
    def ratio(self) -> float:
        return self.seconds / self.orjson_nogc if self.orjson_nogc else math.inf

    @property
    def rss_ratio(self) -> float:
        return self.peak_rss_mib / self.file_mib if self.file_mib else math.inf


def target_for(nodes: int) -> float | None:
    """The time target (x GC-off orjson) for a shape of `nodes` nodes; None below M."""
    if nodes >= 5000:
        return 3.0
    if nodes >= 2000:
        return 2.0
    return None


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
    return "  ".join(f"{c:<14}" if i < 3 else c for i, c in enumerate(cells))


def print_targets(
    rows: Sequence[Row],
    family: Mapping[str, Sequence[tuple[int, float]]],
    startup: Mapping[str, float],
    *,
    markdown: bool,
) -> int:
    """Every target with its figure, met or missed; returns the number missed."""
    missed = 0
    print("\nTARGETS" + ("\n" if markdown else ""))
    if markdown:
        print("| target | shape | command | figure | verdict |")
        print("|---|---|---|---:|---|")
    for r in rows:
        limit = target_for(r.nodes)
        if r.rc not in (0, 1):
            missed += 1
            print(_line(markdown, ("exit 0/1", r.shape, r.command, f"exit {r.rc}", "MISSED")))
            continue
        if limit is not None:
            ok = r.ratio <= limit
            missed += not ok
            verdict = "met" if ok else "MISSED"
            print(_line(markdown, (f"time <= {limit:g}x", r.shape, r.command, f"{r.ratio:.2f}x", verdict)))
            ok = r.rss_ratio <= RSS_MAX
            missed += not ok
            verdict = "met" if ok else "MISSED"
            print(
                _line(
                    markdown,
                    (f"RSS <= {RSS_MAX:g}x file", r.shape, r.command, f"{r.rss_ratio:.2f}x", verdict),
                )
            )
    for command, points in family.items():
        for label, pts in (
            ("growth", points),
            ("growth - start-up", [(n, t - startup.get(command, 0.0)) for n, t in points]),
        ):
            k = growth(pts)
            if k is None:
                continue
            ok = k <= GROWTH_MAX
            missed += not ok
            sizes = f"N={min(n for n, _ in pts)}..{max(n for n, _ in pts)}"
            verdict = "met" if ok else "MISSED"
            print(_line(markdown, (f"{label} <= {GROWTH_MAX}", sizes, command, f"{k:.2f}", verdict)))
    worst = max((r for r in rows if r.shape.startswith("fuzz")), key=lambda r: r.ratio, default=None)
    if worst is not None:
        print(
            _line(
                markdown,
                (
                    "fuzz: worst ratio",
                    worst.shape,
                    worst.command,
                    f"{worst.ratio:.2f}x",
                    f"{worst.nodes} nodes",
                ),
            )
        )
    print(f"\n{missed} target(s) missed" if missed else "\nevery target met")
    return missed
