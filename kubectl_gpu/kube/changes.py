"""Has anything a read listed changed since? One short watch per list, from the list's resourceVersion.

A list's `metadata.resourceVersion` is the cluster's revision when it was read; a watch from it
(`?watch=1&resourceVersion=RV`) replays every change since to the objects that list selects, then waits
for more until `timeoutSeconds`. So a watch that ends having sent nothing but bookmarks means the list
would read the same objects again. Anything else (an event, a 410 "too old", 403 without the `watch`
verb, an error) counts as changed: the caller lists again, which answers definitively.

Comparing the revision of two lists would not do: it is global, and moves with every lease renewal.
"""

from __future__ import annotations

import msgspec
import orjson

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.transport import ApiFailure, Transport

__all__ = ["WATCH_SECONDS", "ListMark", "changed_since"]

#: How long the server keeps each watch open when nothing changed (its timeoutSeconds: whole seconds).
WATCH_SECONDS = 1


class ListMark(msgspec.Struct, frozen=True):
    """Where one list stood: its path, its selectors (no limit or continue) and its resourceVersion."""

    path: str
    query: tuple[tuple[str, str | int], ...]
    resource_version: str


def changed_since(transport: Transport, mark: ListMark) -> bool:
    """True unless a watch from the mark's resourceVersion ends with no change."""
    query = [
        *mark.query,
        ("watch", "1"),
        ("resourceVersion", mark.resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", WATCH_SECONDS),
    ]
    try:
        data = transport.request("GET", mark.path, query=query)
    except (ApiFailure, ClusterError):
        return True
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            event = orjson.loads(line)
        except orjson.JSONDecodeError:
            return True
        if not isinstance(event, dict) or event.get("type") != "BOOKMARK":
            return True
    return False
