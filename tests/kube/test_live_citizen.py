"""A good citizen on a live cluster (issue 36, item 1): every read capped in bytes and time, watches read
event by event, failures backed off as client-go's reflector does, a request budget, and a forbidden watch
or kind never turned into a relist loop.

Fault modes are shown by counting requests and measuring memory, never by timing: the pacer's clock is a
list the test moves by hand, and a stream that never ends is a bounded generator the client must give up
long before it ends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube import live
from kubectl_gpu.kube.budget import BudgetSettings, RequestBudget
from kubectl_gpu.kube.changes import WatchAnswer, changed_since
from kubectl_gpu.kube.live import LiveOptions, LiveSource
from kubectl_gpu.kube.pacing import POLL_SECONDS, Backoff, ReadPacer
from kubectl_gpu.kube.transport import ResponseTooLarge
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.kubelet import wait_for
from tests.kube.wire import Response, status_body

REPO = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


def _source(kubeconfig: Path, clock: list[float]) -> LiveSource:
    source = LiveSource(LiveOptions(kubeconfig=str(kubeconfig)))
    source.pacer = ReadPacer(
        clock=lambda: clock[0], backoff=Backoff(clock=lambda: clock[0], draw=lambda: 0.0)
    )
    return source


def _bookmarks(chunks: int, sent: list[int]) -> Iterator[bytes]:
    """A watch that never ends in time: bookmarks only, 64 KiB a chunk."""
    line = json.dumps({"type": "BOOKMARK", "object": {"kind": "Node", "metadata": {"resourceVersion": "9"}}})
    chunk = ((line + "\n") * (65536 // (len(line) + 1))).encode()
    for _ in range(chunks):
        sent[0] += len(chunk)
        yield chunk


def _endless_line(chunks: int, sent: list[int]) -> Iterator[bytes]:
    """A body with no line break and no end: what a broken proxy or a hostile server may send."""
    chunk = b"x" * 65536
    for _ in range(chunks):
        sent[0] += len(chunk)
        yield chunk


def _load(source: LiveSource, kinds: list[str]) -> str | None:
    """One load of a kept-open source, as `-w` and the TUI do: what it said was failing, if anything (the
    last state stays shown)."""
    try:
        source.load(kinds)
    except ClusterError as exc:
        return exc.message
    return None


def _watch_requests(api: FakeKubeAPI) -> list[str]:
    return [r.path for r in api.requests if r.query.get("watch")]


def _list_requests(api: FakeKubeAPI) -> list[str]:
    return [
        r.path for r in api.requests if not r.query.get("watch") and r.path.startswith(("/api/v1/", "/apis/"))
    ]


def _watch_answer(api: FakeKubeAPI, answer: Response) -> None:
    """Every watch request gets `answer`; lists are served as usual."""
    handle = api.handle

    def patched(
        method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> Response:
        if query.get("watch"):
            return answer
        return handle(method, path, query, headers, body)

    api.handle = patched  # type: ignore[method-assign]


# --- bytes -------------------------------------------------------------------------------------------


def test_a_watch_that_streams_bookmarks_forever_costs_no_memory(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """The review saw 3.4 GB in 12 s: the body was read whole before it was parsed."""
    apiserver.add(node("n1"))
    source = _source(kubeconfig, [0.0])
    _state, _ = source.load(["nodes"])
    sent = [0]
    apiserver.fault(path=r"^/api/v1/nodes$", stream=lambda: _bookmarks(20_000, sent))  # up to 1.3 GB
    tracemalloc.start()
    try:
        answer = changed_since(source.transport, source._previous.marks[0])  # type: ignore[union-attr]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer is WatchAnswer.UNCHANGED  # only bookmarks until the time ran out
    assert peak < 8 * MiB, (peak, sent[0])
    assert sent[0] < 20_000 * 65536  # the client hung up long before the stream's end


def test_a_watch_line_without_end_is_given_up_at_its_cap(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    source = _source(kubeconfig, [0.0])
    source.load(["nodes"])
    sent = [0]
    apiserver.fault(path=r"^/api/v1/nodes$", stream=lambda: _endless_line(20_000, sent))
    tracemalloc.start()
    try:
        answer = changed_since(source.transport, source._previous.marks[0])  # type: ignore[union-attr]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer is WatchAnswer.FAILED
    assert peak < 24 * MiB, peak  # one line's cap (4 MiB) and the chunks around it


def test_a_list_body_that_never_ends_is_refused_at_its_cap(
    apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "LIST_PAGE_MAX_BYTES", 8 * MiB)
    sent = [0]
    apiserver.fault(path=r"^/api/v1/nodes$", stream=lambda: _endless_line(20_000, sent))
    tracemalloc.start()
    try:
        with pytest.raises(ResponseTooLarge, match=r"larger than 8 MiB"):
            LiveSource(LiveOptions(kubeconfig=str(kubeconfig))).load(["nodes"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * MiB, peak
    assert sent[0] < 200 * MiB


def test_an_endless_body_is_one_line_and_exit_3(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """Through the CLI: the default cap on a GET (discovery) holds; one line, no traceback."""
    apiserver.fault(path=r"^/version$", stream=lambda: _endless_line(4_000, [0]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    result = subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", "nodes", "--kubeconfig", str(kubeconfig)],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.splitlines()
    assert "was larger than 16 MiB" in line, line


# --- pacing ------------------------------------------------------------------------------------------


def test_a_forbidden_watch_sends_nothing_until_the_poll_is_due(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """The review saw 44-52 full relists in 8 s when every watch failed."""
    clock = [0.0]
    apiserver.add(node("n1"))
    _watch_answer(
        apiserver, Response(403, json.dumps(status_body(403, "nodes is forbidden: watch")).encode())
    )
    source = _source(kubeconfig, clock)
    source.load(["nodes"])
    before = len(apiserver.requests)
    for _ in range(50):  # a -w loop or a TUI refreshing, with the clock standing still
        state, _ = source.load(["nodes"])
    assert len(_watch_requests(apiserver)) == 1  # the one that said 403
    assert len(apiserver.requests) - before == 1
    assert [n.code for n in state.notes] == ["POLLING"]
    clock[0] += POLL_SECONDS
    source.load(["nodes"])
    assert len(_list_requests(apiserver)) == 2  # the first read and one poll: never a watch again
    assert len(_watch_requests(apiserver)) == 1


def test_a_forbidden_kind_is_not_relisted_on_every_loop(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """`pending -w` with events forbidden (a normal read-only role): the review saw 64 relists in 8 s."""
    clock = [0.0]
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/events$", status=403)
    source = _source(kubeconfig, clock)
    source.load(["nodes", "events"])
    lists = len(_list_requests(apiserver))
    for _ in range(10):
        clock[0] += 1.0  # each round of watches is allowed one second after the one before
        source.load(["nodes", "events"])
    assert len(_list_requests(apiserver)) == lists  # only the nodes' watch, ten times
    assert len(_watch_requests(apiserver)) == 10


def test_410_relists_once_then_backs_off(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    clock = [0.0]
    apiserver.add(node("n1"))
    expired = {"type": "ERROR", "object": status_body(410, "too old resource version: 1 (2)")}
    _watch_answer(apiserver, Response(200, (json.dumps(expired) + "\n").encode()))
    source = _source(kubeconfig, clock)
    first, _ = source.load(["nodes"])
    second, _ = source.load(["nodes"])  # 410: list again at once
    assert second is not first
    said = set()
    for _ in range(20):
        clock[0] += 0.1
        said.add(_load(source, ["nodes"]))  # a second 410 straight after: a failure, backed off
    assert len(_list_requests(apiserver)) <= 3, _list_requests(apiserver)
    assert any(s and "compacted again right after listing (410 Gone)" in s for s in said), said


@pytest.mark.parametrize(
    "answer",
    [
        Response(500, json.dumps(status_body(500, "etcdserver: request timed out")).encode()),
        Response(200, b"<html>garbage</html>\n", "text/html"),
    ],
    ids=["500", "garbage"],
)
def test_failing_watches_back_off_as_client_go(
    apiserver: FakeKubeAPI, kubeconfig: Path, answer: Response
) -> None:
    clock = [0.0]
    apiserver.add(node("n1"))
    _watch_answer(apiserver, answer)
    source = _source(kubeconfig, clock)
    source.load(["nodes"])
    waits, said = [], set()
    for _ in range(8):
        said.add(_load(source, ["nodes"]))  # a watch that fails: said, and a wait before anything else
        waits.append(source.wait())
        for _ in range(5):
            said.add(_load(source, ["nodes"]))  # nothing sent while waiting, and the failure said again
        clock[0] += source.wait()
        source.load(["nodes"])  # then list (and watch) again
    assert waits == pytest.approx([0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0])
    assert len(_list_requests(apiserver)) == 1 + 8
    assert len(_watch_requests(apiserver)) == 8
    assert all(s is not None and "watching /api/v1/nodes: " in s and "next try in" in s for s in said)


def test_a_person_asking_skips_the_backoff_once(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """The TUI's `r`: read now, even while backing off (the request budget still holds)."""
    clock = [0.0]
    apiserver.add(node("n1"))
    source = _source(kubeconfig, clock)
    source.load(["nodes"])
    apiserver.fault(path=r"^/api/v1/nodes$", status=500, times=1)  # the watch fails once
    assert _load(source, ["nodes"]) is not None and source.wait() > 0
    source.urge()
    apiserver.add(node("n2"))
    state, _ = source.load(["nodes"])
    assert sorted(n.name for n in state.nodes) == ["n1", "n2"]


