"""What a drill-down page needs from the app: the refresh it shows and a way to read a pod's last log lines
(live only). When the app refreshes, every open page that `Follows` is handed the new refresh: it shows the
same object (by its key) with the new figures, or says it is gone; it never keeps the old numbers silently."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

import msgspec

from kubectl_gpu.kube.pod_logs import LogTail
from kubectl_gpu.tui.data import Refresh

__all__ = ["GONE", "Drill", "Follows", "LogReader", "follow_refresh"]

#: (namespace, pod, container or None) -> the log's last lines, or why not; called in a worker thread
LogReader = Callable[[str, str, str | None], LogTail]


class Drill(msgspec.Struct, frozen=True, dict=True):
    snapshot: Refresh
    logs: LogReader
    live: bool


#: how a page says that what it shows is no longer in the cluster (or in the scope read)
GONE = "gone: not in the latest refresh (deleted, or out of the scope read)"


@runtime_checkable
class Follows(Protocol):
    """A page that shows the latest refresh of its object."""

    def follow(self, drill: Drill) -> None: ...


def follow_refresh(pages: Iterable[object], drill: Callable[[], Drill]) -> None:
    """Hand a new refresh to every open page that follows one (`drill` is built once, only if needed)."""
    made: Drill | None = None
    for page in pages:
        if isinstance(page, Follows):
            made = made or drill()
            page.follow(made)
