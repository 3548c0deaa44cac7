"""What the runner is given and gives back: its settings, a node to debug, a running shell pod."""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_gpu.core.debugpod import Accelerator, ShellProbe, Strategy
from kubectl_gpu.core.k8s.models import Node

__all__ = ["Leftover", "NodeTarget", "RunnerSettings", "ShellPod"]


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    namespace: str = "default"
    #: Seconds per node from create to log (the pod's activeDeadlineSeconds adds a margin to it).
    timeout: float = 120.0
    poll_initial: float = 0.1
    poll_max: float = 2.0
    poll_factor: float = 1.6
    #: How long the shell pod may live at most.
    shell_lifetime: int = 4 * 3600
    #: How long deleting one pod keeps trying through errors (5xx, 429, no connection), backing off from
    #: `delete_backoff` seconds, doubling, to `delete_backoff_max`: an API blip or a short control-plane
    #: outage must not leave a privileged pod behind; a 403 (RBAC) is not retried.
    delete_budget: float = 30.0
    delete_backoff: float = 0.2
    delete_backoff_max: float = 5.0


@dataclass(frozen=True, slots=True)
class NodeTarget:
    """A node to debug, with what decides the pod: device kind, the resource to request, how many are free."""

    node: Node
    accelerator: Accelerator
    image: str
    resource: str | None = None
    free: int = 0

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True, slots=True)
class ShellPod:
    namespace: str
    name: str
    strategy: Strategy
    probe: ShellProbe
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Leftover:
    """A debug pod that could not be deleted (or whose create never returned): `kubectl gpu cleanup` it."""

    namespace: str
    name: str
    node: str
    problem: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}: {self.problem}"
