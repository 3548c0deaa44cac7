"""Read `/metrics` of the DCGM exporters and inference servers through the API server's pod proxy.

`collect` reads each endpoint `samples` times over `window_s`: its first read as soon as one of the
`MAX_IN_FLIGHT` slots is free, each next one `window_s / (samples - 1)` after its own first read started
(`read_schedule`), so every endpoint's reads are a window apart and the whole window takes about the window
plus twice the slowest read, however many endpoints there are. The client is the official one's `ApiClient`
built as the live source builds it (the same merged kubeconfig, context, credential plugins and TLS).

Every read is bounded, whatever the pod sends: `timeout_s` for the whole answer, `METRICS_MAX_BYTES` for its
body (the transport stops reading and closes the connection past either: no thread goes on reading), at most
`MAX_IN_FLIGHT` at once and `METRICS_BUDGET` a second. A read that fails is kept as a `Scrape` with a
one-line, scrubbed `error`: a 403 on `pods/proxy` is `forbidden` (the analysis then says "could not look",
exit 4; the endpoint is not asked again), a timeout, an answer over the cap or the proxy's 503 (the pod
does not answer) an error for that endpoint only. A 401 is the cluster's answer to every request, so it is a
`ClusterError` (exit 3) as elsewhere. Nothing is created: `sample=True` (creates debug pods) is `smi`'s.
"""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime

import msgspec

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.core.usage.trust import untrusted_note
from kubectl_gpu.kube.budget import BudgetSettings, RequestBudget
from kubectl_gpu.kube.secret_text import scrub
from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.kube.transport import ApiFailure, RequestTimedOut, ResponseTooLarge, Transport
from kubectl_gpu.kube.usage.endpoints import Endpoint, find_endpoints, untrusted_exporters
from kubectl_gpu.kube.worker_threads import start_worker

__all__ = [
    "FORBIDDEN_ERROR",
    "MAX_IN_FLIGHT",
    "METRICS_BUDGET",
    "METRICS_MAX_BYTES",
    "NO_SAVED_WINDOW",
    "PROXY_RBAC",
    "SAMPLE_NOT_DONE",
    "SAMPLE_READONLY",
    "Pacer",
    "Sampler",
    "collect",
    "nodes_to_sample",
    "read_endpoint",
    "read_round",
    "read_schedule",
]

#: What reading needs, beyond the read-only role: (verb, resource) (deploy/rbac/usage.yaml grants it).
PROXY_RBAC = (("get", "pods/proxy"),)
#: The error of a read the API server refused (RBAC): what the docs and the analysis name.
FORBIDDEN_ERROR = "forbidden: pods/proxy"
#: The notes when --sample was asked for but no pod may be created (read-only), or no sampler was given.
SAMPLE_READONLY = "--sample: read-only mode: no debug pod was created, nodes without an exporter stay unknown"
SAMPLE_NOT_DONE = (
    "--sample: no sampler here: no debug pod was created, nodes without an exporter stay unknown"
)
#: `sampler(nodes)`: one sampled nvidia-smi read per node (Scrape source "smi"); creates debug pods.
Sampler = Callable[[Sequence[str]], Sequence[Scrape]]
#: The note of a snapshot that saved no usage window.
NO_SAVED_WINDOW = "the snapshot saved no usage window (kubectl gpu snapshot --usage-window 5m saves one)"
#: Reads in flight at once, every endpoint together (the connection pool keeps as many connections).
MAX_IN_FLIGHT = 64
#: The most one /metrics answer may hold: a DCGM exporter writes ~10-20 KB a GPU (~160 KB for 8 GPUs, under
#: 1 MiB with every MIG instance), an inference server tens of KB. Past it the read is given up, unread.
METRICS_MAX_BYTES = 4 * 1024 * 1024
#: The pace of the reads (a token bucket, as every request of a Transport): 500 at once after a quiet spell,
#: 100 a second after that; 500 endpoints read twice over a 5 s window never wait for a token.
METRICS_BUDGET = BudgetSettings(qps=100.0, burst=500)
_MAX_ERROR = 240


def pause(seconds: float) -> None:
    """The wait while no read is in flight and the next is not due, when the caller gives none (a module
    function: CLI tests replace it, and the window then passes at once)."""
    time.sleep(seconds)


