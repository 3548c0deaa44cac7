"""How `kube.usage` paces its reads (issue 36, item 2): each endpoint's second read starts one window after
its own first read started, at most MAX_INFLIGHT reads at once (many more than the 8 of before), so that
the whole window takes about the window plus twice the slowest read. Asserted in the schedule's own time (a
`Pacer` whose clock moves only as the test says) and by what the suite's API server saw, never by wall
clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.kube.budget import RequestBudget
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from kubectl_gpu.kube.usage import collect
from kubectl_gpu.kube.usage.endpoints import Endpoint
from kubectl_gpu.kube.usage.window import (
    MAX_IN_FLIGHT,
    METRICS_BUDGET,
    METRICS_MAX_BYTES,
    Pacer,
    read_schedule,
)
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.pod_proxy import PodProxy
from tests.kube.test_usage_collect import VLLM_TEXT, Clock, Waits, _vllm

TEXT = b'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-x"} 1\n'


class Virtual:
    """A monotonic clock that moves only when told to (`advance`)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.t

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.t += seconds


class Timed:
    """A Transport stand-in whose reads take `took[pod]` seconds of the virtual clock (only one read runs at a
    time in the test that uses it, so the clock moves as it would). Records each read's start."""

    server = "https://stub"

    def __init__(self, pacer: Pacer, clock: Virtual, took: dict[str, float]) -> None:
        self.pacer = pacer
        self.clock = clock
        self.took = took
        self.starts: dict[str, list[float]] = {}
        self.caps: set[int] = set()

    def request(self, method: str, path: str, *, timeout: float, max_bytes: int) -> bytes:
        pod = path.split("/pods/")[1].split(":")[0]
        self.starts.setdefault(pod, []).append(self.pacer.now())
        self.caps.add(max_bytes)
        self.clock.advance(self.took[pod])
        return TEXT


def _endpoints(count: int) -> list[Endpoint]:
    return [Endpoint("dcgm", "gpu-operator", f"e-{i}", f"n-{i}", 9400) for i in range(count)]


def test_each_endpoints_second_read_is_a_window_after_its_own_first() -> None:
    """One read at a time, 10, 20 and 30 s long: the first reads start at 0, 10 and 30, the second reads a
    window (100 s) after each, and the whole takes the window plus the reads that did not overlap it."""
    clock = Virtual()
    waits = Waits()
    pacer = Pacer(waits, monotonic=clock)
    stub = Timed(pacer, clock, {"e-0": 10.0, "e-1": 20.0, "e-2": 30.0})
    got = read_schedule(
        stub,  # type: ignore[arg-type]
        _endpoints(3),
        samples=2,
        interval_s=100.0,
        timeout_s=60.0,
        clock=Clock(),
        pacer=pacer,
        in_flight=1,
    )
    assert stub.starts == {"e-0": [0.0, 100.0], "e-1": [10.0, 110.0], "e-2": [30.0, 130.0]}
    assert pacer.now() == 160.0  # the window (100) + the last endpoint's start (30) + its read (30)
    assert waits == [40.0]  # idle only from 60 (the first reads done) to 100 (e-0's second read)
    assert [s.pod for s in got] == ["e-0", "e-1", "e-2"] * 2 and all(s.error is None for s in got)
    assert stub.caps == {METRICS_MAX_BYTES}


class Gated:
    """A Transport stand-in whose reads wait until `gate` reads are in flight together (or `release`),
    counting how many ever were at once."""

    server = "https://stub"

    def __init__(self, gate: int) -> None:
        self.gate = gate
        self.inside = 0
        self.most = 0
        self.reads = 0
        self.changed = threading.Condition()
        self.release = False

    def request(self, method: str, path: str, *, timeout: float, max_bytes: int) -> bytes:
        with self.changed:
            self.inside += 1
            self.reads += 1
            self.most = max(self.most, self.inside)
            if self.inside >= self.gate:
                self.release = True
                self.changed.notify_all()
            self.changed.wait_for(lambda: self.release, timeout=30)
            self.inside -= 1
        return TEXT


def test_many_more_reads_than_eight_are_in_flight_and_never_more_than_the_bound() -> None:
    stub = Gated(gate=MAX_IN_FLIGHT)
    waits = Waits()
    pacer = Pacer(waits, monotonic=lambda: 0.0)
    got = read_schedule(
        stub,  # type: ignore[arg-type]
        _endpoints(200),
        samples=2,
        interval_s=300.0,
        timeout_s=5.0,
        clock=Clock(),
        pacer=pacer,
    )
    assert stub.most == MAX_IN_FLIGHT > 8  # the bound is reached, and held
    assert stub.reads == 400 and len(got) == 400 and all(s.error is None for s in got)
    assert waits == [300.0]  # every first read started at once: one wait, to their second reads


