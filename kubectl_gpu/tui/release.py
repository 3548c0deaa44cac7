"""Free a replaced refresh off the UI thread, a slice at a time.

A refresh of a large cluster replaces millions of objects (150,000 pods keep their API dicts). Dropping
the last reference to the old `Refresh` frees them in one cascade of C deallocations that never lets go of
the interpreter: the screen froze for half a second on 40,000 pods. Here a thread takes the old snapshot,
keeps the big lists alive while everything else goes, then frees them a few thousand objects at a time,
so the UI thread gets the interpreter between slices.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from kubectl_gpu.tui.data import Refresh

__all__ = ["release_later"]

SLICE = 2000


def _release(holder: list[Any]) -> None:
    time.sleep(0.2)  # until the UI thread has dropped its own references (its handler takes milliseconds)
    refresh: Refresh = holder.pop()
    state = refresh.state
    big: list[list[object]] = [
        list(state.pods),
        list(state.events),
        list(state.nodes),
        list(state.nodeclaims),
    ]
    del refresh, state  # the reports, indexes and views go now; the objects above stay until below
    holder.clear()
    for items in big:
        while items:
            del items[-SLICE:]
            time.sleep(0)  # let the UI thread run between slices


def release_later(refresh: Refresh | None, *also: object) -> None:
    """Free a replaced `snapshot` (and `also`: what else held it, e.g. the views' old models) in a
    background thread. The caller drops its own references right after the call."""
    if refresh is None:
        return
    holder: list[Any] = [*also, refresh]
    threading.Thread(target=_release, args=(holder,), name="kubectl-gpu-release", daemon=True).start()
