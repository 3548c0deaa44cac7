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

    __slots__ = ("counts", "names")

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self.counts = [Counter(name) for name in self.names]

    def close_matches(self, word: str, n: int = 3, cutoff: float = 0.5) -> list[str]:
        """`difflib.get_close_matches(word, self.names, n, cutoff)`."""
        if not word or n <= 0:
            return difflib.get_close_matches(word, self.names, n=n, cutoff=cutoff)
        chars = Counter(word).items()
        size = len(word)
        bounds: list[tuple[float, str]] = []
        for name, counts in zip(self.names, self.counts, strict=True):
            total = size + len(name)
            # difflib's real_quick_ratio, then quick_ratio: each an upper bound of the ratio
            if 2.0 * min(size, len(name)) / total < cutoff:
                continue
            shared = sum(min(k, counts[c]) for c, k in chars if c in counts)
            bound = 2.0 * shared / total
            if bound >= cutoff:
                bounds.append((bound, name))
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
