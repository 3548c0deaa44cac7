"""A list, page by page (`limit`/`continue`), as client-go's pager reads it: never an endless loop.

A page that is not shaped as a list is a one-line ClusterError; a repeated `continue` token, or more than
MAX_PAGES pages, is an error instead of a hang; a `continue` token that expired while we paged restarts the
list once from its first page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.failures import ApiFailure

__all__ = ["MAX_PAGES", "list_pages"]

#: Pages of one list at most (5 million objects): past this a server that keeps sending new `continue`
#: tokens is going round in circles.
MAX_PAGES = 10_000
_PROXY_HINT = "retry; if it persists, check proxies between you and the cluster"


def _page(page: dict[str, Any], what: str, server: str) -> tuple[list[dict[str, Any]], str | None]:
    """A list page's items and its `continue` token; ClusterError when it is not shaped as a list."""
    items, meta = page.get("items", ...), page.get("metadata")
    problem = None
    if items is ...:
        problem = "no items"
    elif items is not None and not isinstance(items, list):
        problem = f"items is a {type(items).__name__}, not a list"
    elif meta is not None and not isinstance(meta, dict):
        problem = f"metadata is a {type(meta).__name__}, not an object"
    elif not all(isinstance(item, dict) for item in items or []):
        problem = "an item is not an object"
    token = (meta or {}).get("continue") if problem is None else None
    if problem is None and token is not None and not isinstance(token, str):
        problem = "metadata.continue is not a string"
    if problem is not None:
        raise ClusterError(
            f"the API server at {server} sent a malformed list for {what} ({problem})", _PROXY_HINT
        )
    return list(items or []), token or None


def list_pages(
    get: Callable[[list[tuple[str, str | int]]], dict[str, Any]],
    query: list[tuple[str, str | int]],
    what: str,
    server: str,
) -> list[dict[str, Any]]:
    """Every item of a list, page by page (`get(query)` fetches one); a repeated `continue` token or more
    than MAX_PAGES pages is a ClusterError, never an endless loop. A `continue` token that expired (410: its
    resourceVersion was compacted while we paged) restarts the list from the first page, once, as
    client-go's pager does; a second expiry is the error it is."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    token: str | None = None
    restarted = False
    for _ in range(MAX_PAGES):
        try:
            page = get([*query, *([("continue", token)] if token else [])])
        except ApiFailure as exc:
            if exc.status != 410 or token is None or restarted:
                raise
            items, seen, token, restarted = [], set(), None, True
            continue
        page_items, token = _page(page, what, server)
        items.extend(page_items)
        if token is None:
            return items
        if token in seen:
            raise ClusterError(
                f"the API server at {server} sent the same continue token twice while listing {what}: "
                "the list would never end",
                _PROXY_HINT,
            )
        seen.add(token)
    raise ClusterError(f"listing {what} from {server} did not end after {MAX_PAGES} pages", _PROXY_HINT)
