"""Pods are untrusted sources (issue 36, item 2): what a pod answers through the API server's pod proxy,
read by `kube.usage` with the real `kubernetes` client against the suite's API server. A body that never
ends, one of 64 MiB, one that trickles without end: each read stops at its cap (METRICS_MAX_BYTES, the read
timeout), is an error for that endpoint only, and leaves no thread reading; memory stays flat however many
rounds the TUI's reader makes. Asserted on bytes, counts and states, never on time.

The suite's pod proxy answers a text per read (tests/kube/pod_proxy.py); an answer that is streamed (sent a
chunk at a time, as a pod writing without end does) is added here: `HostileProxy` answers the named pods
with a `Streamed` response, which the `streaming` fixture teaches the fake server's handler to send."""

from __future__ import annotations

import contextlib
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from kubectl_gpu.kube.usage import collect
from kubectl_gpu.kube.usage.rounds import RoundReader
from kubectl_gpu.kube.usage.window import METRICS_MAX_BYTES, Pacer
from tests.kube import wire
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.kubelet import wait_for
from tests.kube.pod_proxy import PROMETHEUS_TEXT, PodProxy
from tests.kube.test_usage_collect import DCGM_TEXT, VLLM_TEXT, Clock, Waits, _exporter, _vllm

MiB = 1 << 20
CHUNK = b'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 1\n' * 2048  # ~64 KiB of valid text, made once and sent again


class Streamed(wire.Response):
    """An answer sent a chunk at a time: `total` bytes with that Content-Length, or without end (`total`
    None: no Content-Length, the connection closes after it), each chunk after `wait` (an Event that is
    never set: a pause of `pause` seconds). Counts what it sent and says when it stopped sending."""

    def __init__(self, total: int | None = None, pause: float = 0.0) -> None:
        super().__init__(200, b"", PROMETHEUS_TEXT)
        self.total = total
        self.pause = pause
        self.sent = 0
        self.ended = threading.Event()  # the handler stopped sending (the client closed, or all was sent)
        self.broken = False  # it stopped because the client went away


class HostileProxy(PodProxy):
    """The suite's pod proxy, but the pods in `streams` answer with a fresh `Streamed` on each read."""

    def __init__(self, streams: dict[str, Callable[[], Streamed]]) -> None:
        super().__init__()
        self.streams = streams
        self.answers: list[Streamed] = []

    def answer(self, target: tuple[str, str, int | None, str], pods: Any) -> wire.Response:
        make = self.streams.get(target[1])
        if make is None:
            return super().answer(target, pods)
        with self._lock:
            key = (target[0], target[1], target[2] or 80, target[3])
            self.reads[key] = self.reads.get(key, 0) + 1
            streamed = make()
            self.answers.append(streamed)
        return streamed


