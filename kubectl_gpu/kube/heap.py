"""Loading a fleet creates millions of objects and no garbage cycles: keep the cyclic GC out of the way.

Without this, CPython's collector repeatedly walks the whole growing heap while a large snapshot is
parsed, which costs more than the JSON decoding itself (measured in bench/). Afterwards the loaded
objects are frozen into the permanent generation, so later collections during analysis skip them too.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["bulk_load", "keep_until_exit"]

_kept: list[object] = []


@contextmanager
def bulk_load() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()


def keep_until_exit(obj: object) -> None:
    """Hold `obj` (a command's loaded state) until the process ends, so it is not freed object by object
    when the command returns (~0.5 s on a 400 MB snapshot): `python -m kubectl_gpu` then exits without
    tearing the heap down (`__main__._exit_now`). Only the latest is held: an in-process caller that runs
    many commands (the tests) keeps one state at a time."""
    _kept[:] = [obj]