def test_a_refused_endpoint_is_not_asked_again_and_the_others_go_on() -> None:
    from kubectl_gpu.kube.transport import ApiFailure

    class Refusing:
        server = "https://stub"

        def __init__(self) -> None:
            self.paths: list[str] = []

        def request(self, method: str, path: str, *, timeout: float, max_bytes: int) -> bytes:
            self.paths.append(path)
            if "/pods/e-1:" in path:
                raise ApiFailure(403, "Forbidden", "pods/proxy is forbidden")
            return TEXT

    stub = Refusing()
    got = read_schedule(
        stub,  # type: ignore[arg-type]
        _endpoints(3),
        samples=3,
        interval_s=10.0,
        timeout_s=5.0,
        clock=Clock(),
        pacer=Pacer(Waits(), monotonic=lambda: 0.0),
    )
    assert sum("/pods/e-1:" in p for p in stub.paths) == 1 and len(stub.paths) == 7
    assert [s.pod for s in got if s.forbidden] == ["e-1"]


def test_the_budget_lets_500_endpoints_read_twice_over_5s_without_a_wait() -> None:
    clock = Virtual()
    budget = RequestBudget(METRICS_BUDGET, clock=clock, sleep=clock.advance)
    assert all(budget.take() for _ in range(500))
    clock.advance(5.0)
    assert all(budget.take() for _ in range(500))
    assert budget.waited == 0.0 and clock() == 5.0
    budget.take()  # a loop that reads on is held to the budget's pace
    assert budget.waited == pytest.approx(1 / METRICS_BUDGET.qps)


# --- against the suite's API server: what it saw in flight at once --------------------------------------


class Crowded(PodProxy):
    """The suite's pod proxy, each answer held until `gate` reads are being answered at once (30 s at most:
    a reader that never gets there fails the test, it does not hang it)."""

    def __init__(self, gate: int) -> None:
        super().__init__()
        self.gate = gate
        self.inside = 0
        self.most = 0
        self.opened = threading.Event()
        self.count = threading.Lock()

    def answer(self, target: tuple[str, str, int | None, str], pods: Any) -> Any:
        with self.count:
            self.inside += 1
            self.most = max(self.most, self.inside)
            if self.inside >= self.gate:
                self.opened.set()
        self.opened.wait(30)
        try:
            return super().answer(target, pods)
        finally:
            with self.count:
                self.inside -= 1


@pytest.fixture
def crowd(apiserver: FakeKubeAPI) -> Iterator[Crowded]:
    proxy = Crowded(gate=24)
    apiserver.pod_proxy = proxy
    for i in range(40):
        apiserver.add(_vllm(f"llama-{i}", f"gpu-{i % 4}"))
        proxy.serve("inference", f"llama-{i}", 8000, VLLM_TEXT)
    yield proxy


def test_the_api_server_sees_more_than_eight_reads_at_once(
    crowd: Crowded, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    options = SourceOptions(kubeconfig=str(kubeconfig), context="test", request_timeout=10.0)
    state = LiveClusterSource(options).load(["pods", "nodes"])
    got = collect(options, state, window_s=60, samples=2, pacer=Pacer(Waits(), lambda: 0.0), clock=Clock())
    assert crowd.most >= 24  # before: 8 at a time, and each batch waited for its slowest
    assert len(got.scrapes) == 80 and all(s.text == VLLM_TEXT for s in got.scrapes)
    assert len([r for r in apiserver.requests if "/proxy/" in r.path]) == 80


def test_the_clock_of_a_scrape_is_its_reads() -> None:
    """taken_at is the instant the read started (the caller's clock), one per read."""
    seen: list[datetime] = []

    def clock() -> datetime:
        instant = Clock()()
        seen.append(instant)
        return instant

    stub = Gated(gate=1)
    got = read_schedule(
        stub,  # type: ignore[arg-type]
        _endpoints(2),
        samples=1,
        interval_s=0.0,
        timeout_s=5.0,
        clock=clock,
        pacer=Pacer(Waits(), monotonic=lambda: 0.0),
    )
    assert len(seen) == 2 and sorted(s.taken_at for s in got) == sorted(seen)
