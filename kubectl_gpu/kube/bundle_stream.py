"""Our own bundle, read a run of objects at a time: the file is never in memory whole, nor its parsed tree.

`write_bundle` writes `orjson.dumps(bundle, option=OPT_INDENT_2)`, with `objects` the last key. JSON
strings cannot hold a raw newline, so every line of that text starts at a structural position, and the
objects of `"objects": [` are exactly the blocks from a line `    {` to the next line of exactly four spaces
and `}`. `open_bundle` recognises that layout (the file's first line, its last lines, the line that opens
`objects`), parses the head (every other key) at once, and then reads the file in chunks: each time, the
entries up to the last block end in the buffer (one `rfind`, no scan per block) are parsed as one array
and handed out one by one, so at most a chunk's objects are parsed at a time.

The layout is proved piece by piece, never assumed: the head must parse as the object it opens, every
run must parse as a JSON array's entries, runs are separated by exactly `,` and a newline, and after the
last one the file must end as `write_bundle` ends it. So a file read through this way is valid JSON with
the same value the whole-file parse gives. Anything else (`kubectl get -o json` output, compact JSON, YAML,
another key order, a truncated or malformed file) is for the caller to read whole: `open_bundle` returns
None up front, and a run that does not parse or stands out of place raises `NotStreamable` when it is
reached, so that the caller reads the file whole again and reports it exactly as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from kubectl_gpu.kube.snapshot_decode import max_snapshot_bytes

__all__ = ["BundleStream", "NotStreamable", "bundle_head", "open_bundle"]

_PREFIX = b'{\n  "'  # the first line and the indentation of the first key
_OBJECTS = b'\n  "objects": [\n'  # the line that opens the objects: the head is what precedes it
_OPEN = b"    {"  # the first line of an object's block
_CLOSE = b"\n    }"  # the last line of an object's block (followed by `,\n` or by _TAIL)
_NEXT = b",\n"
_TAIL = b"\n  ]\n}\n"  # what follows the last object's block, to the end of the file
_KIND = b'\n  "kind": "Snapshot",\n'  # `build_bundle` writes it second, after apiVersion
_KIND_WITHIN = 4096
_CHUNK = 1 << 20  # read size; a block longer than what is buffered makes the next read as large again


class NotStreamable(Exception):
    """The bundle is not in `write_bundle`'s layout after all, or a part of it does not parse: read it whole."""


class BundleStream:
    """One bundle in `write_bundle`'s layout: its head (every key but `objects`), then its objects.

    Iterating parses the objects a run at a time as they are reached and closes the file at the end; it can
    be iterated once."""

    def __init__(
        self,
        path: Path,
        head: dict[str, Any],
        file: BinaryIO,
        buf: bytearray,
        start: int,
        limit: int | None = None,
    ) -> None:
        self.path = path
        self.head = head
        self._file: BinaryIO | None = file
        self._buf = buf
        self._start = start
        self._limit = limit  # the size cap: a file that grows past it while read is read whole (and refused)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self) -> Iterator[Any]:  # objects, or whatever else an entry is (the caller says so)
        if self._file is None:
            raise NotStreamable(f"{self.path}: already read")
        try:
            yield from _runs(self._file, self._buf, self._start, self._limit)
        finally:
            self.close()


def open_bundle(path: Path) -> BundleStream | None:
    """The bundle at `path`, read as it is reached, or None when the file is not in `write_bundle`'s layout
    (or cannot be opened: the whole-file read then says why)."""
    try:
        file = path.open("rb")
    except OSError:
        return None
    try:
        stream = _open(path, file)
    except (OSError, NotStreamable):
        stream = None
    if stream is None:
        file.close()
    return stream


def bundle_head(path: Path) -> dict[str, Any] | None:
    """Every key of the bundle at `path` but its `objects`, or None where it is not in the layout."""
    stream = open_bundle(path)
    if stream is None:
        return None
    stream.close()
    return stream.head


