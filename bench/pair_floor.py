#!/usr/bin/env python3
"""What any pending engine that visits every shape-and-kind pair pays at least, and how many answers ranking reads.

    python bench/pair_floor.py bench/out/shape-many-pending.json [--repeat 3]

The file is loaded and `pending` analysed once, with `PoolKinds.entries` recorded for every shape it asks
about (the pods' shapes and the fix verifier's changed pods). Then, GC off, in CPU s:
* `entries` asked again for every recorded shape, on the same analysis: every answer is found, so this is
  what its lookups cost, and the first analysis' `entries` time less this is what its misses cost;
* the floor of a per-pair engine: for each recorded shape, its entries (already made) looked up one per kind
  in a dict, sorted as `Ranked` sorts them, and their members counted;
* the distinct answers ranking reads, per kind (a pool's offers, excluded, spec and capacity counts,
  relaxations, codes and fitting types), against the templates made: what words cost in distinct answers.

bench/README.md ("What stays over its goal") reads both.
"""

from __future__ import annotations

import argparse
import gc
import time
from datetime import datetime
from operator import attrgetter
from pathlib import Path

from kubectl_gpu.core.analyses.pending.analysis import analyse_pending
from kubectl_gpu.core.analyses.pending.ranking import Entry
from kubectl_gpu.core.analyses.pending.targets.pools import kinds
from kubectl_gpu.core.analyses.pending.targets.pools.template import PoolCandidate
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.snapshot import load_snapshot

NOW = datetime.fromisoformat("2026-12-07T00:00:00+00:00")


class Recorded:
    """One pending analysis of a file, with every `PoolKinds.entries` call: its answer and its CPU time."""

    def __init__(self, path: Path) -> None:
        state, catalog = load_snapshot([str(path)]), load_catalog()
        self.asked: list[tuple[kinds.PoolKinds, object]] = []
        self.calls: list[list[Entry]] = []
        self.first = 0.0  # CPU s in `entries`, the first time
        original = kinds.PoolKinds.entries

        def entries(pools: kinds.PoolKinds, shape: object) -> list[Entry]:
            start = time.process_time()
            found = original(pools, shape)  # type: ignore[arg-type]
            self.first += time.process_time() - start
            self.asked.append((pools, shape))
            self.calls.append(found)
            return found

        kinds.PoolKinds.entries = entries  # type: ignore[method-assign]
        try:
            gc.disable()
            analyse_pending(state, catalog, NOW)
        finally:
            kinds.PoolKinds.entries = original  # type: ignore[method-assign]

    def again(self) -> float:
        """CPU s to ask `entries` again for every recorded shape (every answer is in the memo now)."""
        start = time.process_time()
        for pools, shape in self.asked:
            pools.entries(shape)  # type: ignore[arg-type]
        return time.process_time() - start


def pair_floor(calls: list[list[Entry]]) -> float:
    """CPU s to look each shape's entries up one per kind, sort them as `Ranked` does and count them."""
    table = {(k, s): entry for s, found in enumerate(calls) for k, entry in enumerate(found)}
    order = attrgetter("order")
    start = time.process_time()
    for s, found in enumerate(calls):
        got = [table[(k, s)] for k in range(len(found))]
        got.sort(key=order)
        sum([e.size for e in got])
    return time.process_time() - start


def distinct_answers(calls: list[list[Entry]]) -> tuple[int, int]:
    """(templates made, distinct answers per kind that ranking reads)."""
    templates: set[int] = set()
    facts: set[tuple[object, ...]] = set()
    for found in calls:
        for entry in found:
            candidate = entry.sample
            if not isinstance(candidate, PoolCandidate):
                continue
            t = candidate.template
            templates.add(id(t))
            fitting = tuple(map(id, t.fitting))
            facts.add(
                (
                    id(candidate.target.pool),
                    t.offers,
                    t.excluded,
                    t.spec,
                    t.capacity,
                    t.relaxed,
                    t.codes,
                    fitting,
                )
            )
    return len(templates), len(facts)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    recorded = Recorded(args.file)
    calls = recorded.calls
    pairs = sum(len(found) for found in calls)
    print(f"{len(calls)} shapes, {pairs} pairs: entries {recorded.first:.3f} CPU s in the analysis")
    for _ in range(args.repeat):
        print(f"  entries again, every answer found: {recorded.again():.3f} CPU s")
    for _ in range(args.repeat):
        print(f"  the pairs alone (lookup, sort and count): {pair_floor(calls):.3f} CPU s")
    templates, facts = distinct_answers(calls)
    print(f"{templates} templates made; {facts} distinct answers per kind that ranking reads")


if __name__ == "__main__":
    main()
