"""Building blocks for synthetic EKS Auto Mode / Karpenter cluster objects, shared by the demo generator
(`examples/generate_demo.py`) and the benchmark generator (`bench/generate.py`).

Every function returns plain dicts shaped like the items of `kubectl get <kind> -o json` (managedFields
stripped): full metadata, the defaults the API server fills in, and status as the kubelet, the scheduler and
Karpenter / EKS Auto Mode write it. Randomness comes only from an `Ids` instance seeded by the caller, so a
generator run is reproducible byte for byte.

Sources for shapes and strings: /work/shared/reference/EKS-FACTS.md (§1 NodePool/NodeClaim, §2.2/§2.3
message formats, §3 Auto Mode NodePools/NodeClass/labels, §4 lifecycle, §5 osImage forms),
karpenter_messages.json, and the real manifests/events under /work/shared/fixtures. Instance-determined node
labels of accelerated types come from the package catalog (`Catalog.labels`); the values the catalog does
not know (host CPU vendor and clock, hypervisor, encryption in transit) and the CPU-only types are
illustrative values kept in the two tables below.
"""

from __future__ import annotations

import hashlib
import math
import random
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, Final

from kubectl_gpu.core.catalog import Catalog, Provider, load_catalog, parse_instance_type_name
from kubectl_gpu.core.k8s.quantity import parse_quantity

__all__ = [
    "AUTO_MODE_COMPONENT",
    "NODE_MONITOR",
    "REGION",
    "SCHEDULER",
    "UNSCHEDULABLE_TAINT",
    "ZONE_IDS",
    "Ids",
    "NodeClassDef",
    "NodeDef",
    "NodePoolDef",
    "Obj",
    "OsRelease",
    "Shape",
    "container",
    "digest",
    "env_field",
    "env_secret",
    "env_var",
    "event",
    "karpenter_failed",
    "karpenter_requirements",
    "karpenter_resources",
    "node_and_claim",
    "node_usage",
    "nodeclass",
    "nodepool",
    "owner_ref",
    "pod",
    "pod_requests",
    "pod_requirements",
    "req",
    "scheduler_failed",
    "scheduler_verdict",
    "shape",
    "sort_keys",
    "sum_resources",
    "ts",
]

Obj = dict[str, Any]

REGION: Final = "us-west-2"
ACCOUNT: Final = "111122223333"
# AZ name -> AZ id differs per account; this mapping is one plausible account's.
ZONE_IDS: Final = {"us-west-2a": "usw2-az2", "us-west-2b": "usw2-az1", "us-west-2c": "usw2-az3"}
_ZONE_OCTET: Final = {"us-west-2a": 0, "us-west-2b": 64, "us-west-2c": 128}
SCHEDULER: Final = "default-scheduler"
AUTO_MODE_COMPONENT: Final = "eks-auto-mode/compute"  # EKS-FACTS §2.2: Auto Mode events since 2025-09-10
NODE_MONITOR: Final = "eks-node-monitoring-agent"
AUTO_MODE_MAX_PODS: Final = 110  # EKS-FACTS §3.1: "max pods per node capped at 110"
UNSCHEDULABLE_TAINT: Final = "node.kubernetes.io/unschedulable"

# Host CPU of accelerated families (Catalog.unknown_label_keys: the catalog leaves these out). Illustrative.
_GPU_HOST_CPU: Final = {
    "g6e": ("amd", 3400),
    "g6": ("amd", 3400),
    "g5": ("amd", 3300),
    "p5": ("amd", 3600),
    "p4d": ("intel", 3000),
    "inf2": ("amd", 3000),
}
# CPU-only types (the catalog holds accelerated types only): vcpu, memory MiB, EBS Mbps, network Mbps,
# ENI-based max pods. Family -> (cpu vendor, sustained MHz, arch). Illustrative values of the right shape.
_CPU_FAMILIES: Final = {
    "c6a": ("amd", 3600, "amd64"),
    "m6a": ("amd", 3600, "amd64"),
    "r6a": ("amd", 3600, "amd64"),
    "c7i": ("intel", 3200, "amd64"),
    "m7i": ("intel", 3200, "amd64"),
    "c6g": ("aws", 2500, "arm64"),
    "m7g": ("aws", 2600, "arm64"),
}
_CPU_TYPES: Final = {
    "c6a.large": (2, 4096, 10000, 781, 29),
    "c6a.2xlarge": (8, 16384, 10000, 3125, 58),
    "c6a.4xlarge": (16, 32768, 10000, 6250, 234),
    "m6a.xlarge": (4, 16384, 10000, 1562, 58),
    "m6a.2xlarge": (8, 32768, 10000, 3125, 58),
    "m6a.4xlarge": (16, 65536, 10000, 6250, 234),
    "m6a.8xlarge": (32, 131072, 10000, 12500, 234),
    "r6a.4xlarge": (16, 131072, 10000, 6250, 234),
    "c7i.4xlarge": (16, 32768, 10000, 6250, 234),
    "m7i.4xlarge": (16, 65536, 10000, 6250, 234),
    "c6g.large": (2, 4096, 4750, 750, 29),
    "m7g.2xlarge": (8, 32768, 10000, 3750, 58),
}

_NAME_CHARS: Final = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery rand.String alphabet
_DEFAULT_TOLERATIONS: Final = (
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
)


