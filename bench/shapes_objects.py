"""Kubernetes objects as `kubectl get -o json` prints them, for `bench/shapes.py` (issue 38).

Written from what EKS Auto Mode and Karpenter v1 put on a cluster (labels, taints, NodePool and NodeClaim
fields), not from what kubectl-gpu reads: every field a real object of that kind carries is here, whether
the tool uses it or not. The instance types are a table of this module's own (public EC2 specs), with
names the tool's catalog may not know.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

Obj = dict[str, Any]
NOW = datetime(2026, 11, 28, 9, tzinfo=UTC)
NOW_TEXT = "2026-11-28T09:00:00Z"
REGION = "us-west-2"
ZONES = ("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d")


@dataclass(frozen=True)
class InstanceType:
    name: str
    cpu: int
    memory_gib: int
    gpus: int = 0
    gpu_name: str = ""
    gpu_memory_mib: int = 0

    @property
    def family(self) -> str:
        return self.name.split(".")[0]

    @property
    def size(self) -> str:
        return self.name.split(".")[1]

    @property
    def category(self) -> str:
        return _category(self.family)

    @property
    def generation(self) -> str:
        digits = "".join(c for c in self.family if c.isdigit())
        return digits[:1] or "1"


def _category(family: str) -> str:
    out = ""
    for c in family:
        if c.isdigit():
            break
        out += c
    return out


# GPU types: family -> (GPU name, GPU memory MiB, [(size, vCPU, GiB, GPUs)]).
_GPU_FAMILIES: dict[str, tuple[str, int, list[tuple[str, int, int, int]]]] = {
    "g4dn": (
        "t4",
        15360,
        [
            ("xlarge", 4, 16, 1),
            ("2xlarge", 8, 32, 1),
            ("4xlarge", 16, 64, 1),
            ("8xlarge", 32, 128, 1),
            ("12xlarge", 48, 192, 4),
            ("16xlarge", 64, 256, 1),
            ("metal", 96, 384, 8),
        ],
    ),
    "g5": (
        "a10g",
        22888,
        [
            ("xlarge", 4, 16, 1),
            ("2xlarge", 8, 32, 1),
            ("4xlarge", 16, 64, 1),
            ("8xlarge", 32, 128, 1),
            ("12xlarge", 48, 192, 4),
            ("16xlarge", 64, 256, 1),
            ("24xlarge", 96, 384, 4),
            ("48xlarge", 192, 768, 8),
        ],
    ),
    "g6": (
        "l4",
        22888,
        [
            ("xlarge", 4, 16, 1),
            ("2xlarge", 8, 32, 1),
            ("4xlarge", 16, 64, 1),
            ("8xlarge", 32, 128, 1),
            ("12xlarge", 48, 192, 4),
            ("16xlarge", 64, 256, 1),
            ("24xlarge", 96, 384, 4),
            ("48xlarge", 192, 768, 8),
        ],
    ),
    "g6e": (
        "l40s",
        45776,
        [
            ("xlarge", 4, 32, 1),
            ("2xlarge", 8, 64, 1),
            ("4xlarge", 16, 128, 1),
            ("8xlarge", 32, 256, 1),
            ("12xlarge", 48, 384, 4),
            ("16xlarge", 64, 512, 1),
            ("24xlarge", 96, 768, 4),
            ("48xlarge", 192, 1536, 8),
        ],
    ),
    "p3": ("v100", 16384, [("2xlarge", 8, 61, 1), ("8xlarge", 32, 244, 4), ("16xlarge", 64, 488, 8)]),
    "p4d": ("a100", 40960, [("24xlarge", 96, 1152, 8)]),
    "p4de": ("a100", 81920, [("24xlarge", 96, 1152, 8)]),
    "p5": ("h100", 81920, [("48xlarge", 192, 2048, 8)]),
    "p5e": ("h200", 143360, [("48xlarge", 192, 2048, 8)]),
    "p5en": ("h200", 143360, [("48xlarge", 192, 2048, 8)]),
    "g5g": (
        "t4g",
        15360,
        [
            ("xlarge", 4, 8, 1),
            ("2xlarge", 8, 16, 1),
            ("4xlarge", 16, 32, 1),
            ("8xlarge", 32, 64, 1),
            ("16xlarge", 64, 128, 2),
        ],
    ),
    "gr6": ("l4", 22888, [("4xlarge", 16, 128, 1), ("8xlarge", 32, 256, 1)]),
}
GPU_MAKER = {"t4g": "nvidia"}
_CPU_FAMILIES = (
    "c5",
    "c5a",
    "c6i",
    "c6a",
    "c7i",
    "c7a",
    "m5",
    "m5a",
    "m6i",
    "m6a",
    "m7i",
    "m7a",
    "r5",
    "r6i",
    "r6a",
    "r7i",
    "r7a",
    "c6g",
    "m6g",
    "r6g",
    "c7g",
    "m7g",
    "r7g",
)
_CPU_SIZES = (
    ("large", 2),
    ("xlarge", 4),
    ("2xlarge", 8),
    ("4xlarge", 16),
    ("8xlarge", 32),
    ("12xlarge", 48),
    ("16xlarge", 64),
    ("24xlarge", 96),
)


def gpu_types(families: tuple[str, ...] | None = None) -> list[InstanceType]:
    out = []
    for fam, (gpu, mem, sizes) in _GPU_FAMILIES.items():
        if families is None or fam in families:
            out += [InstanceType(f"{fam}.{s}", c, m, n, gpu, mem) for s, c, m, n in sizes]
    return out


def cpu_types() -> list[InstanceType]:
    out = []
    for fam in _CPU_FAMILIES:
        per_cpu = {"c": 2, "m": 4, "r": 8}[fam[0]]
        out += [InstanceType(f"{fam}.{s}", c, c * per_cpu) for s, c in _CPU_SIZES]
    return out


GPU_FAMILIES = tuple(_GPU_FAMILIES)


class Ids:
    """Deterministic names and UIDs from one random source."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rv = 48_000_000

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def suffix(self, n: int = 5) -> str:
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))

    def uid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def version(self) -> str:
        self.rv += self.rng.randint(1, 40)
        return str(self.rv)


