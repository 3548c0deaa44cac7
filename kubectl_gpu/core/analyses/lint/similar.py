"""`difflib.get_close_matches`, the same answer, over a fixed list of names searched many times.

`get_close_matches` computes the full Ratcliff/Obershelp ratio of every candidate that passes two cheap
upper bounds (length, then shared characters). Over the catalog's ~900 instance type names nearly all pass
(`xlarge` is in every one), so each search ran ~900 full ratios. Here the shared-character bound
(`quick_ratio`) comes from character counts kept per name (for every name at once: one integer per character
and count, summed), the candidates are taken in decreasing bound, and the search stops once no remaining
bound can reach the n-th best ratio found: the same names in the same order, with a few full ratios. Each
full ratio is `ratio` below, difflib's own algorithm without its object (twice as fast on names; 300
NodePools' typos ask for ~3,800)."""

from __future__ import annotations

import difflib
import heapq
import sys
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from operator import truediv
from typing import Literal

__all__ = ["NameIndex", "ratio"]

#: difflib's SequenceMatcher drops a second sequence's popular elements (autojunk) from this length on;
#: `ratio` is its answer only below it.
_AUTOJUNK_FROM = 200


def _positions(word: str) -> dict[str, list[int]]:
    """Each character of `word` -> where it is (difflib's `b2j`, nothing junk)."""
    out: dict[str, list[int]] = {}
    for j, char in enumerate(word):
        out.setdefault(char, []).append(j)
    return out


def ratio(name: str, word: str, positions: dict[str, list[int]] | None = None) -> float:
    """`difflib.SequenceMatcher(None, name, word).ratio()`, for a `word` shorter than 200 characters:
    Ratcliff/Obershelp's longest matching block (difflib's, ties to the earliest in `name`, then in `word`),
    then the same on each side of it, the matched characters summed; `positions` is `_positions(word)`."""
    if len(word) >= _AUTOJUNK_FROM:
        return difflib.SequenceMatcher(None, name, word).ratio()
    found = positions if positions is not None else _positions(word)
    total = len(name) + len(word)
    return 2.0 * _matched(name, word, found) / total if total else 1.0


def _matched(a: str, b: str, positions: dict[str, list[int]]) -> int:
    """How many characters difflib's `get_matching_blocks` matches: its `find_longest_match` (no junk, so no
    block grows past what the scan finds) over the same queue of ranges."""
    matched = 0
    ranges = [(0, len(a), 0, len(b))]
    nothing: list[int] = []
    while ranges:
        alo, ahi, blo, bhi = ranges.pop()
        besti, bestj, bestsize = alo, blo, 0
        lengths: dict[int, int] = {}  # j -> the length of the match ending at a[i - 1], b[j]
        for i in range(alo, ahi):
            ending = lengths.get
            lengths = {}
            for j in positions.get(a[i], nothing):
                if j < blo:
                    continue
                if j >= bhi:
                    break
                k = lengths[j] = ending(j - 1, 0) + 1
                if k > bestsize:
                    besti, bestj, bestsize = i - k + 1, j - k + 1, k
        if bestsize:
            matched += bestsize
            if alo < besti and blo < bestj:
                ranges.append((alo, besti, blo, bestj))
            if besti + bestsize < ahi and bestj + bestsize < bhi:
                ranges.append((besti + bestsize, ahi, bestj + bestsize, bhi))
    return matched


class NameIndex:
    """Distinct names, sorted, with their character counts."""

    __slots__ = ("_columns", "_halves", "_width", "counts", "lengths", "names")

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self.counts = [Counter(name) for name in self.names]
        self.lengths = [len(name) for name in self.names]
        # bytes per name in a packed column: enough for the longest name (no count of it is larger)
        self._width = next(w for w in (1, 2, 4, 8) if max(self.lengths, default=0) < 1 << (8 * w))
        self._columns: dict[tuple[str, int], int] = {}
        self._halves: dict[int, list[float]] = {}

    def starting_with(self, prefix: str) -> list[str]:
        """The names that start with `prefix`, but `prefix` itself, in order: the run of them in the sorted
        names, found by bisection (every name compared: ~900 a search over the catalog's types)."""
        names = self.names
        at = bisect_left(names, prefix)
        out = []
        while at < len(names) and names[at].startswith(prefix):
            if names[at] != prefix:
                out.append(names[at])
            at += 1
        return out

    def _column(self, char: str, count: int) -> int:
        """min(count, occurrences of `char`) for every name, packed into one integer (`_width` bytes each, in
        the machine's order): the columns of a word's characters are summed as integers, with no carry."""
        found = self._columns.get((char, count))
        if found is None:
            found = self._columns[(char, count)] = sum(
                min(count, c[char]) << (8 * self._width * n) for n, c in enumerate(self.counts)
            )
        return found

    def _ordered(self, word: str, cutoff: float) -> Iterator[tuple[float, str]]:
        """(difflib's quick_ratio, name), largest first, of the names whose quick_ratio reaches `cutoff` (and
        so their real_quick_ratio, never smaller): the shared characters of every name at once."""
        size = len(word)
        shared = sum(self._column(c, k) for c, k in Counter(word).items())
        width = self._width
        counts = memoryview(shared.to_bytes(width * len(self.names), sys.byteorder)).cast(_FORMATS[width])
        halves = self._halves.get(size)
        if halves is None:  # half of each name's length plus the word's: exact, so the bound is difflib's
            halves = self._halves[size] = [(size + length) / 2.0 for length in self.lengths]
        bounds = list(map(truediv, counts, halves))
        names = self.names
        for n in sorted(range(len(bounds)), key=bounds.__getitem__, reverse=True):
            bound = bounds[n]
            if bound < cutoff:
                return
            yield bound, names[n]

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.5) -> list[str]:
        """`difflib.get_close_matches(word, self.names, n, cutoff)`."""
        if not word or n <= 0:
            return difflib.get_close_matches(word, self.names, n=n, cutoff=cutoff)
        best: list[tuple[float, str]] = []  # min-heap of the n largest (ratio, name), as heapq.nlargest ranks
        positions = _positions(word)
        for bound, name in self._ordered(word, cutoff):
            if len(best) == n and bound < best[0][0]:
                break  # ratio <= bound < the n-th best: nothing left can enter
            found = ratio(name, word, positions)
            if found < cutoff:
                continue
            if len(best) < n:
                heapq.heappush(best, (found, name))
            elif (found, name) > best[0]:
                heapq.heapreplace(best, (found, name))
        return [name for _, name in sorted(best, reverse=True)]


#: `memoryview.cast` formats of unsigned integers by their bytes
_FORMATS: dict[int, Literal["B", "H", "I", "Q"]] = {1: "B", 2: "H", 4: "I", 8: "Q"}
