"""Reading node conditions the right way round.

Kubernetes mixes polarities: `Ready` and the EKS node monitoring agent's `AcceleratedHardwareReady`,
`KernelReady`, ... are healthy when True; `MemoryPressure`, `DiskPressure`, `PIDPressure`,
`NetworkUnavailable` and node-problem-detector conditions (`KernelDeadlock`, `ReadonlyFilesystem`) are
healthy when False.
"""

from __future__ import annotations

import msgspec

from kubectl_gpu.core.k8s.models import Condition

__all__ = ["NODE_MONITORING_CONDITIONS", "ConditionHealth", "condition_health"]

NODE_MONITORING_CONDITIONS = frozenset(
    {
        "AcceleratedHardwareReady",
        "ContainerRuntimeReady",
        "KernelReady",
        "NetworkingReady",
        "StorageReady",
    }
)


def _healthy_when_true(type_: str) -> bool:
    return type_.endswith(("Ready", "Available", "Healthy"))


class ConditionHealth(msgspec.Struct, frozen=True):
    type: str
    status: str
    healthy: bool | None  # None when the status is Unknown
    reason: str | None
    message: str | None

    def to_dict(self) -> dict[str, object]:
        return {
            "type": self.type,
            "status": self.status,
            "healthy": self.healthy,
            "reason": self.reason,
            "message": self.message,
        }


def condition_health(condition: Condition) -> ConditionHealth:
    if condition.status not in ("True", "False"):
        healthy: bool | None = None
    else:
        healthy = condition.is_true == _healthy_when_true(condition.type)
    return ConditionHealth(condition.type, condition.status, healthy, condition.reason, condition.message)