def ts(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def ago(rng: random.Random, low_s: int, high_s: int) -> datetime:
    return NOW - timedelta(seconds=rng.randint(low_s, high_s))


def meta(ids: Ids, name: str, created: datetime, namespace: str | None = None, **extra: Any) -> Obj:
    out: Obj = {"creationTimestamp": ts(created), "name": name}
    if namespace is not None:
        out["namespace"] = namespace
    out.update({k: v for k, v in extra.items() if v})
    out["resourceVersion"] = ids.version()
    out["uid"] = ids.uid()
    return out


def instance_labels(it: InstanceType, pool: str, zone: str, capacity: str) -> dict[str, str]:
    """The labels Auto Mode puts on a node (and its NodeClaim) of this type."""
    arch = "arm64" if it.family.endswith("g") or it.family in ("gr6", "c7g", "m7g", "r7g") else "amd64"
    labels = {
        "beta.kubernetes.io/arch": arch,
        "beta.kubernetes.io/instance-type": it.name,
        "beta.kubernetes.io/os": "linux",
        "eks.amazonaws.com/compute-type": "auto",
        "eks.amazonaws.com/instance-category": _category(it.family),
        "eks.amazonaws.com/instance-cpu": str(it.cpu),
        "eks.amazonaws.com/instance-family": it.family,
        "eks.amazonaws.com/instance-generation": it.generation,
        "eks.amazonaws.com/instance-hypervisor": "nitro",
        "eks.amazonaws.com/instance-memory": str(it.memory_gib * 1024),
        "eks.amazonaws.com/instance-size": it.size,
        "eks.amazonaws.com/nodeclass": "default",
        "failure-domain.beta.kubernetes.io/region": REGION,
        "failure-domain.beta.kubernetes.io/zone": zone,
        "karpenter.sh/capacity-type": capacity,
        "karpenter.sh/nodepool": pool,
        "kubernetes.io/arch": arch,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": it.name,
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": zone,
    }
    if it.gpus:
        labels |= {
            "eks.amazonaws.com/instance-gpu-count": str(it.gpus),
            "eks.amazonaws.com/instance-gpu-manufacturer": "nvidia",
            "eks.amazonaws.com/instance-gpu-memory": str(it.gpu_memory_mib),
            "eks.amazonaws.com/instance-gpu-name": it.gpu_name,
        }
    return labels


def node(ids: Ids, it: InstanceType, pool: str, zone: str, capacity: str, **more: Any) -> Obj:
    """A Ready Auto Mode node. `more`: extra labels (`labels`), taints (`taints`), `created`."""
    rng = ids.rng
    name = f"i-0{ids.hex(16)}"
    created = more.get("created") or ago(rng, 3600, 20 * 86400)
    labels = (
        instance_labels(it, pool, zone, capacity)
        | {
            "kubernetes.io/hostname": name,
            "karpenter.sh/initialized": "true",
            "karpenter.sh/registered": "true",
            "topology.k8s.aws/zone-id": f"usw2-az{ZONES.index(zone) + 1}",
        }
        | more.get("labels", {})
    )
    taints = list(more.get("taints", []))
    if it.gpus:
        taints.insert(0, {"effect": "NoSchedule", "key": "nvidia.com/gpu"})
    pods_cap = str(min(110, 8 + it.cpu * 4))
    capacity_res = {
        "cpu": str(it.cpu),
        "ephemeral-storage": "83873772Ki",
        "memory": f"{it.memory_gib * 1024**2}Ki",
        "pods": pods_cap,
    }
    alloc = {
        "cpu": f"{it.cpu * 1000 - 90 - it.cpu * 10}m",
        "ephemeral-storage": "76224326324",
        "memory": f"{it.memory_gib * 1024**2 - 600_000}Ki",
        "pods": pods_cap,
    }
    if it.gpus:
        capacity_res["nvidia.com/gpu"] = alloc["nvidia.com/gpu"] = str(it.gpus)
    ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    beat = ts(NOW - timedelta(seconds=rng.randint(1, 50)))
    conditions = [
        {
            "lastHeartbeatTime": beat,
            "lastTransitionTime": ts(created),
            "message": m,
            "reason": r,
            "status": s,
            "type": t,
        }
        for t, s, r, m in (
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
        )
    ]
    spec: Obj = {"providerID": f"aws:///{zone}/{name}"}
    if taints:
        spec["taints"] = taints
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta(
            ids,
            name,
            created,
            labels=labels,
            finalizers=["karpenter.sh/termination"],
            annotations={
                "alpha.kubernetes.io/provided-node-ip": ip,
                "karpenter.sh/nodepool-hash": str(rng.getrandbits(60)),
                "karpenter.sh/nodepool-hash-version": "v3",
            },
            ownerReferences=[
                {
                    "apiVersion": "karpenter.sh/v1",
                    "blockOwnerDeletion": True,
                    "kind": "NodeClaim",
                    "name": more.get("claim", f"{pool}-x"),
                    "uid": ids.uid(),
                }
            ],
        ),
        "spec": spec,
        "status": {
            "addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}],
            "allocatable": alloc,
            "capacity": capacity_res,
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": labels["kubernetes.io/arch"],
                "bootID": ids.uid(),
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "6.1.141",
                "kubeProxyVersion": "v1.33.1-eks-1fbb2c8",
                "kubeletVersion": "v1.33.1-eks-1fbb2c8",
                "machineID": ids.hex(32),
                "operatingSystem": "linux",
                "osImage": "Bottlerocket (EKS Auto, Nvidia) 2025.11.14 (aws-k8s-1.33-nvidia)",
                "systemUUID": ids.uid(),
            },
        },
    }
