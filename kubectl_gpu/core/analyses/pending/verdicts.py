"""Stable verdict codes. Runbooks match on these names: never rename one, only add."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from kubectl_gpu.core.compared import compared_without

__all__ = ["BLOCKER_ORDER", "POD_SELECTOR_VERDICTS", "Blocker", "BlockerClass", "TargetRef", "Verdict"]


class Verdict(StrEnum):
    NO_ACCELERATOR_NODEPOOL = "NO_ACCELERATOR_NODEPOOL"
    UNSUPPORTED_KARPENTER_VERSION = "UNSUPPORTED_KARPENTER_VERSION"
    MISSING_TOLERATION = "MISSING_TOLERATION"
    LABEL_NAMESPACE_MISMATCH = "LABEL_NAMESPACE_MISMATCH"
    UNKNOWN_LABEL = "UNKNOWN_LABEL"
    REQUIREMENT_CONFLICT = "REQUIREMENT_CONFLICT"
    NO_INSTANCE_TYPE_FITS = "NO_INSTANCE_TYPE_FITS"
    MIN_VALUES_UNSATISFIED = "MIN_VALUES_UNSATISFIED"
    HOST_PORT_CONFLICT = "HOST_PORT_CONFLICT"
    VOLUME_TOPOLOGY_CONFLICT = "VOLUME_TOPOLOGY_CONFLICT"
    NODEPOOL_LIMIT_REACHED = "NODEPOOL_LIMIT_REACHED"
    NODECLASS_NOT_READY = "NODECLASS_NOT_READY"
    NODEPOOL_NOT_READY = "NODEPOOL_NOT_READY"
    NODEPOOL_DELETING = "NODEPOOL_DELETING"
    STATIC_NODEPOOL = "STATIC_NODEPOOL"
    CAPACITY_UNAVAILABLE = "CAPACITY_UNAVAILABLE"
    NODE_QUARANTINED = "NODE_QUARANTINED"
    INSUFFICIENT_ACCELERATOR = "INSUFFICIENT_ACCELERATOR"
    INSUFFICIENT_RESOURCES = "INSUFFICIENT_RESOURCES"
    TOPOLOGY_SPREAD_UNSATISFIABLE = "TOPOLOGY_SPREAD_UNSATISFIABLE"
    POD_AFFINITY_UNSATISFIABLE = "POD_AFFINITY_UNSATISFIABLE"
    VOLUME_UNAVAILABLE = "VOLUME_UNAVAILABLE"
    INVALID_SELECTOR = "INVALID_SELECTOR"
    POD_IGNORED_BY_PROVISIONER = "POD_IGNORED_BY_PROVISIONER"
    DRA_NOT_SUPPORTED_BY_PROVISIONER = "DRA_NOT_SUPPORTED_BY_PROVISIONER"
    SCHEDULING_GATED = "SCHEDULING_GATED"
    NOT_HANDLED_BY_SCHEDULER = "NOT_HANDLED_BY_SCHEDULER"
    PROVISIONING = "PROVISIONING"
    SCHEDULED_NOT_STARTED = "SCHEDULED_NOT_STARTED"
    UNVERIFIED = "UNVERIFIED"
    NO_BLOCKER_FOUND = "NO_BLOCKER_FOUND"

    @property
    def blocking(self) -> bool:
        """Everything but "wait, it is coming" blocks the pod (exit code 1)."""
        return self is not Verdict.PROVISIONING


# The table order: the first blocker of the nearest target in this order is the verdict.
BLOCKER_ORDER = tuple(Verdict)


class BlockerClass(StrEnum):
    SPEC = "spec"  # the pod as written can never run on this target
    CAPACITY = "capacity"  # it could, but not now (limits, NodeClass, cloud capacity, free GPUs)


class TargetRef(msgspec.Struct, frozen=True, order=True):
    kind: str  # NodePool | Node
    name: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name}


@compared_without("detail")
class Blocker(msgspec.Struct, frozen=True, eq=False):
    """What stops a pod on one target. Equal blockers are equal but for `detail` (which keys nothing)."""

    code: Verdict
    cls: BlockerClass
    target: TargetRef
    message: str
    fix: str | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def rank(self) -> int:
        return BLOCKER_ORDER.index(self.code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": str(self.code),
            "class": str(self.cls),
            "target": self.target.to_dict(),
            "message": self.message,
            "fix": self.fix,
        }


# Blockers that say the pod's own nodeSelector or node affinity rules the target out: the pod points
# elsewhere, so such a target is not the one to report while another passes the pod's selectors.
POD_SELECTOR_VERDICTS = frozenset(
    {Verdict.LABEL_NAMESPACE_MISMATCH, Verdict.UNKNOWN_LABEL, Verdict.REQUIREMENT_CONFLICT}
)