def ts(when: datetime) -> str:
    """RFC 3339 in UTC, seconds precision, as the API server writes timestamps."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Ids:
    """Deterministic identifiers: uids, EC2 ids, generateName suffixes, resourceVersions, IPs."""

    def __init__(self, seed: int, first_resource_version: int = 48_213_377) -> None:
        self.rng = random.Random(seed)
        self._rv = first_resource_version
        self._names: set[tuple[str, str]] = set()

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def hex(self, chars: int) -> str:
        return f"{self.rng.getrandbits(chars * 4):0{chars}x}"

    def instance_id(self) -> str:
        return "i-0" + self.hex(16)

    def ami(self) -> str:
        return "ami-0" + self.hex(16)

    def suffix(self, length: int = 5) -> str:
        return "".join(self.rng.choice(_NAME_CHARS) for _ in range(length))

    def unique_name(self, prefix: str, scope: str = "") -> str:
        """`<prefix>-<5 chars>`, never issued twice in `scope` (the API server retries generateName clashes)."""
        while True:
            name = f"{prefix}-{self.suffix()}"
            if (scope, name) not in self._names:
                self._names.add((scope, name))
                return name

    def reserve(self, name: str, scope: str = "") -> None:
        """Mark a fixed name as taken in `scope`."""
        self._names.add((scope, name))

    def resource_version(self) -> str:
        self._rv += self.rng.randint(1, 40)
        return str(self._rv)

    def ip(self, zone: str) -> str:
        return f"10.0.{_ZONE_OCTET.get(zone, 192) + self.rng.randint(0, 63)}.{self.rng.randint(4, 254)}"

    def event_name(self, involved: str, when: datetime) -> str:
        nanos = int(when.timestamp()) * 1_000_000_000 + self.rng.randint(0, 999_999_999)
        return f"{involved}.{nanos:x}"


def _meta(
    ids: Ids,
    name: str,
    created: datetime,
    *,
    namespace: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    owner: Obj | None = None,
    extra: Obj | None = None,
) -> Obj:
    md: Obj = {}
    if annotations:
        md["annotations"] = dict(annotations)
    md["creationTimestamp"] = ts(created)
    if extra:
        md.update(extra)
    if labels:
        md["labels"] = dict(labels)
    md["name"] = name
    if namespace is not None:
        md["namespace"] = namespace
    if owner is not None:
        md["ownerReferences"] = [owner]
    md["resourceVersion"] = ids.resource_version()
    md["uid"] = ids.uid()
    return md


def owner_ref(api_version: str, kind: str, name: str, uid: str, *, controller: bool = True) -> Obj:
    ref: Obj = {"apiVersion": api_version, "blockOwnerDeletion": True}
    if controller:
        ref["controller"] = True
    ref.update({"kind": kind, "name": name, "uid": uid})
    return ref


# --------------------------------------------------------------------------- instance types


@dataclass(frozen=True, slots=True)
class Shape:
    """What a node of one instance type looks like: capacity inputs and its instance labels."""

    name: str
    vcpu: int
    memory_mib: int
    arch: str
    max_pods: int
    extended: Mapping[str, int]  # nvidia.com/gpu, vpc.amazonaws.com/efa, aws.amazon.com/neuron...
    labels: Mapping[str, str]  # instance-determined labels for the provider (no zone/pool/capacity type)

    @property
    def gpus(self) -> int:
        return self.extended.get("nvidia.com/gpu", 0)

    @property
    def accelerated(self) -> bool:
        return any(k != "vpc.amazonaws.com/efa" for k in self.extended)


_SHAPES: dict[tuple[str, str], Shape] = {}


def shape(name: str, provider: Provider = "auto", catalog: Catalog | None = None) -> Shape:
    """The `Shape` of an instance type: catalog labels for accelerated types, the local table for CPU types."""
    key = (name, provider)
    cached = _SHAPES.get(key)
    if cached is not None:
        return cached
    cat = catalog or load_catalog()
    table = cat.label_table
    prefix = table.prefixes[provider]
    family, category, generation, size = parse_instance_type_name(name)
    it = cat.instance_type(name)
    if it is not None:
        labels = dict(cat.labels(it, provider))
        vendor, mhz = _GPU_HOST_CPU.get(family, ("intel", 3000))
        vcpu, memory, arch = it.vcpu, it.memory_mib, it.arch or "amd64"
        max_pods = it.allocatable_pods or 58
        extended = dict(it.extended_resources or {})
    else:
        if name not in _CPU_TYPES:
            raise KeyError(f"instance type {name!r} is neither in the catalog nor in the CPU table")
        vcpu, memory, ebs, net, max_pods = _CPU_TYPES[name]
        vendor, mhz, arch = _CPU_FAMILIES[family]
        extended = {}
        labels = dict(table.static[provider])
        labels.update(
            {
                "node.kubernetes.io/instance-type": name,
                "kubernetes.io/arch": arch,
                f"{prefix}/instance-category": category,
                f"{prefix}/instance-family": family,
                f"{prefix}/instance-generation": str(generation),
                f"{prefix}/instance-size": size,
                f"{prefix}/instance-cpu": str(vcpu),
                f"{prefix}/instance-memory": str(memory),
                f"{prefix}/instance-ebs-bandwidth": str(ebs),
                f"{prefix}/instance-network-bandwidth": str(net),
                f"{prefix}/instance-capability-flex": "false",
            }
        )
    labels.setdefault(f"{prefix}/instance-cpu-manufacturer", vendor)
    labels.setdefault(f"{prefix}/instance-cpu-sustained-clock-speed-mhz", str(mhz))
    labels.setdefault(f"{prefix}/instance-encryption-in-transit-supported", "true")
    labels.setdefault(f"{prefix}/instance-hypervisor", "nitro")
    if provider == "auto":
        max_pods = min(max_pods, AUTO_MODE_MAX_PODS)
    result = Shape(name, vcpu, memory, arch, max_pods, extended, labels)
    _SHAPES[key] = result
    return result


def _cpu_reserved_millicores(vcpu: int) -> int:
    """Karpenter's kube-reserved CPU: 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% above."""
    steps = (60.0, 10.0, 5.0, 5.0)
    return int(sum(steps[i] if i < 4 else 2.5 for i in range(vcpu)))


def _claim_resources(sh: Shape, ephemeral_gi: int, ephemeral: str | None = None) -> tuple[Obj, Obj]:
    """NodeClaim capacity/allocatable as Karpenter estimates them (7.5% VM overhead, 11Mi/pod + 255Mi
    kube-reserved, 100Mi eviction; 10% + 1Gi ephemeral reserve) - the formula behind the catalog numbers.
    `ephemeral` (a quantity such as "3800G") replaces the NodeClass size as the ephemeral-storage capacity."""
    mem = math.floor(sh.memory_mib * 0.925)
    if ephemeral is None:
        eph_cap, eph_alloc = f"{ephemeral_gi}Gi", f"{ephemeral_gi - math.ceil(ephemeral_gi * 0.1) - 1}Gi"
    else:
        total = int(parse_quantity(ephemeral))
        eph_cap, eph_alloc = ephemeral, str(total - math.ceil(total * 0.1) - 1024**3)
    capacity: Obj = {
        "cpu": str(sh.vcpu),
        "ephemeral-storage": eph_cap,
        "memory": f"{mem}Mi",
        "pods": str(sh.max_pods),
    }
    allocatable: Obj = {
        "cpu": f"{sh.vcpu * 1000 - _cpu_reserved_millicores(sh.vcpu)}m",
        "ephemeral-storage": eph_alloc,
        "memory": f"{mem - (11 * sh.max_pods + 255) - 100}Mi",
        "pods": str(sh.max_pods),
    }
    for res, count in sh.extended.items():
        capacity[res] = str(count)
        allocatable[res] = str(count)
    return dict(sorted(capacity.items())), dict(sorted(allocatable.items()))


