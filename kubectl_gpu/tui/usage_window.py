"""The Usage view's figures, refresh after refresh, computed in the refresh worker.

Live, each refresh reads every DCGM exporter and inference server once (`kube.usage.rounds`: a short
timeout, no pod created, never `--sample`), while the other analyses run, and keeps a rolling window of the
last rounds: the last `MAX_AGE_S` seconds, at most `MAX_ROUNDS` rounds and `MAX_TEXT_BYTES` of texts. Every
read is bounded as `kubectl gpu usage`'s are (the read timeout, `METRICS_MAX_BYTES`, `MAX_IN_FLIGHT` at once,
`METRICS_BUDGET` a second), and a round ends before the next begins: what the TUI reads on its own, from
the moment it opens, is bounded whatever the pods send. DCGM exporters are believed as `usage` believes them
(owned by a DaemonSet, or in the config file's `usage.exporterNamespaces`; a bad value there is said in the
view's notes and ignored). The usage analysis then reads that
window with core's own functions (`core.usage.window`: means of the gauges, counter rates across resets),
so utilisation and tokens per second appear from the second refresh on; the first says `SAMPLING` (what
failed in it, a 403 included, is shown at once). A context or namespace switch reads another source: its
window starts anew. On a snapshot the bundle's saved window is read, as `kubectl gpu usage --snapshot`
reads it. Imports of the analysis stay inside the functions: the first screen does not wait for them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import msgspec

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.kube.source import ClusterSource, LiveClusterSource

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.usage import UsageReport
    from kubectl_gpu.core.catalog import Catalog
    from kubectl_gpu.kube.usage.rounds import MetricsRound, RoundReader

__all__ = [
    "MAX_AGE_S",
    "MAX_ROUNDS",
    "MAX_TEXT_BYTES",
    "SAMPLING",
    "Usage",
    "UsageRead",
    "UsageWindow",
    "roll",
    "start",
]

MAX_AGE_S = 300.0  # what `kubectl gpu usage --window 5m` would watch
MAX_ROUNDS = 30  # and never more rounds than this, however often `r` is pressed
MAX_TEXT_BYTES = 256 * 1024 * 1024  # nor more /metrics text than this (the oldest rounds go first)
SAMPLING = "sampling: utilisation from the next refresh"
#: as `kube.usage.NO_SAVED_WINDOW` says it (not imported from there: that imports the kubernetes client)
NO_SAVED_WINDOW = "the snapshot saved no usage window (kubectl gpu snapshot --usage-window 5m saves one)"


class UsageWindow(msgspec.Struct, frozen=True, dict=True):
    """What the next refresh continues from: the source read (its identity), its reader, the rounds kept."""

    source: ClusterSource | None
    reader: RoundReader | None
    rounds: tuple[tuple[Scrape, ...], ...] = ()
    looked: bool = True
    notes: tuple[str, ...] = ()
    endpoints: int = 0
    saved: ScrapeSet | None = None  # a snapshot's window, read as saved
    exporter_namespaces: tuple[str, ...] = ()  # the config file's usage.exporterNamespaces
    config_note: str | None = None  # what was wrong with it, when it was

    @property
    def sampling(self) -> bool:
        """Live, with something to read, but one round only: no rate, no mean over time yet."""
        return self.saved is None and self.endpoints > 0 and len(self.rounds) < 2

    def scrape_set(self) -> ScrapeSet:
        """The window the analysis reads (while sampling: only the reads that failed, said at once)."""
        if self.saved is not None:
            return self.saved
        scrapes = [s for one in self.rounds for s in one]
        said = (self.config_note,) if self.config_note else ()
        namespaces = self.exporter_namespaces
        if self.sampling:
            failed = tuple(s for s in scrapes if s.text is None)
            return ScrapeSet(0.0, failed, self.looked, (SAMPLING, *said), namespaces)
        times = [s.taken_at for s in scrapes]
        span = (max(times) - min(times)).total_seconds() if times else 0.0
        return ScrapeSet(round(span, 1), tuple(scrapes), self.looked, (*self.notes, *said), namespaces)


class Usage:
    """One refresh's usage: the window it read and, computed once on first ask (`report()`, in a worker
    thread: the Usage view's, when it is shown), the report over it: the same report `usage` prints."""

    def __init__(self, window: UsageWindow, state: ClusterState, catalog: Catalog, now: datetime) -> None:
        self.window = window
        self.now = now
        self._inputs: tuple[ClusterState, Catalog] | None = (state, catalog)
        self._report: UsageReport | None = None
        self._lock = threading.Lock()

    @property
    def sampling(self) -> bool:
        return self.window.sampling

    @property
    def ready(self) -> bool:
        return self._report is not None

    def report(self) -> UsageReport:
        with self._lock:
            if self._report is None:
                assert self._inputs is not None
                state, catalog = self._inputs
                self._report = usage_report(self.window.scrape_set(), state, catalog, self.now)
                self._inputs = None  # the state is the refresh's: not kept twice
            return self._report


