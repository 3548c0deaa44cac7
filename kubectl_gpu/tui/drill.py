"""What a drill-down page needs from the app: the refresh it was opened from (a page shows that refresh; it
does not change under the reader) and a way to read a pod's last log lines (live only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kubectl_gpu.kube.pod_logs import LogTail
from kubectl_gpu.tui.data import Refresh

__all__ = ["Drill", "LogReader"]

#: (namespace, pod, container or None) -> the log's last lines, or why not; called in a worker thread
LogReader = Callable[[str, str, str | None], LogTail]


@dataclass(frozen=True)
class Drill:
    snapshot: Refresh
    logs: LogReader
    live: bool