def _node_resources(
    sh: Shape, ephemeral_gi: int, unhealthy_gpus: int, ephemeral_ki: int | None = None
) -> tuple[Obj, Obj]:
    """Node status capacity/allocatable as the kubelet reports them (Ki memory, bytes for storage).
    `ephemeral_ki` is the filesystem size the kubelet sees, when it is not an EBS volume of the NodeClass size."""
    mem_ki = sh.memory_mib * 1024 * 955 // 1000
    eph_ki = ephemeral_gi * 1024 * 1024 * 98 // 100 if ephemeral_ki is None else ephemeral_ki
    capacity: Obj = {
        "cpu": str(sh.vcpu),
        "ephemeral-storage": f"{eph_ki}Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem_ki}Ki",
        "pods": str(sh.max_pods),
    }
    allocatable: Obj = {
        "cpu": f"{sh.vcpu * 1000 - _cpu_reserved_millicores(sh.vcpu)}m",
        "ephemeral-storage": str(eph_ki * 1024 * 9 // 10 - 1024**3),
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem_ki - (11 * sh.max_pods + 255 + 100) * 1024}Ki",
        "pods": str(sh.max_pods),
    }
    for res, count in sh.extended.items():
        capacity[res] = str(count)
        healthy = count - unhealthy_gpus if res == "nvidia.com/gpu" else count
        allocatable[res] = str(healthy)
    return dict(sorted(capacity.items())), dict(sorted(allocatable.items()))


# --------------------------------------------------------------------------- NodeClass / NodePool


@dataclass(frozen=True, slots=True)
class NodeClassDef:
    name: str
    ephemeral_size: str = "80Gi"
    iops: int = 3000
    throughput: int = 125
    builtin: bool = False

    @property
    def ephemeral_gi(self) -> int:
        number, unit = int(self.ephemeral_size[:-2]), self.ephemeral_size[-2:]
        return number * {"Gi": 1, "Ti": 1024}[unit]


def nodeclass(ids: Ids, nc: NodeClassDef, created: datetime, *, subnets: Sequence[str], sg: str) -> Obj:
    """An Auto Mode `NodeClass` (eks.amazonaws.com/v1). Status: conditions only (schema UNCONFIRMED)."""
    labels = {"app.kubernetes.io/managed-by": "eks"} if nc.builtin else None
    spec: Obj = {
        "ephemeralStorage": {"iops": nc.iops, "size": nc.ephemeral_size, "throughput": nc.throughput},
        "networkPolicy": "DefaultAllow",
        "networkPolicyEventLogs": "Disabled",
        "role": "AmazonEKSAutoNodeRole",
        "securityGroupSelectorTerms": [{"id": sg}],
        "snatPolicy": "Random",
        "subnetSelectorTerms": [{"id": s} for s in subnets],
    }
    return {
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": _meta(
            ids,
            nc.name,
            created,
            labels=labels,
            extra={"finalizers": ["eks.amazonaws.com/termination"], "generation": 1},
        ),
        "spec": spec,
        "status": {
            "conditions": [_cond("Ready", "True", "Ready", created + timedelta(seconds=8), generation=1)]
        },
    }


@dataclass(frozen=True, slots=True)
class NodePoolDef:
    """A NodePool as written by its owner; `requirements` are NodeSelectorRequirements."""

    name: str
    nodeclass: str
    requirements: tuple[Obj, ...]
    taints: tuple[Obj, ...] = ()
    expire_after: str = "336h"
    termination_grace_period: str | None = "24h0m0s"
    consolidation_policy: str = "WhenEmptyOrUnderutilized"
    consolidate_after: str = "30s"
    budgets: tuple[Obj, ...] = ({"nodes": "10%"},)
    limits: Mapping[str, str] = field(default_factory=dict)
    template_labels: Mapping[str, str] = field(default_factory=dict)
    builtin: bool = False
    weight: int | None = None

    @property
    def capacity_type(self) -> str:
        for req in self.requirements:
            if req["key"] == "karpenter.sh/capacity-type":
                return str(req["values"][0])
        return "on-demand"

    def values(self, key: str) -> list[str] | None:
        for req in self.requirements:
            if req["key"] == key and req["operator"] == "In":
                return list(req["values"])
        return None


def req(key: str, operator: str, *values: str) -> Obj:
    """A NodeSelectorRequirement."""
    out: Obj = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def nodepool(
    ids: Ids,
    pool: NodePoolDef,
    created: datetime,
    *,
    nodes: int,
    resources: Mapping[str, str],
    nodeclass_ref: str = "NodeClass",
    nodeclass_group: str = "eks.amazonaws.com",
) -> Obj:
    """A `karpenter.sh/v1` NodePool with a status (resources summed over its nodes and in-flight claims)."""
    disruption: Obj = {
        "budgets": [dict(b) for b in pool.budgets],
        "consolidateAfter": pool.consolidate_after,
        "consolidationPolicy": pool.consolidation_policy,
    }
    tspec: Obj = {
        "expireAfter": pool.expire_after,
        "nodeClassRef": {"group": nodeclass_group, "kind": nodeclass_ref, "name": pool.nodeclass},
        "requirements": [dict(r) for r in pool.requirements],
    }
    if pool.taints:
        tspec["taints"] = [dict(t) for t in pool.taints]
    if pool.termination_grace_period:
        tspec["terminationGracePeriod"] = pool.termination_grace_period
    template: Obj = {"metadata": {"labels": dict(pool.template_labels)}} if pool.template_labels else {}
    template["spec"] = tspec
    spec: Obj = {"disruption": disruption}
    if pool.limits:
        spec["limits"] = dict(pool.limits)
    spec["template"] = template
    if pool.weight is not None:
        spec["weight"] = pool.weight
    ready_at = created + timedelta(seconds=3)
    labels = {"app.kubernetes.io/managed-by": "eks"} if pool.builtin else None
    annotations = {
        "karpenter.sh/nodepool-hash": str(ids.rng.getrandbits(63)),
        "karpenter.sh/nodepool-hash-version": "v3",
    }
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": _meta(
            ids, pool.name, created, labels=labels, annotations=annotations, extra={"generation": 1}
        ),
        "spec": spec,
        "status": {
            "conditions": [
                _cond(t, "True", t, ready_at, generation=1)
                for t in ("NodeClassReady", "NodeRegistrationHealthy", "Ready", "ValidationSucceeded")
            ],
            "nodeClassObservedGeneration": 1,
            "nodes": nodes,
            "resources": dict(sorted(resources.items())),
        },
    }


