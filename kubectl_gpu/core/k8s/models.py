"""Frozen models of the Kubernetes objects the analyses read.

Each model keeps only the fields an analysis uses, already converted (quantities to Decimal, timestamps to
aware datetimes, taints and tolerations to their scheduling types), plus `raw`: the object exactly as it came
from the API or the snapshot, for the few places that need a field we did not model. `raw` is shared, never
copied, and excluded from equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.k8s.times import parse_optional_time
from kubectl_gpu.core.scheduling.taints import Taint, Toleration

Raw = dict[str, Any]
Resources = dict[str, Decimal]


@dataclass(frozen=True, slots=True)
class Meta:
    name: str
    namespace: str | None
    uid: str | None
    labels: dict[str, str]
    annotations: dict[str, str]
    created: datetime | None
    owner_kind: str | None = None
    owner_name: str | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class Condition:
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    # Kept as text and parsed on use: most conditions' times are never read, and a fleet has millions.
    last_transition_text: str | None = None

    @property
    def is_true(self) -> bool:
        return self.status == "True"

    @property
    def last_transition(self) -> datetime | None:
        return parse_optional_time(self.last_transition_text)


@dataclass(frozen=True, slots=True)
class NodeClassRef:
    group: str
    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Node:
    meta: Meta
    provider_id: str | None
    unschedulable: bool
    taints: tuple[Taint, ...]
    capacity: Resources
    allocatable: Resources
    conditions: tuple[Condition, ...]
    os_image: str | None
    kernel_version: str | None
    kubelet_version: str | None
    container_runtime: str | None
    architecture: str | None
    raw: Raw = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    def condition(self, type_: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == type_), None)

    @property
    def ready(self) -> bool:
        cond = self.condition("Ready")
        return cond is not None and cond.is_true


@dataclass(frozen=True, slots=True)
class ContainerState:
    name: str
    ready: bool
    state: str  # waiting | running | terminated | unknown
    reason: str | None
    message: str | None
    restart_count: int
    init: bool = False


@dataclass(frozen=True, slots=True)
class Pod:
    meta: Meta
    node_name: str | None
    phase: str
    scheduler_name: str
    priority: int | None
    requests: Resources
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    nominated_node_name: str | None
    resource_claims: tuple[str, ...]
    started: datetime | None
    raw: Raw = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace or "default"

    @property
    def terminated(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def spec(self) -> Raw:
        spec = self.raw.get("spec")
        return spec if isinstance(spec, dict) else {}

    def condition(self, type_: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == type_), None)

    # Read from `raw` on use: a fleet has hundreds of thousands of pods and analyses read these for a few.
    # They never raise: what the API server accepted is well-formed, and a broken entry is skipped.

    @property
    def conditions(self) -> tuple[Condition, ...]:
        from kubectl_gpu.core.k8s.parse import pod_conditions

        return pod_conditions(self.raw)

    @property
    def containers(self) -> tuple[ContainerState, ...]:
        from kubectl_gpu.core.k8s.parse import pod_container_states

        return pod_container_states(self.raw)

    @property
    def limits(self) -> Resources:
        from kubectl_gpu.core.k8s.parse import pod_limits

        return pod_limits(self.raw)


@dataclass(frozen=True, slots=True)
class InvolvedObject:
    kind: str | None
    namespace: str | None
    name: str | None
    uid: str | None


@dataclass(frozen=True, slots=True)
class Event:
    meta: Meta
    type: str | None
    reason: str
    message: str
    involved: InvolvedObject
    component: str | None
    count: int
    first_seen: datetime | None
    last_seen: datetime | None
    raw: Raw = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Budget:
    nodes: str
    schedule: str | None
    duration: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NodePool:
    meta: Meta
    requirements: tuple[Raw, ...]
    template_labels: dict[str, str]
    taints: tuple[Taint, ...]
    startup_taints: tuple[Taint, ...]
    node_class_ref: NodeClassRef | None
    expire_after: str | None
    termination_grace_period: str | None
    consolidation_policy: str | None
    consolidate_after: str | None
    budgets: tuple[Budget, ...]
    limits: Resources
    weight: int | None
    replicas: int | None
    conditions: tuple[Condition, ...]
    status_resources: Resources
    raw: Raw = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class NodeClaim:
    meta: Meta
    node_pool: str | None
    node_class_ref: NodeClassRef | None
    requirements: tuple[Raw, ...]
    taints: tuple[Taint, ...]
    expire_after: str | None
    termination_grace_period: str | None
    requested: Resources
    node_name: str | None
    provider_id: str | None
    image_id: str | None
    capacity: Resources
    allocatable: Resources
    conditions: tuple[Condition, ...]
    raw: Raw = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    def condition(self, type_: str) -> Condition | None:
        return next((c for c in self.conditions if c.type == type_), None)


@dataclass(frozen=True, slots=True)
class NodeClass:
    """Auto Mode `eks.amazonaws.com/v1 NodeClass` or self-managed `karpenter.k8s.aws/v1 EC2NodeClass`."""

    meta: Meta
    kind: str  # "NodeClass" | "EC2NodeClass"
    group: str
    ephemeral_storage_size: Decimal | None
    instance_store_policy: str | None
    conditions: tuple[Condition, ...]
    raw: Raw = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def ready(self) -> bool | None:
        """True/False from the `Ready` condition; None when the object reports no conditions at all."""
        for cond in self.conditions:
            if cond.type == "Ready":
                return cond.is_true
        return None


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    attributes: dict[str, Any]
    capacity: dict[str, str]


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    meta: Meta
    driver: str
    node_name: str | None
    pool: str | None
    devices: tuple[Device, ...]
    raw: Raw = field(compare=False, repr=False)
