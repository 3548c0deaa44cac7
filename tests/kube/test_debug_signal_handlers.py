"""The signal handling around debug pods, in-process (issue 36, item 5): the first signal interrupts, every
later one only says so, a message that cannot be written never cuts the cleanup short (nor the fan-out's
wait for its workers' deletes), the handlers are restored after the block, and a DELETE always has a
timeout (also with --request-timeout 0)."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from typing import Any

import pytest
from kubernetes import client

from kubectl_gpu.kube.debug import pod_api
from kubectl_gpu.kube.debug.pod_api import DELETE_TIMEOUT, PodApi
from kubectl_gpu.kube.debug.runner import interrupts_on_sigterm, run_parallel, say

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def test_the_first_signal_interrupts_the_later_ones_only_say_so() -> None:
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    said: list[tuple[str, int]] = []
    with (
        pytest.raises(KeyboardInterrupt),
        interrupts_on_sigterm(
            on_again=lambda signum: said.append(("again", signum)),
            on_first=lambda signum: said.append(("first", signum)),
        ),
    ):
        try:
            signal.raise_signal(signal.SIGINT)
            raise AssertionError("not interrupted")
        finally:  # the cleanup, which later signals cannot stop
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.raise_signal(sig)
            said.append(("cleaned up", 0))
    hup = [("again", signal.SIGHUP)] if before[signal.SIGHUP] is not signal.SIG_IGN else []  # under nohup
    assert said == [
        ("first", signal.SIGINT),
        ("again", signal.SIGTERM),
        ("again", signal.SIGINT),
        *hup,
        ("cleaned up", 0),
    ]
    assert {sig: signal.getsignal(sig) for sig in SIGNALS} == before


def test_a_message_that_cannot_be_written_does_not_stop_the_cleanup() -> None:
    def broken(signum: int) -> None:
        raise OSError(5, "Input/output error")  # stderr gone with the terminal (SIGHUP)

    def reentrant(signum: int) -> None:
        raise RuntimeError("reentrant call inside <_io.BufferedWriter name='<stderr>'>")

    cleaned = False
    with pytest.raises(KeyboardInterrupt), interrupts_on_sigterm(on_again=reentrant, on_first=broken):
        try:
            signal.raise_signal(signal.SIGTERM)
        finally:
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGHUP)
            cleaned = True
    assert cleaned


def test_say_writes_to_the_descriptor_and_never_raises(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    say("interrupted again: still deleting\n")(signal.SIGTERM)
    assert capfd.readouterr().err == "interrupted again: still deleting\n"

    def closed(fd: int, data: bytes) -> int:
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr("os.write", closed)
    say("lost\n")(signal.SIGHUP)  # nothing raised


@pytest.mark.parametrize(("request_timeout", "expected"), [(None, DELETE_TIMEOUT), (7.0, 7.0)])
def test_a_delete_always_has_a_timeout(
    monkeypatch: pytest.MonkeyPatch, request_timeout: float | None, expected: float
) -> None:
    api = PodApi(client.ApiClient(client.Configuration()), request_timeout=request_timeout, context=None)
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(pod_api.PodApi, "call", lambda self, method, path, **kw: sent.append(kw) or b"")
    api.delete_pod("default", "gpu-debug-i-0aaa-abcde")
    assert [kw["timeout"] for kw in sent] == [expected]


def test_a_failing_interrupt_message_still_gives_the_workers_their_time() -> None:
    """Ctrl-C with stderr gone (CI's log reader, a closed terminal): printing "deleting debug pods" fails,
    and the workers are still waited for (they delete their pods), and the interrupt still propagates."""
    cancel, running = threading.Event(), threading.Event()
    deleted: list[str] = []

    def work(item: str) -> str:
        if item == "i-0aaa":
            running.wait()  # done only once the other runs (an item not started yet is cancelled instead)
            return item
        running.set()
        cancel.wait()  # the runner's checkpoint: cancelled
        deleted.append(item)  # the pod's delete, in the worker's `finally`
        return item

    def done(item: str, result: str) -> None:
        raise KeyboardInterrupt  # Ctrl-C, landing on the main thread while it waits for the others

    def message() -> None:
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(KeyboardInterrupt):
        run_parallel(
            ["i-0aaa", "i-0bbb"], work, concurrency=2, cancel=cancel, on_done=done, on_interrupt=message
        )
    assert cancel.is_set() and deleted == ["i-0bbb"]


def test_an_interrupt_dropped_in_a_finalizer_still_stops_the_fan_out() -> None:
    """Python prints and drops an exception raised in a finalizer (`Exception ignored in: <finalize ...>`): a
    Ctrl-C whose KeyboardInterrupt lands while the main thread closes a garbage urllib3 pool is lost. The
    fan-out's wait raises it again, so the workers are cancelled and delete their pods (seen in CI)."""
    cancel = threading.Event()
    started = threading.Event()

    def work(_: int) -> str:
        started.set()
        return "cancelled" if cancel.wait(60) else "ran to the end"

    with interrupts_on_sigterm():
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        with contextlib.suppress(KeyboardInterrupt):  # its raise, dropped as a finalizer drops it
            handler(signal.SIGINT, None)
        with pytest.raises(KeyboardInterrupt):
            run_parallel([1], work, concurrency=1, cancel=cancel, grace=60)
    assert cancel.is_set()


def test_a_run_after_the_interrupt_was_taken_is_not_interrupted_again() -> None:
    cancel = threading.Event()
    with interrupts_on_sigterm():
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        with pytest.raises(KeyboardInterrupt):
            run_parallel([1], lambda _: handler(signal.SIGINT, None), concurrency=1, cancel=cancel)
        assert run_parallel([2], lambda n: n * 2, concurrency=1, cancel=threading.Event()) == [4]


def test_an_interrupt_dropped_in_a_finalizer_is_not_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python hands an exception a finalizer raised to `sys.unraisablehook`, which prints it with its
    traceback: under a Ctrl-C, the KeyboardInterrupt the handler raised there is dropped unprinted (the wait
    raises it again), while any other is still printed. The hook before the block is back after it."""
    import gc
    import weakref

    handed: list[type[BaseException]] = []

    def printing(unraisable: Any) -> None:
        handed.append(type(unraisable.exc_value))

    monkeypatch.setattr(sys, "unraisablehook", printing)

    class Pool:
        pass

    def raising(exc: type[BaseException]) -> None:
        raise exc

    with interrupts_on_sigterm():
        for exc in (KeyboardInterrupt, ValueError):
            pool = Pool()
            weakref.finalize(pool, raising, exc)
            del pool
            gc.collect()
    assert handed == [ValueError]
    assert sys.unraisablehook is printing