def _cond(
    type_: str,
    status: str,
    reason: str,
    when: datetime,
    *,
    message: str = "",
    generation: int | None = None,
) -> Obj:
    out: Obj = {"lastTransitionTime": ts(when), "message": message}
    if generation is not None:
        out["observedGeneration"] = generation
    out.update({"reason": reason, "status": status, "type": type_})
    return out


# --------------------------------------------------------------------------- Nodes and NodeClaims


@dataclass(frozen=True, slots=True)
class OsRelease:
    """One EKS Auto Mode node image release (date-versioned Bottlerocket, EKS-FACTS §5)."""

    version: str  # "2026.11.20"
    kernel: str
    kubelet: str
    containerd: str
    amis: Mapping[tuple[bool, str], str]  # (nvidia?, arch) -> ami id

    def os_image(self, nvidia: bool, k8s: str = "1.34") -> str:
        flavour, variant = (
            ("Nvidia", f"aws-k8s-{k8s}-nvidia") if nvidia else ("Standard", f"aws-k8s-{k8s}-standard")
        )
        return f"Bottlerocket (EKS Auto, {flavour}) {self.version} ({variant})"


@dataclass(frozen=True, slots=True)
class NodeDef:
    """One Karpenter-launched node: what it is, where, when, and what is wrong with it."""

    itype: str
    pool: NodePoolDef
    nodeclass: NodeClassDef
    zone: str
    created: datetime
    release: OsRelease
    name: str | None = None  # instance id; drawn from Ids when None
    claim_suffix: str | None = None
    unhealthy_gpus: int = 0
    accelerated_condition: Obj | None = None  # replaces the healthy AcceleratedHardwareReady condition
    drifted: str | None = None  # NodeClaim Drifted reason, e.g. "AMIDrift"
    images: tuple[tuple[str, int], ...] = ()  # (image ref, size bytes) cached on the node
    launching: bool = False  # a NodeClaim launched but not registered: no Node object
    requests: Mapping[str, str] = field(default_factory=lambda: {"cpu": "250m", "pods": "1"})  # first pod's
    # Ephemeral storage on the instance store (Auto Mode NodeClass size below the NVMe): the kubelet's
    # filesystem capacity in Ki and Karpenter's NodeClaim estimate (the NVMe total, e.g. "3800G"). None: the
    # NodeClass size (EBS).
    node_ephemeral_ki: int | None = None
    claim_ephemeral: str | None = None
    cordoned: datetime | None = None  # `kubectl cordon` time: spec.unschedulable and its taint
    annotations: Mapping[str, str] = field(default_factory=dict)  # extra Node annotations


def _claim_requirements(nd: NodeDef) -> list[Obj]:
    """The NodeClaim requirements: the pool's, its name, and the instance types that satisfied them."""
    reqs = [dict(r) for r in nd.pool.requirements]
    reqs.append(req("karpenter.sh/nodepool", "In", nd.pool.name))
    family = parse_instance_type_name(nd.itype)[0]
    sizes = ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
    same = sorted({nd.itype, *(f"{family}.{s}" for s in sizes if f"{family}.{s}" in _KNOWN_TYPES)})
    reqs.append(req("node.kubernetes.io/instance-type", "In", *same))
    return reqs


_KNOWN_TYPES: set[str] = set(_CPU_TYPES) | {it.name for it in load_catalog().instance_types}