def _newest(scrapes: Sequence[Scrape]) -> datetime | None:
    return max((s.taken_at for s in scrapes), default=None)


def roll(
    rounds: tuple[tuple[Scrape, ...], ...],
    new: tuple[Scrape, ...],
    *,
    max_age_s: float = MAX_AGE_S,
    max_rounds: int = MAX_ROUNDS,
    max_bytes: int = MAX_TEXT_BYTES,
) -> tuple[tuple[Scrape, ...], ...]:
    """`rounds` with `new` last: the last `max_rounds`, none that began over `max_age_s` before `new`, and
    no older round once their texts reach `max_bytes` (`new` is always kept)."""
    kept = (*rounds, new) if new else rounds
    newest = _newest(new)
    if newest is not None:
        kept = tuple(r for r in kept if (newest - min(s.taken_at for s in r)).total_seconds() <= max_age_s)
    kept = kept[-max_rounds:]
    total = 0
    for first in range(len(kept) - 1, -1, -1):
        total += sum(len(s.text or "") for s in kept[first])
        if total > max_bytes and first < len(kept) - 1:
            return kept[first + 1 :]
    return kept


def _namespaces() -> tuple[tuple[str, ...], str | None]:
    """The config file's usage.exporterNamespaces, and what was wrong with it (then none)."""
    from kubectl_gpu.core.errors import InvalidInput
    from kubectl_gpu.kube.usage.config import exporter_namespaces

    try:
        return exporter_namespaces(), None
    except InvalidInput as exc:
        return (), f"{exc.message}: ignored"


def _continued(previous: Usage | None, source: ClusterSource) -> UsageWindow:
    if previous is not None and previous.window.source is source:
        return previous.window
    if not isinstance(source, LiveClusterSource):  # a snapshot: its saved window (and no kubernetes import)
        return UsageWindow(source, None)
    from kubectl_gpu.kube.usage.rounds import reader_for

    namespaces, note = _namespaces()
    reader = reader_for(source, exporter_namespaces=namespaces)
    return UsageWindow(source, reader, exporter_namespaces=namespaces, config_note=note)


class UsageRead:
    """This refresh's read: started in a thread at once (live), joined by `result` after the analyses."""

    def __init__(self, previous: Usage | None, source: ClusterSource, state: ClusterState) -> None:
        self.state = state
        self.base = _continued(previous, source)
        self.previous = previous if previous is not None and previous.window is self.base else None
        self._round: MetricsRound | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if self.base.reader is not None:
            self._thread = threading.Thread(target=self._read, name="kubectl-gpu-usage-round", daemon=True)
            self._thread.start()

    def _read(self) -> None:
        assert self.base.reader is not None
        try:
            self._round = self.base.reader.read(self.state)
        except BaseException as exc:  # raised again in the refresh worker, which says it
            self._error = exc

    def window(self) -> UsageWindow:
        """The window with this refresh's round (live), the bundle's (snapshot), or none read."""
        base = self.base
        if self._thread is None:
            saved = self.state.scrapes or ScrapeSet(0.0, notes=(NO_SAVED_WINDOW,))
            return UsageWindow(base.source, None, saved=saved)
        self._thread.join()
        if self._error is not None:
            raise self._error
        got = self._round
        assert got is not None
        rounds = roll(base.rounds, got.scrapes)
        return msgspec.structs.replace(
            base, rounds=rounds, looked=got.looked, notes=got.notes, endpoints=got.endpoints
        )

    def result(self, catalog: Catalog, now: datetime) -> Usage:
        """The window read, and its report to compute (priced as `cost` prices: the cluster's region)."""
        window = self.window()
        previous = self.previous
        same = previous is not None and window.saved is not None and window.saved is previous.window.saved
        if same and previous is not None and previous.now == now:
            return previous  # a snapshot not re-read, at the same instant: the same report
        return Usage(window, self.state, catalog, now)


def usage_report(scrapes: ScrapeSet, state: ClusterState, catalog: Catalog, now: datetime) -> UsageReport:
    from kubectl_gpu.core.analyses import usage
    from kubectl_gpu.core.analyses.diagnose.analysis import cluster_prices

    return usage.analyse(state, catalog, now, scrapes=scrapes, prices=cluster_prices(state, catalog))


def start(previous: Usage | None, source: ClusterSource, state: ClusterState) -> UsageRead:
    """Begin this refresh's usage read (live: one round, in a thread, while the analyses run)."""
    return UsageRead(previous, source, state)
