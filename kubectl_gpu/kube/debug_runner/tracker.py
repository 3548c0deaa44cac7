"""Naming and bookkeeping of debug pods: the random name suffix, chosen before the create is sent, and
the tracker of every pod created or being created until its delete succeeded."""

from __future__ import annotations

import random
import threading

from kubectl_gpu.core.debugpod import SUFFIX_ALPHABET

__all__ = ["PodTracker", "random_suffix"]


def random_suffix(rng: random.Random | None = None) -> str:
    chooser = rng or random.SystemRandom()
    return "".join(chooser.choice(SUFFIX_ALPHABET) for _ in range(5))


class PodTracker:
    """Pods we created or are creating, until their delete succeeded: the last-resort cleanup list."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: set[tuple[str, str]] = set()

    def add(self, namespace: str, name: str) -> None:
        with self._lock:
            self._pods.add((namespace, name))

    def discard(self, namespace: str, name: str) -> None:
        with self._lock:
            self._pods.discard((namespace, name))

    def pending(self) -> list[tuple[str, str]]:
        with self._lock:
            return sorted(self._pods)