def node_and_claim(
    ids: Ids, nd: NodeDef, now: datetime, *, provider: Provider = "auto"
) -> tuple[Obj | None, Obj]:
    """A Node (None while launching) and its NodeClaim, consistent with each other and with the pool."""
    sh = shape(nd.itype, provider)
    instance = nd.name or ids.instance_id()
    claim_name = f"{nd.pool.name}-{nd.claim_suffix}" if nd.claim_suffix else ids.unique_name(nd.pool.name)
    provider_id = f"aws:///{nd.zone}/{instance}"
    nvidia = sh.gpus > 0
    ami = nd.release.amis[(nvidia, sh.arch)]
    nodeclass_key = "eks.amazonaws.com/nodeclass" if provider == "auto" else "karpenter.k8s.aws/ec2nodeclass"
    placement = {
        "karpenter.sh/capacity-type": nd.pool.capacity_type,
        "karpenter.sh/nodepool": nd.pool.name,
        "topology.k8s.aws/zone-id": ZONE_IDS[nd.zone],
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": nd.zone,
        nodeclass_key: nd.nodeclass.name,
        **nd.pool.template_labels,
    }
    claim_labels = dict(sorted({**sh.labels, **placement}.items()))
    for node_only in ("app.kubernetes.io/managed-by", "eks.amazonaws.com/compute-type"):
        claim_labels.pop(node_only, None)
    cap, alloc = _claim_resources(sh, nd.nodeclass.ephemeral_gi, nd.claim_ephemeral)
    launched = nd.created + timedelta(seconds=2)
    registered = nd.created + timedelta(seconds=31)
    initialized = nd.created + timedelta(seconds=(95 if nvidia else 42))
    if nd.launching:
        conditions = [
            _cond(
                "Initialized",
                "Unknown",
                "AwaitingReconciliation",
                launched,
                message="object is awaiting reconciliation",
            ),
            _cond("Launched", "True", "Launched", launched),
            _cond(
                "Ready",
                "Unknown",
                "UnhealthyDependents",
                launched,
                message="Registered=Unknown, Initialized=Unknown",
            ),
            _cond(
                "Registered", "Unknown", "NodeNotFound", launched, message="Node not registered with cluster"
            ),
        ]
    else:
        conditions = [
            _cond("Consolidatable", "True", "Consolidatable", initialized + timedelta(minutes=30)),
            _cond("Initialized", "True", "Initialized", initialized),
            _cond("Launched", "True", "Launched", launched),
            _cond("Ready", "True", "Ready", initialized),
            _cond("Registered", "True", "Registered", registered),
        ]
        if nd.drifted:
            conditions.insert(
                1, _cond("Drifted", "True", nd.drifted, now - timedelta(days=6, hours=3), message=nd.drifted)
            )
    claim_spec: Obj = {
        "expireAfter": nd.pool.expire_after,
        "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": nd.nodeclass.name},
        "requirements": _claim_requirements(nd),
        "resources": {"requests": dict(sorted(nd.requests.items()))},
    }
    if nd.pool.taints:
        claim_spec["taints"] = [dict(t) for t in nd.pool.taints]
    if nd.pool.termination_grace_period:
        claim_spec["terminationGracePeriod"] = nd.pool.termination_grace_period
    claim_status: Obj = {"allocatable": alloc, "capacity": cap, "conditions": conditions, "imageID": ami}
    if not nd.launching:
        claim_status["lastPodEventTime"] = ts(
            max(initialized, now - timedelta(minutes=ids.rng.randint(5, 300)))
        )
        claim_status["nodeName"] = instance
    claim_status["providerID"] = provider_id
    claim_uid_meta = _meta(
        ids,
        claim_name,
        nd.created,
        labels=claim_labels,
        annotations={
            "eks.amazonaws.com/nodeclass-hash": str(ids.rng.getrandbits(63)),
            "eks.amazonaws.com/nodeclass-hash-version": "v1",
            "karpenter.sh/nodepool-hash": str(ids.rng.getrandbits(63)),
            "karpenter.sh/nodepool-hash-version": "v3",
        },
        extra={
            "finalizers": ["karpenter.sh/termination"],
            "generateName": f"{nd.pool.name}-",
            "generation": 1,
        },
    )
    claim = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": claim_uid_meta,
        "spec": claim_spec,
        "status": claim_status,
    }
    if nd.launching:
        return None, claim

    ip = ids.ip(nd.zone)
    dns = f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal"
    node_labels = {
        **sh.labels,
        **placement,
        "beta.kubernetes.io/arch": sh.arch,
        "beta.kubernetes.io/instance-type": nd.itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": REGION,
        "failure-domain.beta.kubernetes.io/zone": nd.zone,
        "karpenter.sh/initialized": "true",
        "karpenter.sh/registered": "true",
        "kubernetes.io/hostname": instance,
        "kubernetes.io/os": "linux",
    }
    if provider == "auto":
        node_labels["karpenter.sh/do-not-sync-taints"] = "true"
        node_labels["k8s.io/cloud-provider-aws"] = _CLOUD_PROVIDER_HASH
        node_labels["topology.ebs.csi.eks.amazonaws.com/zone"] = nd.zone
    ncap, nalloc = _node_resources(sh, nd.nodeclass.ephemeral_gi, nd.unhealthy_gpus, nd.node_ephemeral_ki)
    heartbeat = now - timedelta(seconds=ids.rng.randint(5, 50))
    kubelet_conds = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    monitor_conds = [
        (
            "ContainerRuntimeReady",
            "True",
            "ContainerRuntimeIsReady",
            "Monitoring for the ContainerRuntime system is active",
        ),
        ("StorageReady", "True", "DiskIsReady", "Monitoring for the Disk system is active"),
        ("NetworkingReady", "True", "NetworkingIsReady", "Monitoring for the Networking system is active"),
        ("KernelReady", "True", "KernelIsReady", "Monitoring for the Kernel system is active"),
    ]
    node_conditions: list[Obj] = []
    for type_, status, reason, message in kubelet_conds + monitor_conds:
        node_conditions.append(
            {
                "lastHeartbeatTime": ts(heartbeat),
                "lastTransitionTime": ts(registered + timedelta(seconds=(20 if type_ == "Ready" else 5))),
                "message": message,
                "reason": reason,
                "status": status,
                "type": type_,
            }
        )
    if sh.accelerated:
        vendor = "Nvidia" if nvidia else "Neuron"
        accel: Obj = {
            "lastHeartbeatTime": ts(heartbeat),
            "lastTransitionTime": ts(registered + timedelta(seconds=40)),
            "message": f"Monitoring for the {vendor} AcceleratedHardware system is active",
            "reason": f"{vendor}AcceleratedHardwareIsReady",
            "status": "True",
            "type": "AcceleratedHardwareReady",
        }
        if nd.accelerated_condition:
            accel.update(nd.accelerated_condition)
        node_conditions.append(accel)
    images = [
        {"names": [f"{_qualified(ref)}@sha256:{digest(ref)}", _qualified(ref)], "sizeBytes": size}
        for ref, size in nd.images
    ]
    spec: Obj = {"providerID": provider_id}
    taints = [dict(t) for t in nd.pool.taints]
    if nd.cordoned is not None:
        # `kubectl cordon`; the node lifecycle controller adds the matching taint (TaintNodesByCondition).
        taints.append({"effect": "NoSchedule", "key": UNSCHEDULABLE_TAINT, "timeAdded": ts(nd.cordoned)})
    if taints:
        spec["taints"] = taints
    if nd.cordoned is not None:
        spec["unschedulable"] = True
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": _meta(
            ids,
            instance,
            registered,
            labels=dict(sorted(node_labels.items())),
            annotations={
                "alpha.kubernetes.io/provided-node-ip": ip,
                "karpenter.sh/nodepool-hash": claim_uid_meta["annotations"]["karpenter.sh/nodepool-hash"],
                "karpenter.sh/nodepool-hash-version": "v3",
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                **nd.annotations,
            },
            owner=owner_ref(
                "karpenter.sh/v1", "NodeClaim", claim_name, claim_uid_meta["uid"], controller=False
            ),
            extra={"finalizers": ["karpenter.sh/termination"]},
        ),
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": dns, "type": "InternalDNS"},
                {"address": instance, "type": "Hostname"},
            ],
            "allocatable": nalloc,
            "capacity": ncap,
            "conditions": node_conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "features": {"supplementalGroupsPolicy": True},
            "images": images,
            "nodeInfo": {
                "architecture": sh.arch,
                "bootID": ids.uid(),
                "containerRuntimeVersion": nd.release.containerd,
                "kernelVersion": nd.release.kernel,
                "kubeProxyVersion": "",
                "kubeletVersion": nd.release.kubelet,
                "machineID": ids.hex(32),
                "operatingSystem": "linux",
                "osImage": nd.release.os_image(nvidia),
                "systemUUID": f"ec2{ids.hex(5)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(4)}-{ids.hex(12)}",
            },
            "runtimeHandlers": _runtime_handlers(nvidia),
        },
    }
    return node, claim


