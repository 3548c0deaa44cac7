"""Snapshot files read ahead (`kube/read_ahead.py`), which `snapshot_decode.read_file` takes in place of a read.

Bytes read ahead stand in for a read only when they are what that read would give: the same file (device and
inode), its size and modification time unchanged since, all of it read. Each is taken once: a second read of
the file reads it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

__all__ = ["keep", "reading", "take"]

#: (device, inode) -> (size, mtime_ns, bytes) once read
_READ: dict[tuple[int, int], tuple[int, int, bytes]] = {}
_PLANNED: set[tuple[int, int]] = set()  # (device, inode) of the files being read ahead
_THREADS: list[threading.Thread] = []
_LOCK = threading.Lock()


def reading(thread: threading.Thread, files: Iterable[os.stat_result]) -> None:
    """`thread` is reading these files ahead (their `stat` before the read)."""
    with _LOCK:
        _PLANNED.update((st.st_dev, st.st_ino) for st in files)
        _THREADS.append(thread)


def keep(st: os.stat_result, data: bytes) -> None:
    """The whole content of the file whose `fstat`, once it was read, is `st`."""
    with _LOCK:
        _READ[(st.st_dev, st.st_ino)] = (st.st_size, st.st_mtime_ns, data)


def take(st: os.stat_result) -> bytes | None:
    """The bytes read ahead of the open file whose `fstat` is `st`, when they are still its content (same
    file, size and modification time), once; None otherwise. Waits for a read in progress of that file."""
    key = (st.st_dev, st.st_ino)
    if key not in _PLANNED:
        return None
    from kubectl_gpu.kube.worker_threads import WAIT_SLICE

    for thread in list(_THREADS):
        while thread.is_alive():  # a slice at a time: a signal is answered at once (worker_threads.py)
            thread.join(WAIT_SLICE)
    with _LOCK:
        found = _READ.pop(key, None)
    if found is None or found[:2] != (st.st_size, st.st_mtime_ns):
        return None
    return found[2]
