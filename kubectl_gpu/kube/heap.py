"""Loading a fleet creates millions of objects and no garbage cycles: keep the cyclic GC out of the way.

Without this, CPython's collector repeatedly walks the whole growing heap while a large snapshot is
parsed, which costs more than the JSON decoding itself (measured in bench/). Afterwards the loaded
objects are frozen into the permanent generation, so later collections during analysis skip them too.
An analysis run once by a command (`without_collection`) creates a few hundred thousand short-lived
objects and almost no cycles: the collector's passes over them cost a fifth of the analysis on a cluster
of 1,200 NodePools, so a one-shot command runs it with the collector off as well.

Both nest and may run in several threads at once (fleet mode loads clusters in parallel): the collector is
off while any of them runs and back on, if it was on, when the last one ends.

The process's start-up holds it off as well (`hold_off_for_startup`, from `__main__`): importing a command's
modules builds some hundred thousand objects (classes, functions, code) and no garbage worth a pass, and the
passes cost ~10 % of the imports. It is back on where the command's work begins: the first
`without_collection` or `end_startup`, whichever comes first, with what the imports built frozen out of
later collections (`tui` keeps it through Textual's imports: its first read ends it).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "bulk_load",
    "end_startup",
    "held_off",
    "hold_off_for_startup",
    "inputs_kept_until_exit",
    "keep_until_exit",
    "retain_input",
    "without_collection",
]

_kept: list[object] = []
_inputs: list[object] = []
_keeping_inputs = 0
_lock = threading.Lock()
_depth = 0
_was_enabled = False
_in_startup = False


def hold_off_for_startup() -> None:
    """The collector off from here until `end_startup` (or the first `without_collection`); nothing where it is
    off already."""
    global _in_startup
    with _lock:
        if _depth == 0 and not _in_startup and gc.isenabled():
            gc.disable()
            _in_startup = True


def end_startup() -> None:
    """The end of `hold_off_for_startup`: what was built meanwhile frozen, the collector back on. Nothing
    where the start-up's hold is over (or was never taken)."""
    with _lock:
        _end_startup()


def _end_startup() -> None:
    global _in_startup
    if _in_startup:
        _in_startup = False
        gc.freeze()
        gc.enable()


def held_off() -> bool:
    """Whether a `without_collection` block runs now (in any thread)."""
    with _lock:
        return _depth > 0


@contextmanager
def without_collection() -> Iterator[None]:
    """The cyclic GC off while the block runs (in any thread)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _end_startup()  # the command's work begins: the collector was on before the start-up's hold
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


@contextmanager
def bulk_load() -> Iterator[None]:
    """`without_collection`, then what was loaded is frozen out of later collections."""
    with without_collection():
        try:
            yield
        finally:
            gc.freeze()


def keep_until_exit(obj: object) -> None:
    """Hold `obj` (a command's loaded state) until the process ends, so it is not freed object by object
    when the command returns (~0.5 s on a 400 MB snapshot): `python -m kubectl_gpu` then exits without
    tearing the heap down (`__main__._exit_now`). Only the latest is held: an in-process caller that runs
    many commands (the tests) keeps one state at a time."""
    _kept[:] = [obj]


@contextmanager
def inputs_kept_until_exit() -> Iterator[None]:
    """While the block runs, what `retain_input` is handed (a file's parsed tree, read whole) is held until
    the process ends instead of being freed once its models are built: freeing a `kubectl get -o json` List
    of 100 MB read whole is ~0.3 s, a sixth of a one-shot command on it, and the process's exit frees it for
    nothing (`__main__._exit_now`). A List read to its parts (`snapshot_decode._parts_read`) is not handed
    here: it is let go of as it is read (`snapshot._Reading`). For one-shot commands only (`cli/run.load`): a caller that reads again (the
    TUI) must not. Entering it lets go of what an earlier block kept (one command's inputs at a time)."""
    global _keeping_inputs
    with _lock:
        if _keeping_inputs == 0:
            _inputs.clear()
        _keeping_inputs += 1
    try:
        yield
    finally:
        with _lock:
            _keeping_inputs -= 1


def retain_input(tree: object) -> bool:
    """Hold `tree` until exit when inside `inputs_kept_until_exit` (see there); whether it is held."""
    if not _keeping_inputs:
        return False
    with _lock:
        _inputs.append(tree)
    return True
