"""A `--snapshot` file read while the command line is still being parsed and its modules imported.

Reading a snapshot is a copy of the file from the page cache into a fresh buffer: 40-120 ms for 50-100 MB on
the bench's machine, a tenth of a command. Nothing needs the bytes before `load_snapshot`, about 100 ms of
imports and parsing later, so `__main__` starts the read at once on a worker thread (which holds no lock
while the kernel copies, and blocks the signals: Ctrl-C is the main thread's), and `snapshot_decode.read_file`
takes the bytes (`kube/prefetched.py`) instead of reading them again. Anything that would not be read whole
(a bundle, read one object at a time; a file over the caps), or that changed since, is read as before: its
answer, and its error, are the ones a read gives.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kubectl_gpu.kube import prefetched

if TYPE_CHECKING:
    from kubectl_gpu.kube.bundle_stream import BundleStream

__all__ = ["snapshot_paths", "start"]


def snapshot_paths(args: Sequence[str]) -> list[str]:
    """The values of `--snapshot FILE` and `--snapshot=FILE` before a `--` (stdin's `-` left out)."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--snapshot" and i + 1 < len(args):
            out.append(args[i + 1])
        elif arg.startswith("--snapshot="):
            out.append(arg.removeprefix("--snapshot="))
    return [p for p in out if p and p != "-"]


def start(args: Sequence[str]) -> None:
    """Start reading the regular files `args` names with `--snapshot`, when they are together under the
    snapshot cap and each could be read whole (not YAML's larger files; `snapshot_decode` decides)."""
    paths = snapshot_paths(args)
    if not paths:
        return  # nothing more imported: a live command reads no file
    from kubectl_gpu.core.errors import InvalidInput
    from kubectl_gpu.kube.bundle_stream import open_bundle  # imported here: the thread need not import it
    from kubectl_gpu.kube.snapshot_decode import MAX_YAML_BYTES, max_snapshot_bytes
    from kubectl_gpu.kube.worker_threads import start_worker

    try:
        cap = max_snapshot_bytes()
        found = [(path, os.stat(path)) for path in paths]
    except (OSError, ValueError, InvalidInput):  # a bad cap or path: the command's own read says so
        return
    files = [(path, st) for path, st in found if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_YAML_BYTES]
    if not files or (cap is not None and sum(st.st_size for _, st in files) > cap):
        return
    thread = start_worker(_read_all, [path for path, _ in files], open_bundle, name="kubectl-gpu-read-ahead")
    prefetched.reading(thread, (st for _, st in files))


def _read_all(paths: list[str], open_bundle: Callable[[Path], BundleStream | None]) -> None:
    for path in paths:
        try:
            _read_one(path, open_bundle)
        except Exception:  # whatever it is, the command's own read meets it and says so: no traceback here
            continue


def _read_one(path: str, open_bundle: Callable[[Path], BundleStream | None]) -> None:
    bundle = open_bundle(Path(path))
    if bundle is not None:  # read one object at a time: the whole file is never held
        bundle.close()
        return
    with open(path, "rb") as handle:
        before = os.fstat(handle.fileno())
        data = handle.read(before.st_size + 1)
        after = os.fstat(handle.fileno())
    if len(data) == before.st_size and _version(before) == _version(after):  # else it changed as it was read
        prefetched.keep(after, data)


def _version(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns
