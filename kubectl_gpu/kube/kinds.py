"""The API resources kubectl-gpu reads, and what is lost when one cannot be read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import quote

import msgspec

__all__ = ["ALL_KINDS", "EVENT_REASONS", "KindSpec", "KindsRead", "by_name", "kinds_read"]


class KindSpec(msgspec.Struct, frozen=True):
    name: str  # plural, as kubectl spells it
    group: str
    versions: tuple[str, ...]  # tried in order; the first one served wins
    kind: str
    namespaced: bool
    impact: str  # what the analysis loses without it
    # Read only to notice something (a pre-v1 Karpenter): a 403 is noted, never "could not look" (exit 4).
    optional: bool = False

    @property
    def core(self) -> bool:
        """A kind of the core API (v1): every API server serves it, so a 404 means something is wrong."""
        return not self.group

    @property
    def resource(self) -> str:
        return f"{self.name}.{self.group}" if self.group else self.name

    def path(self, version: str, namespace: str | None = None) -> str:
        base = f"/apis/{self.group}/{version}" if self.group else f"/api/{version}"
        if namespace and self.namespaced:  # -n as typed: escaped, so that it stays one path segment
            return f"{base}/namespaces/{quote(namespace, safe='')}/{self.name}"
        return f"{base}/{self.name}"


ALL_KINDS = (
    KindSpec("nodes", "", ("v1",), "Node", False, "no node inventory"),
    KindSpec("pods", "", ("v1",), "Pod", True, "no pod requests or pending pods"),
    KindSpec("events", "", ("v1",), "Event", True, "no scheduler or Karpenter evidence"),
    KindSpec("nodepools", "karpenter.sh", ("v1",), "NodePool", False, "NodePools are not evaluated"),
    KindSpec("nodeclaims", "karpenter.sh", ("v1",), "NodeClaim", False, "in-flight capacity is unknown"),
    KindSpec(
        "nodeclasses", "eks.amazonaws.com", ("v1",), "NodeClass", False, "NodeClass readiness is unknown"
    ),
    KindSpec(
        "ec2nodeclasses",
        "karpenter.k8s.aws",
        ("v1",),
        "EC2NodeClass",
        False,
        "EC2NodeClass readiness is unknown",
    ),
    KindSpec(
        "resourceslices",
        "resource.k8s.io",
        ("v1", "v1beta2", "v1beta1"),
        "ResourceSlice",
        False,
        "DRA devices are not counted",
    ),
    KindSpec(
        "persistentvolumeclaims",
        "",
        ("v1",),
        "PersistentVolumeClaim",
        True,
        "volume topology of pending pods is unknown",
    ),
    KindSpec(
        "persistentvolumes",
        "",
        ("v1",),
        "PersistentVolume",
        False,
        "volume topology of pending pods is unknown",
    ),
    KindSpec(
        "storageclasses",
        "storage.k8s.io",
        ("v1",),
        "StorageClass",
        False,
        "volume topology of unbound claims is unknown",
    ),
    KindSpec(
        "daemonsets", "apps", ("v1",), "DaemonSet", True, "daemonset overhead and host ports are unknown"
    ),
    KindSpec(
        "poddisruptionbudgets",
        "policy",
        ("v1",),
        "PodDisruptionBudget",
        True,
        "the pods a drift's PodDisruptionBudgets hold are unknown",
    ),
    KindSpec(
        "nodeoverlays",
        "karpenter.sh",
        ("v1alpha1",),
        "NodeOverlay",
        False,
        "NodeOverlay capacity and prices are not applied",
    ),
    # Karpenter before v1.0 (v1alpha5): never analysed, listed so that `pending` can say the cluster runs a
    # Karpenter this tool does not read. Absent (404) on every cluster that runs Karpenter v1.
    KindSpec(
        "provisioners",
        "karpenter.sh",
        ("v1alpha5",),
        "Provisioner",
        False,
        "a pre-v1 Karpenter (v1alpha5 Provisioners) would go unnoticed",
        optional=True,
    ),
    KindSpec(
        "machines",
        "karpenter.sh",
        ("v1alpha5",),
        "Machine",
        False,
        "a pre-v1 Karpenter (v1alpha5 Machines) would go unnoticed",
        optional=True,
    ),
)

# Events worth fetching (one field-selected list per reason: field selectors have no OR).
EVENT_REASONS = (
    "FailedScheduling",
    "Nominated",
    "InsufficientCapacityError",
    "NodeClassNotReady",
    "NoCompatibleInstanceTypes",
    "DisruptionBlocked",
    "Unconsolidatable",
    "TerminationGracePeriodExpiring",
    "FailedDraining",
)
# Node health events come from the EKS node monitoring agent, whatever their reason.
EVENT_COMPONENTS = ("eks-node-monitoring-agent",)


def by_name(name: str) -> KindSpec:
    for spec in ALL_KINDS:
        if spec.name == name:
            return spec
    raise KeyError(name)


#: Kinds a snapshot may hold that no list reads, by the resource that stands for them: the events of the
#: `events.k8s.io` API, and the pre-v1 Karpenter's AWSNodeTemplate (noticed with its Provisioners).
_ALSO_READ = {("events.k8s.io", "Event"): "events", ("karpenter.k8s.aws", "AWSNodeTemplate"): "provisioners"}


class KindsRead(NamedTuple):
    """What a command reads of a snapshot: the resources (`ClusterState.listed`'s names) and the
    (API group, kind) of the objects they stand for (`core.k8s.parse.KINDS`' keys)."""

    names: frozenset[str]
    keys: frozenset[tuple[str, str]]


def kinds_read(kinds: Iterable[str]) -> KindsRead:
    """What the resources `kinds` (names of `ALL_KINDS`) stand for; KeyError for a name not known."""
    names = frozenset(by_name(k).name for k in kinds)
    found = {(k.group, k.kind) for k in ALL_KINDS if k.name in names}
    return KindsRead(names, frozenset(found | {key for key, name in _ALSO_READ.items() if name in names}))
