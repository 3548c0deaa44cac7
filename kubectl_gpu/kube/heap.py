"""Loading a fleet creates millions of objects and no garbage cycles: keep the cyclic GC out of the way.

Without this, CPython's collector repeatedly walks the whole growing heap while a large snapshot is
parsed, which costs more than the JSON decoding itself (measured in bench/). Afterwards the loaded
objects are frozen into the permanent generation, so later collections during analysis skip them too.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["bulk_load"]


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
