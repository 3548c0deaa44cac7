#!/usr/bin/env python3
"""What any pending engine that visits every shape-and-kind pair pays at least, and how many answers ranking reads.

    python bench/pair_floor.py bench/out/shape-many-pending.json [--repeat 3]

The file is loaded and `pending` analysed once, with `PoolKinds.entries` recorded for every shape it asks
about (the pods' shapes and the fix verifier's changed pods). Then, GC off, in CPU s:
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


def recorded_entries(path: Path) -> list[list[Entry]]:
    """Every list `PoolKinds.entries` returned in one pending analysis of the file."""
    state, catalog = load_snapshot([str(path)]), load_catalog()
    calls: list[list[Entry]] = []
    original = kinds.PoolKinds.entries

    def entries(self: kinds.PoolKinds, shape: object) -> list[Entry]:
        found = original(self, shape)  # type: ignore[arg-type]
        calls.append(found)
        return found

    kinds.PoolKinds.entries = entries  # type: ignore[method-assign]
    try:
        analyse_pending(state, catalog, NOW)
    finally:
        kinds.PoolKinds.entries = original  # type: ignore[method-assign]
    return calls


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
    calls = recorded_entries(args.file)
    gc.disable()
    pairs = sum(len(found) for found in calls)
    for _ in range(args.repeat):
        print(f"{len(calls)} shapes, {pairs} pairs: lookup, sort and count {pair_floor(calls):.3f} CPU s")
    templates, facts = distinct_answers(calls)
    print(f"{templates} templates made; {facts} distinct answers per kind that ranking reads")


if __name__ == "__main__":
    main()
