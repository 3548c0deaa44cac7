"""Read `/metrics` of the DCGM exporters and inference servers through the API server's pod proxy.

`collect` reads each endpoint `samples` times, spaced evenly over `window_s` (the first read at once, the
last at the end of the window), with the official client's `ApiClient` built as the live source builds it
(the same merged kubeconfig, context, credential plugins and TLS), each read bounded by `timeout_s`. A
read that fails is kept as a `Scrape` with a one-line, scrubbed `error`: a 403 on `pods/proxy` is
`forbidden` (the analysis then says "could not look", exit 4), a timeout or the proxy's 503 (the pod does
not answer) an error for that endpoint only. A 401 is the cluster's answer to every request, so it is a
`ClusterError` (exit 3) as elsewhere. Nothing is created: `sample=True` (creates debug pods) is `smi`'s.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.kube.secret_text import scrub
from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.kube.transport import ApiFailure, Deadline, RequestTimedOut, Transport
from kubectl_gpu.kube.usage.endpoints import Endpoint, find_endpoints

__all__ = [
    "FORBIDDEN_ERROR",
    "NO_SAVED_WINDOW",
    "PROXY_RBAC",
    "SAMPLE_NOT_DONE",
    "SAMPLE_READONLY",
    "Sampler",
    "collect",
    "nodes_to_sample",
    "read_endpoint",
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
_WORKERS = 8  # endpoints read at once
_MAX_ERROR = 240


def pause(seconds: float) -> None:
    """The wait between two rounds when the caller gives none (a module function: CLI tests replace it)."""
    time.sleep(seconds)


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
    """One read of `endpoint` through the pod proxy; a failure is kept in the Scrape (401 raises)."""
    taken_at = clock()
    try:
        data = transport.request("GET", endpoint.proxy_path, timeout=timeout_s)
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
    state: ClusterState, endpoints: Sequence[Endpoint], sample: bool, sampler: Sampler | None, readonly: bool
) -> tuple[bool, list[str]]:
    """Whether the candidates could be looked for (pods listed), and the notes for the user."""
    forbidden = any(n.code == "FORBIDDEN" and n.kind == "pods" for n in state.notes)
    notes = []
    if forbidden:
        notes.append("forbidden to list pods: DCGM exporters and inference servers could not be looked for")
    elif not any(e.source == "dcgm" for e in endpoints):
        notes.append("no DCGM exporter found")
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
    """A Transport on the ApiClient the live source would use (kube.live.LiveSource._context)."""
    from kubectl_gpu.kube.credentials import load_client
    from kubectl_gpu.kube.kubeconfig import load_kubeconfig

    kubeconfig = load_kubeconfig(options.kubeconfig)
    context = kubeconfig.choose(options.context)
    api = load_client(kubeconfig, context, options.request_timeout)
    kw = api.rest_client.pool_manager.connection_pool_kw
    kw["maxsize"] = max(int(kw.get("maxsize") or 1), _WORKERS + 1)
    return Transport(api, request_timeout=timeout_s, context=context)


def round_budget(count: int, timeout_s: float) -> float:
    """Seconds a round of `count` reads may take in all: twice the per-read timeout per batch of _WORKERS
    (a read that trickles its answer is bounded by this, not by the socket timeout that each byte resets)."""
    return 2 * timeout_s * max(1, math.ceil(count / _WORKERS))


def read_round(
    transport: Transport,
    endpoints: Sequence[Endpoint],
    timeout_s: float,
    clock: Callable[[], datetime],
    budget_s: float | None = None,
) -> list[Scrape]:
    """One read of each endpoint, _WORKERS at a time, in their order. Past the round's budget, a read not
    done (or not started) is abandoned, its daemon thread left to end on its own (it only reads), and kept
    as an error; the reads that were done are kept."""
    budget = round_budget(len(endpoints), timeout_s) if budget_s is None else budget_s
    started = clock()
    done: dict[int, Scrape | Exception] = {}
    queue = list(range(len(endpoints)))
    changed = threading.Condition()

    def work() -> None:
        while True:
            with changed:
                if not queue:
                    return
                index = queue.pop(0)
            try:
                outcome: Scrape | Exception = read_endpoint(
                    transport, endpoints[index], timeout_s=timeout_s, clock=clock
                )
            except Exception as exc:  # a 401: raised below, in the caller's thread
                outcome = exc
            with changed:
                done[index] = outcome
                changed.notify_all()

    for number in range(min(_WORKERS, len(endpoints))):
        threading.Thread(target=work, name=f"kubectl-gpu-metrics-{number}", daemon=True).start()
    deadline = Deadline(budget)
    with changed:
        while len(done) < len(endpoints) and not deadline.expired():
            changed.wait(min(0.5, max(deadline.remaining() or 0.0, 0.0)))
        queue.clear()  # not started: not started later either
        finished = dict(done)
    late = f"no answer within the round's {budget:g}s (the read went on past its timeout)"
    scrapes = []
    for index, endpoint in enumerate(endpoints):
        outcome = finished.get(index)
        if isinstance(outcome, Exception):
            raise outcome
        scrapes.append(outcome if outcome is not None else _failed(endpoint, started, late))
    return scrapes


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
) -> ScrapeSet:
    """`samples` reads of every endpoint found in `state`, spaced over `window_s` (`wait(seconds)` between
    rounds, default `pause`: tests pass one that waits on an event). An endpoint refused (403) in the first
    round is not asked again. With `sample` (and not `readonly`), `sampler(nodes)` runs nvidia-smi in debug
    pods on the GPU nodes no exporter covers, each round (cli/debug/usage_sample.py: it creates pods). On a
    snapshot (`options.snapshot`) nothing is read: the bundle's window is the answer."""
    if options.snapshot:
        if state.scrapes is not None:
            return state.scrapes
        return ScrapeSet(window_s=0.0, notes=(NO_SAVED_WINDOW,))
    if samples < 1 or window_s < 0:
        raise ValueError(f"samples must be >= 1 and window_s >= 0, got {samples}, {window_s}")
    endpoints = find_endpoints(state)
    looked, notes = _notes(state, endpoints, sample, sampler, readonly)
    sampled = nodes_to_sample(state, endpoints) if sample and sampler is not None and not readonly else []
    if not endpoints and not sampled:
        return ScrapeSet(window_s=window_s, looked=looked, notes=tuple(notes))
    transport = _transport(options, timeout_s) if endpoints else None
    scrapes: list[Scrape] = []
    pending = list(endpoints)
    for number in range(samples):
        if number:
            (pause if wait is None else wait)(window_s / (samples - 1))
        if transport is not None and pending:
            read = read_round(transport, pending, timeout_s, clock)
            scrapes.extend(read)
            refused = {(s.namespace, s.pod) for s in read if s.forbidden}
            pending = [e for e in pending if (e.namespace, e.pod) not in refused]
        if sampled and sampler is not None:
            scrapes.extend(sampler(sampled))
        if not pending and not sampled:
            break
    return ScrapeSet(window_s=window_s, scrapes=tuple(scrapes), looked=looked, notes=tuple(notes))