def test_the_backoff_resets_after_two_quiet_minutes() -> None:
    clock = [0.0]
    backoff = Backoff(clock=lambda: clock[0], draw=lambda: 0.5)
    assert [backoff.next() for _ in range(3)] == pytest.approx([1.2, 2.4, 4.8])
    clock[0] += 121
    assert backoff.next() == pytest.approx(1.2)


def test_the_request_budget_holds_any_loop_to_its_rate() -> None:
    clock, slept = [0.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    budget = RequestBudget(BudgetSettings(qps=5, burst=10), clock=lambda: clock[0], sleep=sleep)
    for _ in range(60):
        budget.take()
    assert clock[0] == pytest.approx((60 - 10) / 5)  # the burst at once, then 5 a second
    assert budget.taken == 60
    assert not budget.take(limit=0.01)  # a wait past the caller's limit is refused, the token given back
    assert budget.taken == 60


def test_pending_w_under_forbidden_watch_and_events_polls_and_sends_nothing_between(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """As a user: `pending -w` against a server that forbids every watch and the event lists. Waited on states,
    not time: the first read, one round of watches (all 403), then nothing until the first poll, which asks
    one event selector instead of every one. So the rate is one read per POLL_SECONDS, whatever the machine."""
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/events$", status=403)
    _watch_answer(apiserver, Response(403, json.dumps(status_body(403, "forbidden: watch")).encode()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", "pending", "-w", "--kubeconfig", str(kubeconfig)],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

    def node_lists() -> list[str]:
        return [p for p in _list_requests(apiserver) if p == "/api/v1/nodes"]

    def polled_events() -> list[object]:  # the event lists after the round of watches: the polls'
        requests = list(apiserver.requests)
        first = next((i for i, r in enumerate(requests) if r.query.get("watch")), len(requests))
        return [r for r in requests[first:] if r.path == "/api/v1/events" and not r.query.get("watch")]

    try:  # a poll lists the nodes before the events: wait for both, not for the first of them
        polled = wait_for(
            lambda: (len(node_lists()) >= 2 and bool(polled_events())) or process.poll() is not None,
            timeout=POLL_SECONDS * 12,
        )
    finally:
        process.terminate()
        _, err = process.communicate(timeout=60)
    assert polled and len(node_lists()) >= 2, err
    requests = list(apiserver.requests)
    first_watch = next(i for i, r in enumerate(requests) if r.query.get("watch"))
    watches = [(r.path, r.query.get("fieldSelector")) for r in requests if r.query.get("watch")]
    assert len(watches) == len(set(watches))  # one round: no list is ever watched again once it was refused
    events = polled_events()
    assert 1 <= len(events) <= len(node_lists())  # a poll asks one event selector, not ten
    later = [r for r in requests[first_watch:] if not r.query.get("watch")]
    assert len(later) <= (len(node_lists()) - 1) * first_watch  # each poll at most what the first read sent
    assert "forbidden to watch" in err and err.count("forbidden to list events") == 1, err


def test_a_budget_wait_never_passes_the_deadline(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    source = LiveSource(LiveOptions(kubeconfig=str(kubeconfig), request_timeout=0.05))
    source.transport.budget = RequestBudget(BudgetSettings(qps=0.01, burst=1))
    with pytest.raises(ClusterError, match="took longer than"):
        source.load(["nodes"])


def test_debug_shows_the_request_budget(cli: Any, apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    result = cli("nodes", "--kubeconfig", str(kubeconfig), "--debug")
    assert result.code == 0, result.err
    (line,) = [x for x in result.err.splitlines() if x.startswith("debug: ") and "budget" in x]
    assert f"debug: {apiserver.url}: " in line and "budget 5 requests/s, burst 30" in line, line


def test_forbidden_events_cost_one_request_a_read_after_the_first(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    clock = [0.0]
    apiserver.add(node("n1"))
    apiserver.fault(path=r"^/api/v1/events$", status=403)
    source = _source(kubeconfig, clock)
    source.load(["nodes", "events"])
    first = len([p for p in _list_requests(apiserver) if p == "/api/v1/events"])
    clock[0] += 61  # the recheck of the kinds it missed
    source.load(["nodes", "events"])
    again = len([p for p in _list_requests(apiserver) if p == "/api/v1/events"]) - first
    assert first > 1 and again == 1
    apiserver.clear_faults()
    clock[0] += 61
    state, _ = source.load(["nodes", "events"])
    assert not state.notes  # allowed again: every selector listed, the note gone