class Pacer:
    """The schedule's time: `now()` (seconds, monotonic) and `idle(seconds)`, the wait while nothing is in
    flight (`wait`, default `pause`). A wait that returns early (a test's) moves `now()` on by what it did not
    wait, so the schedule runs as if it had."""

    def __init__(
        self, wait: Callable[[float], None] | None = None, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._wait = wait
        self._monotonic = monotonic
        self._skipped = 0.0

    def now(self) -> float:
        return self._monotonic() + self._skipped

    def idle(self, seconds: float) -> None:
        before = self._monotonic()
        (pause if self._wait is None else self._wait)(seconds)
        self._skipped += max(0.0, seconds - (self._monotonic() - before))


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _line(text: str) -> str:
    flat = " ".join(scrub(text).split())
    return flat if len(flat) <= _MAX_ERROR else flat[: _MAX_ERROR - 3] + "..."


def _scrape(
    endpoint: Endpoint,
    taken_at: datetime,
    *,
    text: str | None = None,
    error: str | None = None,
    forbidden: bool = False,
) -> Scrape:
    """One read of `endpoint` at `taken_at`: its text, or the one-line reason it failed."""
    return Scrape(
        source=endpoint.source,
        namespace=endpoint.namespace,
        pod=endpoint.pod,
        taken_at=taken_at,
        node=endpoint.node,
        port=endpoint.port,
        path=endpoint.path,
        server=endpoint.server,
        text=text,
        error=None if error is None else _line(error),
        forbidden=forbidden,
    )


def _failed(endpoint: Endpoint, taken_at: datetime, error: str, *, forbidden: bool = False) -> Scrape:
    return _scrape(endpoint, taken_at, error=error, forbidden=forbidden)


def read_endpoint(
    transport: Transport, endpoint: Endpoint, *, timeout_s: float, clock: Callable[[], datetime] = _utc_now
) -> Scrape:
    """One read of `endpoint` through the pod proxy, at most `timeout_s` and METRICS_MAX_BYTES; a failure is
    kept in the Scrape (401 raises)."""
    taken_at = clock()
    try:
        data = transport.request("GET", endpoint.proxy_path, timeout=timeout_s, max_bytes=METRICS_MAX_BYTES)
    except ResponseTooLarge as exc:
        return _failed(endpoint, taken_at, f"answered more than {exc.limit / 2**20:g} MiB: not read further")
    except ApiFailure as failure:
        if failure.status == 401:
            raise transport.failure_error(failure, "reading metrics") from None
        if failure.status == 403 and not failure.html:
            return _failed(endpoint, taken_at, FORBIDDEN_ERROR, forbidden=True)
        return _failed(endpoint, taken_at, f"the API server's proxy answered {failure}")
    except RequestTimedOut:
        return _failed(endpoint, taken_at, f"timed out after {timeout_s:g}s")
    except ClusterError as exc:
        return _failed(endpoint, taken_at, exc.message)
    return _scrape(endpoint, taken_at, text=data.decode("utf-8", "replace"))


def _notes(
    state: ClusterState,
    endpoints: Sequence[Endpoint],
    sample: bool,
    sampler: Sampler | None,
    readonly: bool,
    namespaces: Collection[str] = (),
) -> tuple[bool, list[str]]:
    """Whether the candidates could be looked for (pods listed), and the notes for the user."""
    forbidden = any(n.code == "FORBIDDEN" and n.kind == "pods" for n in state.notes)
    notes = []
    if forbidden:
        notes.append("forbidden to list pods: DCGM exporters and inference servers could not be looked for")
    elif not any(e.source == "dcgm" for e in endpoints):
        notes.append("no DCGM exporter found")
    if (untrusted := untrusted_note(untrusted_exporters(state.pods, namespaces))) is not None:
        notes.append(untrusted)
    if not sample:
        notes.append("--sample not given")
    elif readonly:
        notes.append(SAMPLE_READONLY)
    elif sampler is None:  # said, never pretended: nodes without an exporter stay unknown
        notes.append(SAMPLE_NOT_DONE)
    return not forbidden, notes


def nodes_to_sample(state: ClusterState, endpoints: Sequence[Endpoint]) -> list[str]:
    """The NVIDIA GPU nodes no DCGM exporter was found on (in scope: -l selects nodes), by name."""
    covered = {e.node for e in endpoints if e.source == "dcgm"}
    return [
        n.name
        for n in state.nodes
        if n.allocatable.get("nvidia.com/gpu", 0) > 0 and n.name not in covered and not n.meta.deleting
    ]


def _transport(options: SourceOptions, timeout_s: float) -> Transport:
    """A Transport on the ApiClient the live source would use (kube.live.LiveSource._context), with a
    connection per read in flight and the metrics reads' own budget."""
    from kubectl_gpu.kube.connection import resolve

    connection = resolve(options.kubeconfig, options.context, options.request_timeout, options.flags)
    context = connection.context
    api = connection.client()
    kw = api.rest_client.pool_manager.connection_pool_kw
    kw["maxsize"] = max(int(kw.get("maxsize") or 1), MAX_IN_FLIGHT + 1)
    budget = RequestBudget(METRICS_BUDGET)
    return Transport(api, request_timeout=timeout_s, context=context, budget=budget)


def schedule_limit(count: int, samples: int, interval_s: float, timeout_s: float) -> float:
    """Seconds a schedule may take in all before what is left is given up: the window, and twice the read
    timeout per MAX_IN_FLIGHT reads, plus one (a net: each read ends by itself within its timeout)."""
    return interval_s * max(samples - 1, 0) + 2 * timeout_s * (1 + math.ceil(count * samples / MAX_IN_FLIGHT))


def read_schedule(
    transport: Transport,
    endpoints: Sequence[Endpoint],
    *,
    samples: int,
    interval_s: float,
    timeout_s: float,
    clock: Callable[[], datetime],
    pacer: Pacer | None = None,
    in_flight: int = MAX_IN_FLIGHT,
    limit_s: float | None = None,
) -> list[Scrape]:
    """Each endpoint read `samples` times: its first read as soon as a slot is free (at most `in_flight`
    reads at once, in the endpoints' order), each next one `interval_s` after the one before was due, counted
    from its own first read's start. A refused endpoint (403) is not asked again. Past `limit_s` (default
    `schedule_limit`) a read not done or not started is kept as an error. The scrapes come first reads first,
    each round in the endpoints' order; a 401 is raised."""
    if not endpoints:
        return []
    pacer = pacer or Pacer()
    limit = schedule_limit(len(endpoints), samples, interval_s, timeout_s) if limit_s is None else limit_s
    start = pacer.now()
    end = start + limit
    due: list[tuple[float, int, int]] = [(start, 0, index) for index in range(len(endpoints))]  # heap
    firsts: dict[int, float] = {}
    done: dict[tuple[int, int], Scrape] = {}
    running: set[tuple[int, int]] = set()
    failures: list[Exception] = []
    changed = threading.Condition()

    def read(sample: int, index: int) -> None:
        try:
            scrape = read_endpoint(transport, endpoints[index], timeout_s=timeout_s, clock=clock)
        except Exception as exc:  # a 401: raised by the schedule, in the caller's thread
            with changed:
                running.discard((sample, index))
                failures.append(exc)
                changed.notify_all()
            return
        with changed:
            running.discard((sample, index))
            done[(sample, index)] = scrape
            if sample + 1 < samples and not scrape.forbidden:
                heapq.heappush(due, (firsts[index] + (sample + 1) * interval_s, sample + 1, index))
            changed.notify_all()

    while True:
        with changed:
            if failures:
                raise failures[0]
            now = pacer.now()
            if now >= end or not (due or running):
                break
            while due and due[0][0] <= now and len(running) < in_flight:
                _, sample, index = heapq.heappop(due)
                firsts.setdefault(index, now)
                running.add((sample, index))
                name = f"kubectl-gpu-metrics-{index}-{sample}"
                start_worker(read, sample, index, name=name)
            if running:  # a read ends, or the next one falls due while a slot is free
                wake = due[0][0] if due and len(running) < in_flight else end
                changed.wait(max(0.0, min(wake, end) - now))
                continue
            idle = max(0.0, min(due[0][0], end) - now)
        pacer.idle(idle)
    with changed:
        if failures:
            raise failures[0]
        finished = dict(done)
    return _in_order(endpoints, samples, finished, limit, clock)


def _in_order(
    endpoints: Sequence[Endpoint],
    samples: int,
    finished: dict[tuple[int, int], Scrape],
    limit: float,
    clock: Callable[[], datetime],
) -> list[Scrape]:
    """The scrapes first reads first, each round in the endpoints' order; a read not done is a late error,
    and an endpoint that refused (403) is left out of the rounds after."""
    late = f"no answer within the window's {limit:g}s (not read)"
    late_at: list[datetime] = []  # the clock is read once, and only when a read is late
    scrapes = []
    stopped: set[int] = set()
    for sample in range(samples):
        for index, endpoint in enumerate(endpoints):
            if index in stopped:
                continue
            scrape = finished.get((sample, index))
            if scrape is None:
                late_at = late_at or [clock()]
                scrape = _failed(endpoint, late_at[0], late)
            if scrape.forbidden:
                stopped.add(index)
            scrapes.append(scrape)
    return scrapes


def read_round(
    transport: Transport,
    endpoints: Sequence[Endpoint],
    timeout_s: float,
    clock: Callable[[], datetime],
    *,
    pacer: Pacer | None = None,
    limit_s: float | None = None,
) -> list[Scrape]:
    """One read of each endpoint (`read_schedule` with one sample), in their order."""
    return read_schedule(
        transport,
        endpoints,
        samples=1,
        interval_s=0.0,
        timeout_s=timeout_s,
        clock=clock,
        pacer=pacer,
        limit_s=limit_s,
    )


def collect(
    options: SourceOptions,
    state: ClusterState,
    *,
    window_s: float,
    samples: int = 2,
    sample: bool = False,
    timeout_s: float = 5.0,
    wait: Callable[[float], None] | None = None,
    clock: Callable[[], datetime] = _utc_now,
    sampler: Sampler | None = None,
    readonly: bool = False,
    exporter_namespaces: Collection[str] = (),
    pacer: Pacer | None = None,
) -> ScrapeSet:
    """`samples` reads of every endpoint found in `state`, each endpoint's a window apart (`read_schedule`;
    `wait(seconds)` while nothing is in flight, default `pause`: tests pass one that returns at once, or a
    `pacer`). `exporter_namespaces`: where DCGM exporters are believed whatever owns them. An endpoint refused
    (403) is not asked again. With `sample` (and not `readonly`), `sampler(nodes)` runs nvidia-smi in debug
    pods on the GPU nodes no exporter covers, `samples` times over the window, in the caller's thread
    (cli/debug/usage_sample.py: it creates pods) while the endpoints are read. On a snapshot
    (`options.snapshot`) nothing is read: the bundle's window is the answer."""
    if options.snapshot:
        if state.scrapes is not None:
            return state.scrapes
        return ScrapeSet(window_s=0.0, notes=(NO_SAVED_WINDOW,))
    if samples < 1 or window_s < 0:
        raise ValueError(f"samples must be >= 1 and window_s >= 0, got {samples}, {window_s}")
    namespaces = tuple(sorted(set(exporter_namespaces)))
    endpoints = find_endpoints(state, namespaces)
    looked, notes = _notes(state, endpoints, sample, sampler, readonly, namespaces)
    sampled = nodes_to_sample(state, endpoints) if sample and sampler is not None and not readonly else []
    done = ScrapeSet(window_s=window_s, looked=looked, notes=tuple(notes), exporter_namespaces=namespaces)
    if not endpoints and not sampled:
        return done
    interval = window_s / (samples - 1) if samples > 1 else 0.0
    transport = _transport(options, timeout_s) if endpoints else None
    pacer = pacer or Pacer(wait)

    def read() -> list[Scrape]:
        if transport is None:
            return []
        return read_schedule(
            transport,
            endpoints,
            samples=samples,
            interval_s=interval,
            timeout_s=timeout_s,
            clock=clock,
            pacer=pacer,
        )

    if not sampled or sampler is None:
        return msgspec.structs.replace(done, scrapes=tuple(read()))
    outcome: list[list[Scrape] | Exception] = []

    def beside() -> None:
        try:
            outcome.append(read())
        except Exception as exc:  # raised below, in the caller's thread
            outcome.append(exc)

    reader = start_worker(beside, name="kubectl-gpu-metrics-schedule")
    smi: list[Scrape] = []
    for number in range(samples):
        if number:
            (pause if wait is None else wait)(interval)
        smi.extend(sampler(sampled))
    reader.join()
    (read_back,) = outcome
    if isinstance(read_back, Exception):
        raise read_back
    return msgspec.structs.replace(done, scrapes=(*read_back, *smi))
