"""`kube.fleet.gather`: bounded, per-key deadlines, and a hung key never holds the others back."""

from __future__ import annotations

import threading

import pytest

from kubectl_gpu.kube.fleet import Failed, Outcome, TimedOut, gather


def test_results_in_the_order_of_the_keys() -> None:
    results = gather(["c", "a", "b"], lambda key: key.upper(), parallel=2)
    assert results == [Outcome("c", "C"), Outcome("a", "A"), Outcome("b", "B")]


def test_a_failure_is_that_keys_answer() -> None:
    def work(key: str) -> str:
        if key == "bad":
            raise ValueError("no such cluster")
        return key

    good, bad = gather(["good", "bad"], work)
    assert good == Outcome("good", "good")
    assert isinstance(bad, Failed) and isinstance(bad.error, ValueError)


def test_a_hung_key_times_out_and_frees_its_slot() -> None:
    """One worker only, and the first key never returns by itself: the others are still answered, because
    a key past its deadline gives its slot to the next one."""
    release = threading.Event()
    done: list[str] = []

    def work(key: str) -> str:
        if key == "hung":
            release.wait(30)
        done.append(key)
        return key

    try:
        results = gather(["hung", "a", "b"], work, parallel=1, deadline=0.2)
    finally:
        release.set()
    assert results[0] == TimedOut("hung", 0.2)
    assert results[1:] == [Outcome("a", "a"), Outcome("b", "b")]


def test_at_most_parallel_at_once() -> None:
    lock = threading.Lock()
    running, peak = 0, 0

    def work(key: str) -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        threading.Event().wait(0.01)
        with lock:
            running -= 1

    gather([str(i) for i in range(12)], work, parallel=3)
    assert 1 <= peak <= 3


def test_keys_must_be_distinct() -> None:
    with pytest.raises(ValueError, match="distinct"):
        gather(["a", "a"], str)