_CLOUD_PROVIDER_HASH: Final = hashlib.sha256(b"demo-prod").hexdigest()[:32]


def _runtime_handlers(nvidia: bool) -> list[Obj]:
    features = {"recursiveReadOnlyMounts": True, "userNamespaces": True}
    names = ["nvidia", "", "runc"] if nvidia else ["", "runc"]
    return [{"features": features, "name": n} for n in names]


def _qualified(image: str) -> str:
    """Image reference as containerd reports it (docker.io/library prefixes added)."""
    name = image.split("@", 1)[0]
    first = name.split("/", 1)[0]
    if "/" not in name:
        return f"docker.io/library/{name}"
    if "." not in first and ":" not in first and first != "localhost":
        return f"docker.io/{name}"
    return name


def digest(image: str) -> str:
    return hashlib.sha256(image.encode()).hexdigest()


# --------------------------------------------------------------------------- Pods


def container(
    name: str,
    image: str,
    *,
    requests: Mapping[str, str] | None = None,
    limits: Mapping[str, str] | None = None,
    env: Sequence[Obj] = (),
    args: Sequence[str] = (),
    command: Sequence[str] = (),
    ports: Sequence[tuple[str, int]] = (),
    probe_port: int | None = None,
    probe_path: str = "/health",
    mounts: Sequence[Obj] = (),
) -> Obj:
    """A container spec with the fields the API server defaults (imagePullPolicy, termination message...)."""
    c: Obj = {}
    if args:
        c["args"] = list(args)
    if command:
        c["command"] = list(command)
    if env:
        c["env"] = [dict(e) for e in env]
    c["image"] = image
    c["imagePullPolicy"] = "IfNotPresent"
    if probe_port is not None:
        c["livenessProbe"] = _probe(probe_path, probe_port, 30)
    c["name"] = name
    if ports:
        c["ports"] = [{"containerPort": p, "name": n, "protocol": "TCP"} for n, p in ports]
    if probe_port is not None:
        c["readinessProbe"] = _probe(probe_path, probe_port, 10)
    resources: Obj = {}
    if limits:
        resources["limits"] = dict(limits)
    if requests:
        resources["requests"] = dict(requests)
    c["resources"] = resources
    c["terminationMessagePath"] = "/dev/termination-log"
    c["terminationMessagePolicy"] = "File"
    c["volumeMounts"] = [dict(m) for m in mounts]
    return c


def _probe(path: str, port: int, period: int) -> Obj:
    return {
        "failureThreshold": 3,
        "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "periodSeconds": period,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    }


def env_var(name: str, value: str) -> Obj:
    return {"name": name, "value": value}


def env_secret(name: str, secret: str, key: str) -> Obj:
    return {"name": name, "valueFrom": {"secretKeyRef": {"key": key, "name": secret}}}


def env_field(name: str, path: str) -> Obj:
    return {"name": name, "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": path}}}


def pod(
    ids: Ids,
    namespace: str,
    name: str,
    created: datetime,
    containers: Sequence[Obj],
    *,
    now: datetime,
    node: Obj | None = None,
    phase: str = "Running",
    owner: Obj | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    tolerations: Sequence[Obj] = (),
    node_selector: Mapping[str, str] | None = None,
    affinity: Obj | None = None,
    unschedulable: str | None = None,
    waiting: tuple[str, str] | None = None,
    exit_code: int | None = None,
    service_account: str = "default",
    priority_class: str | None = None,
    extra_volumes: Sequence[Obj] = (),
    scheduled_at: datetime | None = None,
    finished_at: datetime | None = None,
) -> Obj:
    """A Pod as the API returns it, in one of these states: Running on `node`, Pending with
    `unschedulable` (the scheduler's message), bound but `waiting` (reason, message), or finished
    (`phase` Succeeded/Failed with `exit_code`). `scheduled_at` (default: a second after creation) is when
    it was bound, e.g. after waiting for a new node; `finished_at` (default: drawn) when a finished pod's
    container exited."""
    token = f"kube-api-access-{ids.suffix()}"
    token_mount = {
        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        "name": token,
        "readOnly": True,
    }
    specs = []
    for c in containers:
        c = dict(c)
        c["volumeMounts"] = [*c.get("volumeMounts", []), token_mount]
        specs.append(c)
    spec: Obj = {}
    if affinity:
        spec["affinity"] = affinity
    spec["containers"] = specs
    spec["dnsPolicy"] = "ClusterFirst"
    spec["enableServiceLinks"] = True
    if node is not None:
        spec["nodeName"] = node["metadata"]["name"]
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    spec["preemptionPolicy"] = "PreemptLowerPriority"
    spec["priority"] = 2000001000 if priority_class == "system-node-critical" else 0
    if priority_class:
        spec["priorityClassName"] = priority_class
    spec["restartPolicy"] = "Always" if phase in ("Running", "Pending") and exit_code is None else "Never"
    spec["schedulerName"] = SCHEDULER
    spec["securityContext"] = {}
    spec["serviceAccount"] = service_account
    spec["serviceAccountName"] = service_account
    spec["terminationGracePeriodSeconds"] = 30
    spec["tolerations"] = [*(dict(t) for t in tolerations), *(dict(t) for t in _DEFAULT_TOLERATIONS)]
    spec["volumes"] = [*(dict(v) for v in extra_volumes), _token_volume(token)]

    meta = _meta(ids, name, created, namespace=namespace, labels=labels, annotations=annotations, owner=owner)
    if owner is not None and owner["kind"] in ("ReplicaSet", "Job", "DaemonSet"):
        meta["generateName"] = name[: name.rfind("-") + 1]
    scheduled = scheduled_at or created + timedelta(seconds=1)
    status: Obj
    if node is None:
        status = {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ts(scheduled),
                    "message": unschedulable or "",
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
            "phase": "Pending",
            "qosClass": _qos(containers),
        }
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    started = scheduled + timedelta(seconds=ids.rng.randint(3, 40))
    ready = started + timedelta(seconds=ids.rng.randint(5, 120))
    host_ip = node["status"]["addresses"][0]["address"]
    zone = node["metadata"]["labels"].get("topology.kubernetes.io/zone", "")
    pod_ip = ids.ip(zone)
    finished = phase in ("Succeeded", "Failed")
    all_ready = waiting is None and not finished
    if finished and finished_at is not None:
        ready = finished_at  # Ready/ContainersReady turn False (PodCompleted) when the container exits

    def cond(type_: str, ok: bool, when: datetime, reason: str | None = None) -> Obj:
        out: Obj = {"lastProbeTime": None, "lastTransitionTime": ts(when)}
        if reason:
            out["reason"] = reason
        out.update({"status": "True" if ok else "False", "type": type_})
        return out

    conditions = [
        cond("PodReadyToStartContainers", not finished, finished_at or started),
        cond("Initialized", True, scheduled, "PodCompleted" if finished else None),
        cond(
            "Ready",
            all_ready,
            ready,
            None if all_ready else ("PodCompleted" if finished else "ContainersNotReady"),
        ),
        cond(
            "ContainersReady",
            all_ready,
            ready,
            None if all_ready else ("PodCompleted" if finished else "ContainersNotReady"),
        ),
        cond("PodScheduled", True, scheduled),
    ]
    if not all_ready and not finished:
        names = ", ".join(c["name"] for c in containers)
        conditions[2]["message"] = conditions[3]["message"] = f"containers with unready status: [{names}]"
    statuses = []
    for c in containers:
        image = c["image"]
        st: Obj = {}
        if waiting is None:
            st["containerID"] = f"containerd://{ids.hex(64)}"
        st["image"] = _qualified(image)
        st["imageID"] = "" if waiting else f"{_qualified(image)}@sha256:{digest(image)}"
        st["lastState"] = {}
        st["name"] = c["name"]
        st["ready"] = all_ready
        st["restartCount"] = 0
        st["started"] = all_ready
        if waiting is not None:
            st["state"] = {"waiting": {"message": waiting[1], "reason": waiting[0]}}
        elif finished:
            code = exit_code or 0
            st["state"] = {
                "terminated": {
                    "containerID": st["containerID"],
                    "exitCode": code,
                    "finishedAt": ts(finished_at or ready + timedelta(minutes=ids.rng.randint(3, 50))),
                    "reason": "Completed" if code == 0 else "Error",
                    "startedAt": ts(started),
                }
            }
        else:
            st["state"] = {"running": {"startedAt": ts(started)}}
        st["volumeMounts"] = [
            {
                "mountPath": token_mount["mountPath"],
                "name": token,
                "readOnly": True,
                "recursiveReadOnly": "Disabled",
            }
        ]
        statuses.append(st)
    status = {
        "conditions": conditions,
        "containerStatuses": statuses,
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "phase": phase,
        "podIP": "" if finished else pod_ip,
        "podIPs": [] if finished else [{"ip": pod_ip}],
        "qosClass": _qos(containers),
        "startTime": ts(scheduled),
    }
    if finished:
        del status["podIP"], status["podIPs"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _token_volume(name: str) -> Obj:
    return {
        "name": name,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                {
                    "downwardAPI": {
                        "items": [
                            {
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                "path": "namespace",
                            }
                        ]
                    }
                },
            ],
        },
    }


