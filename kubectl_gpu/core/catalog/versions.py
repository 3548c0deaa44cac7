"""Dotted numeric versions (NVIDIA drivers, CUDA, Bottlerocket) compared component by component.

``570.124.06`` > ``570.26`` because 124 > 26, which a string comparison gets wrong. Missing trailing
components count as zero, so ``570.26`` == ``570.26.0``.
"""

from __future__ import annotations

from functools import lru_cache

from kubectl_gpu.core.lazy_pattern import lazy_pattern

_DOTTED = lazy_pattern(r"\d+(?:\.\d+)*")

VersionKey = tuple[int, ...]


@lru_cache(maxsize=4096)  # sorts and the CUDA release table ask of the same few versions thousands of times
def version_key(text: str) -> VersionKey | None:
    """Sortable key of a dotted numeric version, or None if ``text`` is not one.

    Trailing zero components are dropped, so keys of equal versions are equal and tuple order is
    numeric order with zero padding.
    """
    if not _DOTTED.fullmatch(text):
        return None
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)