@pytest.fixture
def streaming(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake server's handler sends a `Streamed` answer chunk by chunk (any other as it always does)."""
    original = wire._Handler._send

    def send(self: wire._Handler, response: wire.Response, truncate: bool) -> None:
        if not isinstance(response, Streamed):
            original(self, response, truncate)
            return
        stopping = self.server.owner.stopping
        try:
            self.send_response(200)
            self.send_header("Content-Type", response.content_type)
            if response.total is not None:
                self.send_header("Content-Length", str(response.total))
            else:
                self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            while response.total is None or response.sent < response.total:
                if stopping.is_set() or (response.pause and stopping.wait(response.pause)):
                    return
                chunk = CHUNK[:1024] if response.pause else CHUNK
                if response.total is not None:
                    chunk = chunk[: response.total - response.sent]
                self.wfile.write(chunk)
                self.wfile.flush()
                response.sent += len(chunk)
        except OSError:
            response.broken = True
        finally:
            response.ended.set()

    monkeypatch.setattr(wire._Handler, "_send", send)


@pytest.fixture
def options(kubeconfig: Path) -> SourceOptions:
    return SourceOptions(kubeconfig=str(kubeconfig), context="test", request_timeout=10.0)


def _state(options: SourceOptions) -> ClusterState:
    return LiveClusterSource(options).load(["pods", "nodes"])


def _metrics_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kubectl-gpu-metrics") and t.is_alive()]


@pytest.fixture
def hostile(apiserver: FakeKubeAPI, streaming: None) -> Iterator[HostileProxy]:
    """Two exporters and a vLLM server that answer as they should, and three pods that do not: `endless`
    (an exporter writing without end, fast), `huge` (a vLLM server answering 64 MiB with its length),
    `trickle` (an exporter writing 1 KiB every 50 ms, without end)."""
    proxy = HostileProxy(
        {
            "endless": lambda: Streamed(),
            "huge": lambda: Streamed(total=64 * MiB),
            "trickle": lambda: Streamed(pause=0.05),
        }
    )
    apiserver.pod_proxy = proxy
    apiserver.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"), _exporter("endless", "gpu-2"))
    apiserver.add(_exporter("trickle", "gpu-3"), _vllm("llama-0", "gpu-1"), _vllm("huge", "gpu-2"))
    proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    proxy.serve("inference", "llama-0", 8000, VLLM_TEXT)
    yield proxy
    for answer in proxy.answers:  # each one stopped sending: the client hung up, nothing reads it any more
        assert wait_for(answer.ended.is_set, timeout=60), "a stream is still being sent"


def _peak_during(run: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        got = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return got, peak


def test_endless_huge_and_trickling_bodies_are_capped_errors_of_their_endpoint(
    hostile: HostileProxy, apiserver: FakeKubeAPI, options: SourceOptions
) -> None:
    state = _state(options)
    got, peak = _peak_during(
        lambda: collect(
            options,
            state,
            window_s=60,
            samples=2,
            timeout_s=1.0,
            pacer=Pacer(Waits(), lambda: 0.0),
            clock=Clock(),
        )
    )
    by_pod: dict[str, list[Any]] = {}
    for scrape in got.scrapes:
        by_pod.setdefault(scrape.pod, []).append(scrape)
    capped = f"answered more than {METRICS_MAX_BYTES / MiB:g} MiB: not read further"
    assert [s.error for s in by_pod["endless"]] == [capped, capped]
    assert [s.error for s in by_pod["huge"]] == [capped, capped]
    assert [s.error for s in by_pod["trickle"]] == ["timed out after 1s", "timed out after 1s"]
    assert [s.text for s in by_pod["nvidia-dcgm-exporter-a"]] == [DCGM_TEXT, DCGM_TEXT]  # the others read
    assert [s.text for s in by_pod["llama-0"]] == [VLLM_TEXT, VLLM_TEXT]
    reads = [r.path for r in apiserver.requests if "/proxy/" in r.path]
    assert len(reads) == 10  # each endpoint twice: nothing retried
    assert _metrics_threads() == []  # every read ended when the window did: none goes on reading
    # Two capped reads in flight at once at most hold the cap each; nothing like the 128 MiB sent at them.
    assert peak < 3 * METRICS_MAX_BYTES + 8 * MiB, peak
    for answer in hostile.answers:
        assert wait_for(answer.ended.is_set, timeout=60)
        assert answer.broken or answer.total is not None
    endless = [a for a in hostile.answers if a.total is None and not a.pause]
    # What the endless pods got out: the cap and what the sockets' buffers took, not a stream without end.
    assert all(a.sent < METRICS_MAX_BYTES + 32 * MiB for a in endless), [a.sent for a in endless]


def test_the_tui_reader_stays_flat_round_after_round(hostile: HostileProxy, options: SourceOptions) -> None:
    """The TUI's reader (one read per endpoint per refresh, on its own when the TUI opens) against the same
    pods: each round's reads end with the round, and memory does not grow with the rounds."""
    state = _state(options)
    reader = RoundReader(options, timeout_s=1.0)
    reader.read(state)  # the transport, the client and their pools are built on the first round
    tracemalloc.start()
    try:
        levels = []
        for _ in range(4):
            got = reader.read(state)
            assert {s.pod: s.error is None for s in got.scrapes} == {
                "nvidia-dcgm-exporter-a": True, "endless": False, "trickle": False, "llama-0": True, "huge": False
            }  # fmt: skip
            assert _metrics_threads() == []
            levels.append(tracemalloc.get_traced_memory()[0])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert levels[-1] - levels[0] < 2 * MiB, levels  # flat: rounds keep nothing of what was refused
    assert peak < 3 * METRICS_MAX_BYTES + 8 * MiB, peak
    assert len(hostile.answers) == 3 * 5


def test_a_read_past_the_cap_is_said_in_the_report(
    hostile: HostileProxy, apiserver: FakeKubeAPI, kubeconfig: Path, cli: Callable[..., Any]
) -> None:
    """End to end: `usage` exits 0 with the capped endpoints listed as USAGE_READ_FAILED, one line each."""
    import json

    import kubectl_gpu.kube.usage.window as window_module

    with contextlib.ExitStack() as stack:
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        patch.setattr(window_module, "pause", lambda seconds: None)
        result = cli(
            "usage", "--kubeconfig", str(kubeconfig), "--context", "test", "--window", "1s", "-o", "json"
        )
    assert result.code == 0, result.err
    failed = {f["pod"]: f["error"] for f in json.loads(result.out)["window"]["failedReads"]}
    assert failed["endless"] == failed["huge"] == "answered more than 4 MiB: not read further"
    assert failed["trickle"] == "timed out after 5s"
    assert "internal error" not in result.err
