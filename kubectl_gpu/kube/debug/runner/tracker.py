"""Naming and bookkeeping of debug pods: the random name suffix, chosen before the create is sent, and
the tracker of every pod created or being created until it is known to be gone.

A pod is known gone when the server refused its create (a `Status` answer: nothing was made), or when a
DELETE succeeded or answered 404 *after its create had returned*. A 404 while the create is still in
flight proves nothing: the create may land a moment later. So the tracker knows which creates are in
flight, and `wait_settled` lets the last-resort cleanup wait for them before it deletes.
"""

from __future__ import annotations

import random
import threading
import time

from kubectl_gpu.core.debugpod import SUFFIX_ALPHABET

__all__ = ["PodTracker", "random_suffix"]

Key = tuple[str, str]


def random_suffix(rng: random.Random | None = None) -> str:
    chooser = rng or random.SystemRandom()
    return "".join(chooser.choice(SUFFIX_ALPHABET) for _ in range(5))


class PodTracker:
    """Pods we created or are creating, until known gone: the last-resort cleanup list. Thread-safe."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._pods: set[Key] = set()
        self._in_flight: set[Key] = set()
        self.nodes: dict[Key, str] = {}  # the node of each pod, for messages

    def add(self, namespace: str, name: str, node: str = "") -> None:
        """A pod that exists (or may): delete it before the end."""
        with self._changed:
            self._pods.add((namespace, name))
            if node:
                self.nodes[(namespace, name)] = node

    def creating(self, namespace: str, name: str, node: str = "") -> None:
        """Its create is about to be sent: tracked, and in flight until `settled`."""
        with self._changed:
            self.add(namespace, name, node)
            self._in_flight.add((namespace, name))

    def settled(self, namespace: str, name: str) -> None:
        """Its create returned (answered or not): a 404 from now on means it is gone."""
        with self._changed:
            self._in_flight.discard((namespace, name))
            self._changed.notify_all()

    def discard(self, namespace: str, name: str) -> None:
        """Known gone: deleted, or never created."""
        with self._changed:
            self._pods.discard((namespace, name))
            self._in_flight.discard((namespace, name))
            self._changed.notify_all()

    def in_flight(self, namespace: str, name: str) -> bool:
        with self._changed:
            return (namespace, name) in self._in_flight

    def pending(self) -> list[Key]:
        with self._changed:
            return sorted(self._pods)

    def wait_settled(self, timeout: float | None) -> list[Key]:
        """Wait (at most `timeout` seconds; None: as long as it takes) until no create is in flight;
        returns those still in flight."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self._in_flight:
                remaining = None if end is None else end - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._changed.wait(0.5 if remaining is None else min(remaining, 0.5))
            return sorted(self._in_flight)
