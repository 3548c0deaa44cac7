"""One read of every `/metrics` endpoint per call, for a caller that keeps its own rolling window (the TUI's
refresh): `collect` reads a whole window at once, which a refresh cannot wait for.

The endpoints are those `find_endpoints` finds in the state the caller just read (DCGM exporters believed
as `collect` believes them: owned by a DaemonSet, or in `exporter_namespaces`); they are read once each,
`MAX_IN_FLIGHT` at a time, each read under the same caps as `collect`'s (`timeout_s` for the whole answer,
`METRICS_MAX_BYTES` for its body, `METRICS_BUDGET` a second: a pod that answers without end costs one capped
read per refresh, and nothing goes on reading it), through one `Transport` built on the first call that has
something to read and kept for the next calls (no kubeconfig load or credential plugin per refresh; its
request budget carries over). A 403 is kept in the round as `forbidden` ("could not look"), as `collect`
keeps it; a 401 raises (`ClusterError`, exit 3) and drops the transport, so that the next call builds a new
one. Nothing is created: no debug pod, ever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from datetime import datetime

import msgspec

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage.scrape import Scrape
from kubectl_gpu.core.usage.trust import untrusted_note
from kubectl_gpu.kube.source import ClusterSource, LiveClusterSource, SourceOptions
from kubectl_gpu.kube.transport import Transport
from kubectl_gpu.kube.usage.endpoints import find_endpoints, untrusted_exporters
from kubectl_gpu.kube.usage.window import _transport, _utc_now, read_round

__all__ = ["FORBIDDEN_PODS", "NO_EXPORTER", "MetricsRound", "RoundReader", "reader_for"]

#: The notes of a round (the usage analysis says them, or turns them into "utilisation unknown: ...").
NO_EXPORTER = "no DCGM exporter found"
FORBIDDEN_PODS = "forbidden to list pods: DCGM exporters and inference servers could not be looked for"


class MetricsRound(msgspec.Struct, frozen=True):
    """One read of each endpoint. `looked` is False when the candidates could not be listed (pods forbidden)."""

    scrapes: tuple[Scrape, ...]
    looked: bool
    notes: tuple[str, ...]
    endpoints: int


class RoundReader:
    """`read(state)`: one round over the endpoints found in `state`; each read bounded by `timeout_s`."""

    def __init__(
        self,
        options: SourceOptions,
        *,
        timeout_s: float = 2.0,
        clock: Callable[[], datetime] | None = None,
        transport: Callable[[SourceOptions, float], Transport] = _transport,
        exporter_namespaces: Collection[str] = (),
    ) -> None:
        self.options = options
        self.timeout_s = timeout_s
        self.exporter_namespaces = tuple(sorted(set(exporter_namespaces)))
        self._clock = clock or _utc_now
        self._make = transport
        self._transport: Transport | None = None
        self._lock = threading.Lock()  # a context switch may start a refresh while one is running

    def read(self, state: ClusterState) -> MetricsRound:
        forbidden = any(n.code == "FORBIDDEN" and n.kind == "pods" for n in state.notes)
        endpoints = find_endpoints(state, self.exporter_namespaces)
        notes: list[str] = []
        if forbidden:
            notes.append(FORBIDDEN_PODS)
        elif not any(e.source == "dcgm" for e in endpoints):
            notes.append(NO_EXPORTER)
        if (
            untrusted := untrusted_note(untrusted_exporters(state.pods, self.exporter_namespaces))
        ) is not None:
            notes.append(untrusted)
        if not endpoints:
            return MetricsRound((), not forbidden, tuple(notes), 0)
        with self._lock:
            if self._transport is None:
                self._transport = self._make(self.options, self.timeout_s)
            transport = self._transport
        try:
            scrapes = read_round(transport, endpoints, self.timeout_s, self._clock)
        except Exception:
            with self._lock:
                self._transport = None
            raise
        return MetricsRound(tuple(scrapes), not forbidden, tuple(notes), len(endpoints))


def reader_for(
    source: ClusterSource, *, timeout_s: float = 2.0, exporter_namespaces: Collection[str] = ()
) -> RoundReader | None:
    """A reader on the live cluster `source` reads (its kubeconfig, context and scope); None for a snapshot
    (its saved window is the answer) or a source of another kind."""
    if not isinstance(source, LiveClusterSource):
        return None
    live = source.live.options
    options = SourceOptions(
        kubeconfig=live.kubeconfig,
        context=live.context,
        request_timeout=live.request_timeout,
        scope=live.scope,
        flags=live.flags,
    )
    return RoundReader(options, timeout_s=timeout_s, exporter_namespaces=exporter_namespaces)
