"""What the runner is given and gives back: its settings, a node to debug, a running shell pod."""

from __future__ import annotations

import msgspec

from kubectl_gpu.core.debugpod import Accelerator, ShellProbe, Strategy
from kubectl_gpu.core.k8s.models import Node

__all__ = ["Leftover", "NodeTarget", "RunnerSettings", "ShellPod", "poll_delay", "poll_times"]


class RunnerSettings(msgspec.Struct, frozen=True):
    namespace: str = "default"
    #: Seconds per node from create to log (the pod's activeDeadlineSeconds adds a margin to it).
    timeout: float = 120.0
    #: Polling a pod: the next look comes after `poll_ratio` of the time waited so far, at least
    #: `poll_initial` and at most `poll_max` seconds (see `poll_delay`).
    poll_initial: float = 0.1
    poll_max: float = 2.0
    poll_ratio: float = 0.2
    #: After a look that failed (5xx, 429, no connection), the next waits this long, doubling with each
    #: failure in a row, up to `poll_max` (`poll_delay`): a sick API server is not asked ten times a second.
    poll_failure_backoff: float = 1.0
    #: How long the shell pod may live at most.
    shell_lifetime: int = 4 * 3600
    #: How long deleting one pod keeps trying through errors (5xx, 429, no connection), backing off from
    #: `delete_backoff` seconds, doubling, to `delete_backoff_max`: an API blip or a short control-plane
    #: outage must not leave a privileged pod behind; a 403 (RBAC) is not retried.
    delete_budget: float = 30.0
    delete_backoff: float = 0.2
    delete_backoff_max: float = 5.0


class NodeTarget(msgspec.Struct, frozen=True):
    """A node to debug, with what decides the pod: device kind, the resource to request, how many are free."""

    node: Node
    accelerator: Accelerator
    image: str
    resource: str | None = None
    free: int = 0

    @property
    def name(self) -> str:
        return self.node.name


class ShellPod(msgspec.Struct, frozen=True):
    namespace: str
    name: str
    strategy: Strategy
    probe: ShellProbe
    notes: tuple[str, ...] = ()


class Leftover(msgspec.Struct, frozen=True):
    """A debug pod that could not be deleted (or whose create never returned): `kubectl gpu cleanup` it."""

    namespace: str
    name: str
    node: str
    problem: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}: {self.problem}"


def poll_delay(waited: float, settings: RunnerSettings, failures: int = 0) -> float:
    """Seconds to the next look at a pod, `waited` seconds after waiting for it began, `failures` looks in a
    row having failed.

    Proportional to the wait so far, so a pod done after t seconds is seen by (1 + poll_ratio) t at the
    latest (t + poll_initial for the shortest, t + poll_max for the longest). A backoff that multiplies
    the delay by a factor k sees it up to k t late instead: 1.6 t for 0.1 x 1.6^n, so a fan-out of 1 s pods
    took 1.6 times as long as it had to. After a failed look it backs off as client-go retries do:
    `poll_failure_backoff`, doubling, at most `poll_max`."""
    delay = min(settings.poll_max, max(settings.poll_initial, waited * settings.poll_ratio))
    if failures:
        backoff = settings.poll_failure_backoff * 2 ** min(failures - 1, 16)
        delay = max(delay, min(settings.poll_max, backoff))
    return delay


def poll_times(settings: RunnerSettings, horizon: float, *, failing: bool = False) -> list[float]:
    """When the pod is looked at (seconds after waiting began; requests taking no time), up to `horizon`;
    `failing`: every look fails."""
    times = [0.0]
    while times[-1] < horizon:
        times.append(times[-1] + poll_delay(times[-1], settings, len(times) if failing else 0))
    return times
