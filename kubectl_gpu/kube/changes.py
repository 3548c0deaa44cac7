"""Has anything a read listed changed since? One watch per list, from the list's resourceVersion.

A list's `metadata.resourceVersion` is the cluster's revision when it was read; a watch from it
(`?watch=1&resourceVersion=RV`) replays every change since to the objects that list selects, then waits
for more until `timeoutSeconds`. The watch is read event by event as the bytes arrive: the first event
that is not a bookmark answers "changed" and the stream is closed at once; a watch that ends (or runs out
of its time, whatever the server does with `timeoutSeconds`) having sent nothing but bookmarks answers
"unchanged". Nothing is kept but the current line, so a stream that never ends costs no memory.

What else a watch can answer is told apart, because each asks for something different (see
`live.ReadPacer`): 410 Gone (the revision was compacted: list once more, then watch from the new one),
403 (no `watch` verb: poll instead, and say so), and anything else (a 5xx, garbage, a broken stream:
back off before trying again, as client-go's reflector does).

Comparing the revision of two lists would not do: it is global, and moves with every lease renewal.
"""

from __future__ import annotations

import enum

import msgspec
import orjson

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.transport import ApiFailure, Transport

__all__ = ["WATCH_EVENT_MAX_BYTES", "WATCH_SECONDS", "ListMark", "WatchAnswer", "changed_since"]

#: How long the server keeps each watch open when nothing changed (its timeoutSeconds: whole seconds). The
#: stream is read for this long plus `_GRACE` at most, whatever the server does.
WATCH_SECONDS = 1
_GRACE = 2.0
#: One watch event (an object is at most ~1.5 MiB in etcd; its JSON a little more).
WATCH_EVENT_MAX_BYTES = 4 * 1024 * 1024


class WatchAnswer(enum.Enum):
    UNCHANGED = "unchanged"  # only bookmarks, then the end of the watch
    CHANGED = "changed"  # an ADDED, MODIFIED or DELETED event
    EXPIRED = "expired"  # 410 Gone, as an answer or as an ERROR event: list again
    FORBIDDEN = "forbidden"  # 403: this identity may list but not watch
    FAILED = "failed"  # anything else: an error answer, a broken stream, garbage


class ListMark(msgspec.Struct, frozen=True):
    """Where one list stood: its path, its selectors (no limit or continue) and its resourceVersion."""

    path: str
    query: tuple[tuple[str, str | int], ...]
    resource_version: str


def _event_answer(line: bytes) -> WatchAnswer | None:
    """What one event line says; None for a bookmark (nothing changed, keep reading)."""
    try:
        event = orjson.loads(line)
    except orjson.JSONDecodeError:
        return WatchAnswer.FAILED
    if not isinstance(event, dict):
        return WatchAnswer.FAILED
    kind = event.get("type")
    if kind == "BOOKMARK":
        return None
    if kind == "ERROR":
        status = event.get("object")
        code = status.get("code") if isinstance(status, dict) else None
        return WatchAnswer.EXPIRED if code == 410 else WatchAnswer.FAILED
    if kind in ("ADDED", "MODIFIED", "DELETED"):
        return WatchAnswer.CHANGED
    return WatchAnswer.FAILED


def changed_since(
    transport: Transport, mark: ListMark, seconds: int = WATCH_SECONDS, problems: list[str] | None = None
) -> WatchAnswer:
    """What a watch from the mark's resourceVersion says, read event by event for `seconds` (+ grace); what
    went wrong, when it FAILED, is added to `problems` (one line)."""
    said = problems if problems is not None else []
    query = [
        *mark.query,
        ("watch", "1"),
        ("resourceVersion", mark.resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", seconds),
    ]
    try:
        with transport.stream(
            mark.path, query=query, seconds=seconds + _GRACE, max_line_bytes=WATCH_EVENT_MAX_BYTES
        ) as stream:
            for line in stream:
                answer = _event_answer(line)
                if answer is WatchAnswer.FAILED:
                    said.append(f"watching {mark.path}: the server sent something that is no watch event")
                if answer is not None:
                    return answer
    except ApiFailure as exc:
        if exc.status == 410:
            return WatchAnswer.EXPIRED
        if exc.status == 403 and not exc.html:
            return WatchAnswer.FORBIDDEN
        said.append(f"watching {mark.path}: the API server at {transport.server} answered {exc}")
        return WatchAnswer.FAILED
    except ClusterError as exc:
        said.append(exc.line())
        return WatchAnswer.FAILED
    return WatchAnswer.UNCHANGED