def _open(path: Path, file: BinaryIO) -> BundleStream | None:
    size = os.fstat(file.fileno()).st_size
    if size < len(_PREFIX) + len(_OBJECTS) + len(_CLOSE) + len(_TAIL):
        return None
    limit = max_snapshot_bytes()
    if limit is not None and size > limit:
        return None  # the whole-file read refuses it, from its size, before reading it
    file.seek(size - len(_CLOSE) - len(_TAIL))
    if file.read() != _CLOSE + _TAIL:  # also refuses a truncated file before anything is parsed
        return None
    file.seek(0)
    buf = bytearray(file.read(max(_CHUNK, _KIND_WITHIN)))
    if not buf.startswith(_PREFIX) or buf.find(_KIND, 0, _KIND_WITHIN) < 0:
        return None  # not ours (a `kubectl get` List may end like a bundle): not scanned for `objects`
    searched = 0
    while (found := buf.find(_OBJECTS, searched)) < 0 or len(buf) < found + len(_OBJECTS) + len(_OPEN):
        chunk = file.read(max(_CHUNK, len(buf)))  # the head may hold large probe outputs
        if not chunk:
            return None
        searched = found if found >= 0 else max(0, len(buf) - len(_OBJECTS))
        buf += chunk
    start = found + len(_OBJECTS)
    if buf[found - 1 : found] != b"," or buf[start : start + len(_OPEN)] != _OPEN:
        return None
    try:
        head = orjson.loads(bytes(buf[: found - 1]) + b"\n}")
    except orjson.JSONDecodeError:
        return None
    if not isinstance(head, dict) or "objects" in head:
        return None
    del buf[:start]
    return BundleStream(path, head, file, buf, 0, limit)


def _runs(file: BinaryIO, buf: bytearray, pos: int, limit: int | None = None) -> Iterator[Any]:
    """Each entry of the `objects` array, from `buf[pos]` on, parsed a run of whole blocks at a time: as
    much as is buffered, up to the last block end in it (one `rfind` a chunk, no scan for every block).
    Past `limit` bytes read (the file grew), NotStreamable: the whole-file read then refuses it."""
    at_end = False
    searched = pos
    while True:
        # The last block end in the buffer, with the two bytes after it in the buffer too.
        end = buf.rfind(_CLOSE, searched, len(buf) - len(_NEXT))
        close = end + len(_CLOSE)
        last = end >= 0 and buf[close : close + len(_NEXT)] != _NEXT
        if end < 0 or (last and not at_end):
            if at_end:
                raise NotStreamable("an object's block does not end")
            searched = max(pos, end if end >= 0 else len(buf) - len(_CLOSE) - len(_NEXT))
            del buf[:pos]  # O(1): a bytearray drops its head by moving its start
            searched -= pos
            pos = 0
            chunk = file.read(max(_CHUNK, len(buf)))  # an object longer than a chunk: read as much again
            if limit is not None and file.tell() > limit:
                raise NotStreamable("past the size cap")
            at_end = not chunk
            buf += chunk
            continue
        if last and buf[close:] != _TAIL:  # the tail was checked: here it must be, and nothing after it
            raise NotStreamable("an object's block is followed by something else")
        yield from _parse(buf, pos, close)
        if last:
            return
        pos = searched = close + len(_NEXT)


def _parse(buf: bytearray, pos: int, close: int) -> list[Any]:
    """The entries of `buf[pos:close]` (whole blocks and the separators between them), parsed as
    `[[entries]]`: two of its first line's spaces and the two bytes after it (already checked: the comma and
    newline between runs, or the tail's first two) become brackets, so the entries nest exactly as deep as in the whole file (orjson's depth
    limit then answers as it does for the whole file)."""
    if buf[pos : pos + 2] != b"  ":
        raise NotStreamable("an entry of objects is not indented as write_bundle writes it")
    buf[pos : pos + 2] = b"[["
    buf[close : close + 2] = b"]]"
    try:
        with memoryview(buf) as view, view[pos : close + 2] as entries:
            parsed = orjson.loads(entries)
    except orjson.JSONDecodeError:
        raise NotStreamable("a block of objects does not parse") from None
    run: list[Any] = parsed[0]
    return run