def _qos(containers: Iterable[Obj]) -> str:
    guaranteed = True
    any_set = False
    for c in containers:
        res = c.get("resources", {})
        req_, lim = res.get("requests", {}), res.get("limits", {})
        any_set = any_set or bool(req_) or bool(lim)
        if not lim or any(lim.get(k) != v for k, v in req_.items()) or not {"cpu", "memory"} <= set(lim):
            guaranteed = False
    if guaranteed and any_set:
        return "Guaranteed"
    return "Burstable" if any_set else "BestEffort"


# --------------------------------------------------------------------------- Events and messages


def event(
    ids: Ids,
    involved: Obj,
    *,
    reason: str,
    message: str,
    component: str,
    first: datetime,
    last: datetime,
    count: int = 1,
    type_: str = "Warning",
    host: str | None = None,
) -> Obj:
    """A core/v1 Event about `involved` (any object dict), with both source and reporting component."""
    md = involved["metadata"]
    namespace = md.get("namespace") or "default"
    inv: Obj = {"apiVersion": involved["apiVersion"], "kind": involved["kind"], "name": md["name"]}
    if md.get("namespace"):
        inv["namespace"] = md["namespace"]
    inv["resourceVersion"] = md["resourceVersion"]
    inv["uid"] = md["uid"]
    source: Obj = {"component": component}
    if host:
        source["host"] = host
    return {
        "apiVersion": "v1",
        "count": count,
        "eventTime": None,
        "firstTimestamp": ts(first),
        "involvedObject": inv,
        "kind": "Event",
        "lastTimestamp": ts(last),
        "message": message,
        "metadata": _meta(ids, ids.event_name(md["name"], first), first, namespace=namespace),
        "reason": reason,
        "reportingComponent": component,
        "reportingInstance": host or "",
        "source": source,
        "type": type_,
    }


def scheduler_failed(total: int, reasons: Mapping[str, int], preemption: Mapping[str, int]) -> str:
    """kube-scheduler FitError text (EKS-FACTS §2.3), 1.34 form with the DRA PostFilter prefix."""
    body = ", ".join(sorted(f"{n} {r}" for r, n in reasons.items()))
    post = ", ".join(sorted(f"{n} {r}" for r, n in preemption.items()))
    return (
        f"0/{total} nodes are available: {body}. no new claims to deallocate, "
        f"preemption: 0/{total} nodes are available: {post}."
    )


def karpenter_failed(errors: Sequence[str]) -> str:
    """Karpenter's pod event text: one error per NodePool in weight/name order, multierr-joined."""
    return "Failed to schedule pod, " + "; ".join(errors)


def karpenter_requirements(reqs: Iterable[Mapping[str, Any]]) -> str:
    """`Requirements.String()`: sorted `key Op [values]`, five values at most, Gt/Lt as bounds (>= v1.9)."""
    parts = []
    for r in reqs:
        key, op, values = r["key"], r["operator"], sorted(r.get("values", []))
        if op in ("In", "NotIn"):
            shown = values[:5] + ([f"and {len(values) - 5} others"] if len(values) > 5 else [])
            parts.append(f"{key} {op} [{' '.join(shown)}]")
        elif op == "Gt":
            parts.append(f"{key} Exists >={int(values[0]) + 1}")
        elif op == "Lt":
            parts.append(f"{key} Exists <={int(values[0]) - 1}")
        else:
            parts.append(f"{key} {op}")
    return ", ".join(sorted(parts))


def karpenter_resources(requests: Mapping[str, str]) -> str:
    """`resources.String()`: the request list as compact JSON with sorted keys, plus one pod."""
    merged = {**requests, "pods": "1"}
    return "{" + ",".join(f'"{k}":"{merged[k]}"' for k in sorted(merged)) + "}"


