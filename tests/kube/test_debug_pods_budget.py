"""The debug pods' request budget holds what the default fan-out sends (issue 38): `smi --all` on 40 nodes,
8 at a time, each pod done within a second, takes no request's token late, so no create, look, log read or
delete waits behind the other pods' polls. Counted on a virtual clock with the runner's own poll schedule
(`poll_times`) and the budget's own token bucket, never by wall clock."""

from __future__ import annotations

import heapq
import inspect

import pytest

from kubectl_gpu.cli.debug.smi import smi
from kubectl_gpu.kube.budget import DEBUG_PODS_BUDGET, BudgetSettings, RequestBudget
from kubectl_gpu.kube.debug.runner.settings import RunnerSettings, poll_times

NODES = 40


def default_concurrency() -> int:
    value = inspect.signature(smi).parameters["concurrency"].default
    assert isinstance(value, int)
    return value


def fan_out_requests(nodes: int, concurrency: int, pod_s: float) -> list[float]:
    """When each request of the fan-out is sent (seconds from the first create), requests taking no time:
    each worker creates a pod, looks at it on the runner's schedule until the look at or after `pod_s`, reads
    its log, deletes it, and takes the next node."""
    looks = poll_times(RunnerSettings(), pod_s + 5)
    seen = next(t for t in looks if t >= pod_s)
    workers = [0.0] * concurrency
    sent: list[float] = []
    for _ in range(nodes):
        start = heapq.heappop(workers)
        sent.append(start)  # create
        sent.extend(start + t for t in looks if t <= seen)  # the looks, the last one sees it done
        sent += [start + seen, start + seen]  # log, delete
        heapq.heappush(workers, start + seen)
    return sorted(sent)


def waits(settings: BudgetSettings, sent: list[float]) -> int:
    """How many of the requests would wait for a token."""
    now = [0.0]
    budget = RequestBudget(settings, clock=lambda: now[0], sleep=lambda _: None)
    late = 0
    for at in sent:
        now[0] = at
        late += budget.reserve() > 0
    return late


@pytest.mark.parametrize("pod_s", [1.0, 1.5, 3.0, 10.0])
def test_the_default_fan_out_never_waits_for_a_token(pod_s: float) -> None:
    sent = fan_out_requests(NODES, default_concurrency(), pod_s)
    assert waits(DEBUG_PODS_BUDGET, sent) == 0


def test_the_budget_still_holds_a_larger_fan_out() -> None:
    """A --concurrency far past the default is paced: the budget is a cap, not a formality."""
    sent = fan_out_requests(NODES, 40, 1.0)
    assert waits(DEBUG_PODS_BUDGET, sent) > 0


def test_twenty_a_second_made_the_default_fan_out_queue() -> None:
    """What the budget was (20/s, burst 100): the same fan-out's requests waited behind each other."""
    sent = fan_out_requests(NODES, default_concurrency(), 1.0)
    assert waits(BudgetSettings(qps=20.0, burst=100), sent) > 100
