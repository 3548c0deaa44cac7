"""`difflib.get_close_matches`, the same answer, over a fixed list of names searched many times.

`get_close_matches` computes the full Ratcliff/Obershelp ratio of every candidate that passes two cheap
upper bounds (length, then shared characters). Over the catalog's ~900 instance type names nearly all pass
(`xlarge` is in every one), so each search ran ~900 full ratios. Here the shared-character bound
(`quick_ratio`) comes from character counts kept per name, the candidates are taken in decreasing bound,
and the search stops once no remaining bound can reach the n-th best ratio found: the same names in the
same order, with a few full ratios."""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Iterable

__all__ = ["NameIndex"]


class NameIndex:
    """Distinct names, sorted, with their character counts."""

    __slots__ = ("_columns", "counts", "lengths", "names")

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self.counts = [Counter(name) for name in self.names]
        self.lengths = [len(name) for name in self.names]
        self._columns: dict[tuple[str, int], tuple[int, ...]] = {}

    def _column(self, char: str, count: int) -> tuple[int, ...]:
        """min(count, occurrences of `char`) for every name: one term of the shared-character count."""
        found = self._columns.get((char, count))
        if found is None:
            found = self._columns[(char, count)] = tuple(min(count, c[char]) for c in self.counts)
        return found

    def _bounds(self, word: str, cutoff: float) -> list[tuple[float, str]]:
        """(difflib's quick_ratio, name) of the names whose real_quick_ratio and quick_ratio reach `cutoff`:
        the shared characters of every name at once, summed column by column."""
        size = len(word)
        columns = [self._column(c, k) for c, k in Counter(word).items()]
        out: list[tuple[float, str]] = []
        for shared, length, name in zip(
            map(sum, zip(*columns, strict=True)), self.lengths, self.names, strict=True
        ):
            total = size + length
            # difflib's real_quick_ratio (lengths), then quick_ratio (shared characters): upper bounds
            if 2.0 * min(size, length) / total >= cutoff and (bound := 2.0 * shared / total) >= cutoff:
                out.append((bound, name))
        return out

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.5) -> list[str]:
        """`difflib.get_close_matches(word, self.names, n, cutoff)`."""
        if not word or n <= 0:
            return difflib.get_close_matches(word, self.names, n=n, cutoff=cutoff)
        bounds = self._bounds(word, cutoff)
        bounds.sort(reverse=True)
        best: list[tuple[float, str]] = []  # min-heap of the n largest (ratio, name), as heapq.nlargest ranks
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(word)
        for bound, name in bounds:
            if len(best) == n and bound < best[0][0]:
                break  # ratio <= bound < the n-th best: nothing left can enter
            matcher.set_seq1(name)
            ratio = matcher.ratio()
            if ratio < cutoff:
                continue
            if len(best) < n:
                heapq.heappush(best, (ratio, name))
            elif (ratio, name) > best[0]:
                heapq.heapreplace(best, (ratio, name))
        return [name for _, name in sorted(best, reverse=True)]