def pod_requirements(pool: NodePoolDef, pod_reqs: Sequence[Obj] = ()) -> list[Obj]:
    """The NodeClaim requirements Karpenter reports in an instance-type error for `pool` and a pod."""
    return [*pool.requirements, req("karpenter.sh/nodepool", "In", pool.name), *pod_reqs]


# --------------------------------------------------------------------------- scheduler verdicts

_TAINT_REASON: Final = "node(s) had untolerated taint(s)"  # k8s >= 1.34 with #135023 (EKS-FACTS §2.3)
# plugins/nodeunschedulable ErrReasonUnschedulable (a cordoned node)
_UNSCHEDULABLE_REASON: Final = "node(s) were unschedulable"
_AFFINITY_REASON: Final = "node(s) didn't match Pod's node affinity/selector"
_NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
_NO_VICTIMS: Final = "No preemption victims found for incoming pod"


def _tolerated(taint: Mapping[str, str], tolerations: Iterable[Mapping[str, Any]]) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("key") and t["key"] != taint["key"]:
            continue
        if t.get("operator", "Equal") == "Exists" or t.get("value", "") == taint.get("value", ""):
            return True
    return False


def _expr_matches(expr: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, op, values = expr["key"], expr["operator"], expr.get("values", [])
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    value = labels.get(key)
    if value is None or not value.lstrip("-").isdigit():
        return False
    return int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])


def _affinity_matches(spec: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (
        ((spec.get("affinity") or {}).get("nodeAffinity") or {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
        .get("nodeSelectorTerms")
    )
    if not required:
        return True
    return any(all(_expr_matches(e, labels) for e in term.get("matchExpressions", [])) for term in required)


def pod_requests(pod_obj: Mapping[str, Any]) -> dict[str, Decimal]:
    """Sum of the app containers' requests (the demo and bench pods have no init containers)."""
    total: dict[str, Decimal] = {}
    for c in pod_obj["spec"]["containers"]:
        for res, qty in (c.get("resources", {}).get("requests") or {}).items():
            total[res] = total.get(res, Decimal(0)) + parse_quantity(qty)
    return total


def node_usage(pods: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Decimal]]:
    """Requests of the non-terminated pods bound to each node, by node name."""
    used: dict[str, dict[str, Decimal]] = {}
    for p in pods:
        name = p["spec"].get("nodeName")
        if name and p["status"].get("phase") not in ("Succeeded", "Failed"):
            acc = used.setdefault(name, {})
            for res, value in pod_requests(p).items():
                acc[res] = acc.get(res, Decimal(0)) + value
    return used


def scheduler_verdict(
    pod_obj: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]], used: Mapping[str, Mapping[str, Decimal]]
) -> tuple[dict[str, int], dict[str, int]]:
    """kube-scheduler's filter outcome for `pod_obj` on every node (`used`: see `node_usage`): the reason
    histogram of its FitError and the DefaultPreemption histogram. Filters in the default order:
    NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit (every insufficient resource counts)."""
    want = pod_requests(pod_obj)
    spec = pod_obj["spec"]
    reasons: dict[str, int] = {}
    preemption: dict[str, int] = {}
    for node in nodes:
        taints = [t for t in node["spec"].get("taints", []) if t["effect"] in ("NoSchedule", "NoExecute")]
        failed: list[str] = []
        cordon = {"effect": "NoSchedule", "key": UNSCHEDULABLE_TAINT}
        if node["spec"].get("unschedulable") and not _tolerated(cordon, spec.get("tolerations", [])):
            failed = [_UNSCHEDULABLE_REASON]
        elif any(not _tolerated(t, spec.get("tolerations", [])) for t in taints):
            failed = [_TAINT_REASON]
        elif not _affinity_matches(spec, node["metadata"]["labels"]):
            failed = [_AFFINITY_REASON]
        else:
            alloc = node["status"]["allocatable"]
            have = used.get(node["metadata"]["name"], {})
            for res, value in sorted(want.items()):
                free = parse_quantity(alloc.get(res, "0")) - have.get(res, Decimal(0))
                if value > free:
                    failed.append(f"Insufficient {res}")
        for reason in failed:
            reasons[reason] = reasons.get(reason, 0) + 1
        if failed:
            verdict = _NO_VICTIMS if failed[0].startswith("Insufficient") else _NOT_HELPFUL
            preemption[verdict] = preemption.get(verdict, 0) + 1
    return reasons, preemption


def sum_resources(lists: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Sum ResourceLists the way NodePool status.resources shows them (memory and storage in Ki)."""
    total: dict[str, Decimal] = {}
    for resources in lists:
        for name, qty in resources.items():
            total[name] = total.get(name, Decimal(0)) + parse_quantity(qty)
    out: dict[str, str] = {}
    for name, value in sorted(total.items()):
        if name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
            out[name] = f"{int(value) // 1024}Ki" if value else "0"
        elif value == value.to_integral_value():
            out[name] = str(int(value))
        else:
            out[name] = f"{int(value * 1000)}m"
    return out


def sort_keys(value: Any) -> Any:
    """Recursively key-sorted copy: `kubectl get -o json` prints every map with sorted keys."""
    if isinstance(value, dict):
        return {k: sort_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(v) for v in value]
    return value


# EKS Auto Mode's built-in NodeClass and NodePools, exactly as EKS-FACTS §3.2 dumps them (shared by the demo
# and the bench so both model the same cluster).
DEFAULT_NODECLASS = NodeClassDef("default", builtin=True)
_BUILTIN_REQS = (
    req("karpenter.sh/capacity-type", "In", "on-demand"),
    req("eks.amazonaws.com/instance-category", "In", "c", "m", "r"),
    req("eks.amazonaws.com/instance-generation", "Gt", "4"),
)
GENERAL_PURPOSE = NodePoolDef(
    "general-purpose",
    "default",
    (*_BUILTIN_REQS, req("kubernetes.io/arch", "In", "amd64"), req("kubernetes.io/os", "In", "linux")),
    builtin=True,
)
SYSTEM = NodePoolDef(
    "system",
    "default",
    (
        *_BUILTIN_REQS,
        req("kubernetes.io/arch", "In", "amd64", "arm64"),
        req("kubernetes.io/os", "In", "linux"),
    ),
    taints=({"effect": "NoSchedule", "key": "CriticalAddonsOnly"},),
    builtin=True,
)
