"""Frozen models of the Kubernetes objects the analyses read.

Each model keeps only the fields an analysis uses, already converted (quantities to Decimal, timestamps to
aware datetimes, taints and tolerations to their scheduling types, node affinity to its terms), read once by
`core/k8s/parse`. No model keeps the object it came from: an analysis that needs another field adds it here
and to the parser, so it is read (and its errors reported) in one place.

What only some pods of a fleet are asked for (limits, container specs and statuses) is read on first use,
once, by the `PodDetails` the parser gives the pod; until then it holds only the parts of the pod's
containers and container statuses that this reading looks at (`core/k8s/parse/pods.py`), not the object.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

import msgspec

from kubectl_gpu.core.compared import compared_without
from kubectl_gpu.core.k8s.placement import NO_PLACEMENT, LabelSelector, Placement
from kubectl_gpu.core.k8s.times import parse_optional_time
from kubectl_gpu.core.scheduling.affinity import NodeAffinity
from kubectl_gpu.core.scheduling.taints import Taint, Toleration

Raw = dict[str, Any]
Resources = dict[str, Decimal]


class Meta(msgspec.Struct, frozen=True):
    name: str
    namespace: str | None
    uid: str | None
    labels: dict[str, str]
    annotations: dict[str, str]
    created: datetime | None
    owner_kind: str | None = None
    owner_name: str | None = None
    deleting: bool = False  # metadata.deletionTimestamp is set: deleted, held by finalizers

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


class Condition(msgspec.Struct, frozen=True):
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


class NodeClassRef(msgspec.Struct, frozen=True):
    group: str
    kind: str
    name: str


def find_condition(conditions: tuple[Condition, ...], type_: str) -> Condition | None:
    """The condition of that type, if any (a loop, not next() over a generator: asked per node and claim)."""
    for c in conditions:
        if c.type == type_:
            return c
    return None


class Node(msgspec.Struct, frozen=True):
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
    ephemeral_storage_text: str | None  # status.capacity ephemeral-storage as the node reports it

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    def condition(self, type_: str) -> Condition | None:
        return find_condition(self.conditions, type_)

    @property
    def ready(self) -> bool:
        cond = self.condition("Ready")
        return cond is not None and cond.is_true


class ContainerState(msgspec.Struct, frozen=True):
    name: str
    ready: bool
    state: str  # waiting | running | terminated | unknown
    reason: str | None
    message: str | None
    restart_count: int
    init: bool = False
    finished_at: datetime | None = None  # state.terminated.finishedAt


class ContainerPort(msgspec.Struct, frozen=True):
    """One `ports` entry of a container: what a metrics endpoint is found by (`kube/usage`)."""

    port: int
    name: str | None = None


class Container(msgspec.Struct, frozen=True):
    """One `spec.containers` entry (an app container: init containers are not modelled)."""

    name: str | None
    image: str | None
    # The first value of each variable; "" when it has neither value nor valueFrom (Kubernetes' default),
    # None when it comes from valueFrom (a secret, config map or field: its value is not in the spec).
    env: Mapping[str, str | None]
    resource_names: frozenset[str]  # the names under resources.requests and resources.limits
    ports: tuple[ContainerPort, ...] = ()  # `ports` entries with a valid containerPort


class PodDetails(Protocol):
    """What a pod is asked for only now and then, read on first use and then kept (`core/k8s/parse/pods.py`).

    Reading the limits, container specs and statuses of every pod at load time made loading the bench's S
    fleet about a third slower, for the pods an analysis asks about. They never raise: all are read
    leniently (see the `Pod` properties).
    """

    def limits(self) -> Resources: ...

    def containers(self) -> tuple[Container, ...]: ...

    def container_statuses(self) -> tuple[ContainerState, ...]: ...


#: The phases of a pod that has ended: it holds no resources (`Pod.terminated`).
TERMINATED_PHASES = ("Succeeded", "Failed")


@compared_without("_details", shown=False)
class Pod(msgspec.Struct, frozen=True, eq=False):
    meta: Meta
    node_name: str | None
    phase: str
    scheduler_name: str
    priority: int | None
    # effective pod request (init containers, sidecars and overhead included); read-only: the pods parsed
    # from one template share one dict (parse/pods_fast.py), as they share their tolerations
    requests: Resources
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    node_affinity: NodeAffinity
    nominated_node_name: str | None
    resource_claims: tuple[str, ...]
    started: datetime | None
    termination_grace_period_seconds: int | None
    scheduling_gates: tuple[
        str, ...
    ]  # spec.schedulingGates names: kube-scheduler waits until they are removed
    _details: PodDetails  # read on first use: neither compared nor shown
    # Host ports, topology spread, required pod (anti-)affinity, PVCs (core/k8s/placement.py).
    placement: Placement = NO_PLACEMENT
    # The API server's selectable fields the analyses do not read, for --field-selector on a snapshot
    # (core/k8s/field_selectors.py), each as the server reads it (parse/pods.py `selectable`).
    restart_policy: str = "Always"
    service_account_name: str = ""
    host_network: bool = False
    pod_ip: str = ""  # status.podIPs[0].ip, else status.podIP

    @property
    def limits(self) -> Resources:
        """Effective limits, computed like `requests` (without the overhead); {} when a container's limits
        do not parse: they are only ever shown."""
        return self._details.limits()

    @property
    def containers(self) -> tuple[Container, ...]:
        """`spec.containers` (entries that are not objects skipped)."""
        return self._details.containers()

    @property
    def container_statuses(self) -> tuple[ContainerState, ...]:
        """Init container statuses, then app container statuses. Read leniently: an entry that is not an
        object is skipped, and a status that does not parse reads as none (the API server writes it)."""
        return self._details.container_statuses()

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace or "default"

    @property
    def terminated(self) -> bool:
        return self.phase in TERMINATED_PHASES


class InvolvedObject(msgspec.Struct, frozen=True):
    kind: str | None
    namespace: str | None
    name: str | None
    uid: str | None


class Event(msgspec.Struct, frozen=True):
    meta: Meta
    type: str | None
    reason: str
    message: str
    involved: InvolvedObject
    component: str | None
    count: int
    first_seen: datetime | None
    last_seen: datetime | None


class Budget(msgspec.Struct, frozen=True):
    nodes: str
    schedule: str | None
    duration: str | None
    reasons: tuple[str, ...]


class NodePool(msgspec.Struct, frozen=True):
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
    api_version: str | None = None  # as written: karpenter.sh/v1, or a removed karpenter.sh/v1beta1
    # Every field path the object sets, schema-style (`.spec.template.spec.expireAfter`, `[]` for list
    # items; `.metadata` and `.status` left out): lint checks them against the CRD schema.
    field_paths: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name


class LegacyKarpenterObject(msgspec.Struct, frozen=True):
    """A pre-v1beta1 Karpenter object (`karpenter.sh/v1alpha5` Provisioner or Machine,
    `karpenter.k8s.aws/v1alpha1` AWSNodeTemplate): Karpenter v0.32 replaced them with NodePool, NodeClaim
    and EC2NodeClass, and v1.0 stopped serving them. Kept only so a command can say so."""

    meta: Meta
    kind: str
    api_version: str

    @property
    def name(self) -> str:
        return self.meta.name


class NodeClaim(msgspec.Struct, frozen=True):
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
    last_pod_event: datetime | None  # status.lastPodEventTime
    startup_taints: tuple[Taint, ...] = ()  # spec.startupTaints: absent while the node is not initialized

    @property
    def name(self) -> str:
        return self.meta.name

    def condition(self, type_: str) -> Condition | None:
        return find_condition(self.conditions, type_)


class NodeClass(msgspec.Struct, frozen=True):
    """Auto Mode `eks.amazonaws.com/v1 NodeClass` or self-managed `karpenter.k8s.aws/v1 EC2NodeClass`."""

    meta: Meta
    kind: str  # "NodeClass" | "EC2NodeClass"
    group: str
    ephemeral_storage_size: Decimal | None
    instance_store_policy: str | None
    conditions: tuple[Condition, ...]
    ephemeral_storage_text: str | None  # spec.ephemeralStorage.size as written (NodeClass)
    user_data: str | None  # spec.userData (EC2NodeClass)
    ami_aliases: tuple[str, ...]  # spec.amiSelectorTerms[].alias (EC2NodeClass)
    # spec.blockDeviceMappings (EC2NodeClass) as (deviceName, rootVolume, ebs.volumeSize in bytes or None)
    block_devices: tuple[tuple[str | None, bool, Decimal | None], ...] = ()
    ami_family: str | None = None  # spec.amiFamily (EC2NodeClass)
    zones: tuple[str, ...] = ()  # status.subnets[].zone: where its nodes can launch
    api_version: str | None = None  # as written: karpenter.k8s.aws/v1, or a removed .../v1beta1

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


class Device(msgspec.Struct, frozen=True):
    name: str
    attributes: dict[str, Any]
    capacity: dict[str, str]


class ResourceSlice(msgspec.Struct, frozen=True):
    meta: Meta
    driver: str
    node_name: str | None
    pool: str | None
    devices: tuple[Device, ...]


class PersistentVolumeClaim(msgspec.Struct, frozen=True):
    meta: Meta
    volume_name: str | None  # spec.volumeName: bound (or being bound) to this PV
    storage_class: str | None  # spec.storageClassName
    phase: str | None  # status.phase: Pending | Bound | Lost

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace or "default"


class PersistentVolume(msgspec.Struct, frozen=True):
    meta: Meta
    # spec.nodeAffinity.required.nodeSelectorTerms, each its matchExpressions as raw requirements
    node_affinity: tuple[tuple[Raw, ...], ...]
    local: bool  # spec.local or spec.hostPath (Karpenter drops their hostname requirement)

    @property
    def name(self) -> str:
        return self.meta.name


class StorageClass(msgspec.Struct, frozen=True):
    meta: Meta
    binding_mode: str  # volumeBindingMode, Immediate when unset
    # allowedTopologies[].matchLabelExpressions as (key, values) pairs, one tuple per term
    allowed_topologies: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]
    provisioner: str | None

    @property
    def name(self) -> str:
        return self.meta.name


class DaemonSet(msgspec.Struct, frozen=True):
    """A DaemonSet as Karpenter sees it: the pod its template would make (`daemonset.PodForDaemonSet`)."""

    meta: Meta
    pod: Pod

    @property
    def name(self) -> str:
        return self.meta.name


class NodeOverlay(msgspec.Struct, frozen=True):
    """Karpenter `karpenter.sh/v1alpha1 NodeOverlay`: capacity added to and prices changed for matching
    instance types."""

    meta: Meta
    requirements: tuple[Raw, ...]
    price: str | None
    price_adjustment: str | None
    capacity: Resources
    weight: int
    conditions: tuple[Condition, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name


class PodDisruptionBudget(msgspec.Struct, frozen=True):
    """A `policy/v1 PodDisruptionBudget`: the evictions of the pods it selects it allows now
    (`status.disruptionsAllowed`); Karpenter's drain waits for them (the eviction API answers 429)."""

    meta: Meta
    selector: LabelSelector | None  # None: a nil selector, which selects no pod (policy/v1)
    min_available: int | str | None  # spec.minAvailable: a count or a percent ("50%")
    max_unavailable: int | str | None  # spec.maxUnavailable
    disruptions_allowed: int  # status.disruptionsAllowed (0 when the controller has not written it)
    current_healthy: int
    expected_pods: int

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace or ""

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Whether it covers a pod of `namespace` with `labels` (same namespace, the selector matches)."""
        return self.selector is not None and namespace == self.namespace and self.selector.matches(labels)
