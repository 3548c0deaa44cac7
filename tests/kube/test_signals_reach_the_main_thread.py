"""A signal reaches the main thread's handler while it waits for workers (`kube/worker_threads.py`).

Python runs a signal's handler on the main thread, but only once that thread looks: a signal the kernel hands
to a worker (one blocked in a socket read), or one that comes just before the main thread starts a lock wait,
does not interrupt that wait. `smi`'s "interrupted again" then waited out a held DELETE's 30 s timeout
(`tests/cli/test_debug_signals.py` failed about one run in 25). So every thread the tool starts to make
requests blocks SIGINT, SIGTERM and SIGHUP (the kernel hands them to the main thread: read here as the
worker's signal mask), and the main thread waits for workers a slice at a time. The slices are tested with
the race made certain: a worker takes a signal itself (SIGUSR2, which workers do not block) and waits for the
main thread's handler to have run."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from kubectl_gpu.kube import fleet
from kubectl_gpu.kube.debug.runner import run_parallel
from kubectl_gpu.kube.debug.runner.signals import uninterruptible
from kubectl_gpu.kube.transport import Deadline, gather
from kubectl_gpu.kube.worker_threads import MAIN_THREAD_SIGNALS, leave_signals_to_main, start_worker
from tests.kube.kubelet import wait_for

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no per-thread signal mask")


def _blocked() -> frozenset[int]:
    return frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, []))


@pytest.fixture(autouse=True)
def main_mask_untouched() -> Iterator[None]:
    before = _blocked()
    assert not MAIN_THREAD_SIGNALS & before, "the test runner itself blocks them"
    yield
    assert _blocked() == before


def _in_started_thread(make: Callable[[Callable[[], None]], object]) -> frozenset[int]:
    seen: list[frozenset[int]] = []
    done = threading.Event()

    def read() -> None:
        seen.append(_blocked())
        done.set()

    make(read)
    assert done.wait(30)
    return seen[0]


def test_the_debug_pods_fan_out_workers() -> None:
    (mask,) = run_parallel([0], lambda _: _blocked(), concurrency=2, cancel=threading.Event())
    assert mask >= MAIN_THREAD_SIGNALS


def test_the_request_an_interrupt_cannot_cut_off() -> None:
    assert uninterruptible(_blocked) >= MAIN_THREAD_SIGNALS  # its thread, started from the main one


def test_the_parallel_lists() -> None:
    (mask,) = gather([_blocked], workers=2, deadline=Deadline(60), server="test")
    assert isinstance(mask, frozenset) and mask >= MAIN_THREAD_SIGNALS


def test_the_fleets_clusters() -> None:
    (result,) = fleet.gather(["a"], lambda _: _blocked())
    assert isinstance(result, fleet.Outcome) and result.value >= MAIN_THREAD_SIGNALS


def test_start_worker_and_the_threads_a_worker_starts() -> None:
    assert _in_started_thread(lambda read: start_worker(read, name="t")) >= MAIN_THREAD_SIGNALS

    def nested(read: Callable[[], None]) -> None:  # a plain thread started by a worker inherits its mask
        start_worker(lambda: threading.Thread(target=read).start(), name="outer")

    assert _in_started_thread(nested) >= MAIN_THREAD_SIGNALS


def test_the_main_thread_keeps_them() -> None:
    leave_signals_to_main()  # on the main thread: nothing (the fixture checks its mask after)
    assert not _blocked() & MAIN_THREAD_SIGNALS


@pytest.fixture
def handled() -> Iterator[threading.Event]:
    """Set by a SIGUSR2 handler, which Python runs on the main thread."""
    ran = threading.Event()
    before = signal.signal(signal.SIGUSR2, lambda signum, frame: ran.set())
    try:
        yield ran
    finally:
        signal.signal(signal.SIGUSR2, before)


def _main_thread_waits() -> bool:
    """Whether the main thread waits on a lock for its workers (not for one to start: `Thread.start`)."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    if frame is None or (frame.f_code.co_name, frame.f_code.co_filename) != ("wait", threading.__file__):
        return False
    while frame is not None:
        if frame.f_code.co_filename == threading.__file__ and frame.f_code.co_name == "start":
            return False
        frame = frame.f_back
    return True


def _signal_seen_by_main(handled: threading.Event) -> bool:
    """From a worker, once the main thread waits on a lock: a signal delivered to this thread, then whether the
    main thread ran its handler within 30 s (a main thread blocked in one long wait runs it only when the wait
    ends: after this returns)."""
    assert wait_for(_main_thread_waits, timeout=30)
    signal.pthread_kill(threading.get_ident(), signal.SIGUSR2)
    return handled.wait(30)


def test_the_fan_out_hears_a_signal_while_its_workers_delete(handled: threading.Event) -> None:
    """After Ctrl-C, the wait for the workers' deletes (`grace`, a minute here) still runs the later
    signals' handlers: they say "still deleting" while the deletes run."""
    cancel, running = threading.Event(), threading.Event()
    seen: list[bool] = []

    def work(item: str) -> str:
        if item == "done":
            running.wait(30)  # done once the other runs (an item not started yet is cancelled instead)
            return item
        running.set()
        cancel.wait(30)  # the runner's checkpoint, then its delete
        seen.append(_signal_seen_by_main(handled))
        return item

    def done(item: str, result: str) -> None:
        raise KeyboardInterrupt  # Ctrl-C, as the first worker is done

    with pytest.raises(KeyboardInterrupt):
        run_parallel(["done", "deleting"], work, concurrency=2, cancel=cancel, grace=60, on_done=done)
    assert seen == [True]


def test_the_fleet_hears_a_signal_while_it_waits_for_a_cluster(handled: threading.Event) -> None:
    (result,) = fleet.gather(["a"], lambda _: _signal_seen_by_main(handled))  # no deadline: one long wait
    assert result == fleet.Outcome("a", True)
