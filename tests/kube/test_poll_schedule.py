"""How often a debug pod is looked at: short pods are not held back by the backoff (issue 13)."""

from __future__ import annotations

import bisect
import itertools

import pytest

from kubectl_gpu.kube.debug.runner.settings import RunnerSettings, poll_delay, poll_times

DEFAULT = RunnerSettings()


def _seen_at(times: list[float], done: float) -> float:
    """The first look at or after the moment the pod is done."""
    return times[bisect.bisect_left(times, done)]


@pytest.mark.parametrize("done", [0.5, 0.8, 1.0, 1.5, 2.0, 3.3, 7.0, 12.5, 30.0, 59.0, 119.0])
def test_a_pod_is_seen_within_a_fifth_of_its_own_time(done: float) -> None:
    times = poll_times(DEFAULT, 130.0)
    assert _seen_at(times, done) <= 1.2 * done + 1e-9


def test_the_old_backoff_would_fail_this() -> None:
    """0.1 x 1.6^k (the schedule before): a 1 s pod seen at 1.58 s, 1.6 times its time."""
    times, delay = [0.0], 0.1
    while times[-1] < 2:
        times.append(times[-1] + delay)
        delay = min(delay * 1.6, 2.0)
    assert _seen_at(times, 1.0) > 1.5


def test_the_delay_is_bounded_both_ways() -> None:
    assert poll_delay(0.0, DEFAULT) == DEFAULT.poll_initial
    assert poll_delay(3600.0, DEFAULT) == DEFAULT.poll_max
    assert poll_delay(5.0, DEFAULT) == pytest.approx(5.0 * DEFAULT.poll_ratio)
    times = poll_times(DEFAULT, 300.0)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) == pytest.approx(DEFAULT.poll_initial)
    assert max(gaps) == pytest.approx(DEFAULT.poll_max)


def test_the_looks_stay_few_over_a_long_wait() -> None:
    """Two minutes (the default --timeout) cost under 90 reads of the pod, most of them every poll_max."""
    assert len(poll_times(DEFAULT, 120.0)) < 90


def test_failed_looks_back_off_as_client_go_retries() -> None:
    """A sick API server (every look at the pod fails: 5xx, 429, no connection) is asked a few times a
    second in all, not ten times a second per pod: smi's default fan-out of 8 pods sends under 8 looks a
    second in their first 10 s (a healthy pod is looked at 10 times in its first second)."""
    healthy = poll_times(DEFAULT, 1.0)
    failing = poll_times(DEFAULT, 10.0, failing=True)
    assert len([t for t in healthy if t < 1.0]) >= 9
    assert [b - a for a, b in itertools.pairwise(failing)][:3] == pytest.approx([1.0, 2.0, 2.0])
    looks_in_10s = len([t for t in failing if t < 10.0])
    assert 8 * looks_in_10s / 10.0 < 8
    assert poll_delay(0.0, DEFAULT, failures=1) == DEFAULT.poll_failure_backoff
    assert poll_delay(0.0, DEFAULT, failures=40) == DEFAULT.poll_max
    assert poll_delay(0.0, DEFAULT, failures=0) == DEFAULT.poll_initial  # a look that worked: as before
