"""The last lines of a pod's log (`pods/log`), bounded by line and by byte (`tailLines`, `limitBytes`), for
the TUI's pod page. Live only: a snapshot holds no logs. The answer is a `LogTail`: the text, or the one
line that says why there is none (forbidden, the pod is gone, the cluster did not answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

import msgspec

from kubectl_gpu.core.errors import KubectlGpuError
from kubectl_gpu.kube.source import ClusterSource, LiveClusterSource

if TYPE_CHECKING:
    from kubectl_gpu.kube.transport import ApiFailure

__all__ = ["LIMIT_BYTES", "TAIL_LINES", "LogTail", "pod_log_tail"]

TAIL_LINES = 200
LIMIT_BYTES = 256 * 1024
TIMEOUT = 10.0


class LogTail(msgspec.Struct, frozen=True):
    """`text` as the API returned it (cluster text: the page makes it safe), or `error`: why not."""

    text: str | None = None
    error: str | None = None
    container: str | None = None
    #: the answer filled `limitBytes`: older lines were cut
    cut: bool = False


def _why(exc: ApiFailure) -> str:
    if exc.status == 403:
        return "could not look: pods/log forbidden"
    if exc.status == 404:
        return "could not look: the pod is gone (404)"
    return f"could not read the log: {exc}"


def pod_log_tail(
    source: ClusterSource,
    namespace: str,
    name: str,
    *,
    container: str | None = None,
    tail_lines: int = TAIL_LINES,
    limit_bytes: int = LIMIT_BYTES,
) -> LogTail:
    """The pod's last `tail_lines` log lines, at most `limit_bytes`, of `container` (None: the API's
    default, the only container)."""
    if not isinstance(source, LiveClusterSource):
        return LogTail(error="logs are not in a snapshot")
    # Here, not at import: the TUI imports this module at start-up, the Kubernetes client only live.
    from kubectl_gpu.kube.transport import ApiFailure, Transport

    transport = Transport(source.live.api, request_timeout=TIMEOUT, context=source.live.context)
    path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(name, safe='')}/log"
    query: list[tuple[str, str | int]] = [("tailLines", tail_lines), ("limitBytes", limit_bytes)]
    if container:
        query.append(("container", container))
    try:
        # limitBytes is the server's to honour; the cap holds if it does not (a proxy, a broken kubelet)
        data = transport.request("GET", path, query=query, timeout=TIMEOUT, max_bytes=limit_bytes + 65536)
    except ApiFailure as exc:
        return LogTail(error=_why(exc), container=container)
    except KubectlGpuError as exc:
        return LogTail(error=exc.line(), container=container)
    return LogTail(data.decode("utf-8", "replace"), container=container, cut=len(data) >= limit_bytes)
