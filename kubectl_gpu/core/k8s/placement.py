"""What of a pod decides where it can go beyond resources and node selectors: host ports, topology spread,
required pod (anti-)affinity and the PersistentVolumeClaims it mounts. Read once by `core/k8s/parse/placement.py`;
most pods have none of it and share `NO_PLACEMENT`."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kubectl_gpu.core.k8s.selectors import Term, matches_selector

__all__ = [
    "NO_PLACEMENT",
    "AffinityTerm",
    "ClaimRef",
    "HostPort",
    "LabelSelector",
    "Placement",
    "SpreadConstraint",
]


class LabelSelector(msgspec.Struct, frozen=True):
    """A `metav1.LabelSelector` as terms; `{}` matches every object (`labels.Everything`)."""

    terms: tuple[Term, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return matches_selector(self.terms, labels)


class HostPort(msgspec.Struct, frozen=True):
    """One `containers[].ports[]` entry with a hostPort (Karpenter `scheduling.GetHostPorts`)."""

    ip: str  # "0.0.0.0" when unset, as Karpenter reads it
    port: int
    protocol: str  # TCP when unset (the API server's default)

    def conflicts(self, other: HostPort) -> bool:
        """Karpenter `HostPort.Matches` / kube-scheduler `HostPortInfo.CheckConflict`: same protocol and port,
        and the same IP or either one unspecified."""
        if self.protocol != other.protocol or self.port != other.port:
            return False
        return self.ip == other.ip or self.ip in _ANY or other.ip in _ANY

    def __str__(self) -> str:
        return f"{self.port}/{self.protocol}" + ("" if self.ip in _ANY else f" on {self.ip}")


_ANY = frozenset({"0.0.0.0", "::", ""})


class SpreadConstraint(msgspec.Struct, frozen=True):
    """One `topologySpreadConstraints` entry."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    selector: LabelSelector | None  # None: nil selector, matches no pod
    min_domains: int | None = None
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"

    @property
    def required(self) -> bool:
        return self.when_unsatisfiable == "DoNotSchedule"


class AffinityTerm(msgspec.Struct, frozen=True):
    """One `requiredDuringSchedulingIgnoredDuringExecution` pod (anti-)affinity term."""

    anti: bool
    topology_key: str
    selector: LabelSelector | None
    namespaces: tuple[str, ...]  # () with no namespaceSelector: the pod's own namespace
    all_namespaces: bool = False  # namespaceSelector {}

    def selects(self, pod_namespace: str, own_namespace: str, labels: Mapping[str, str]) -> bool:
        if self.selector is None:
            return False
        if not self.all_namespaces and pod_namespace not in (self.namespaces or (own_namespace,)):
            return False
        return self.selector.matches(labels)


class ClaimRef(msgspec.Struct, frozen=True):
    """A pod volume backed by a PersistentVolumeClaim (`persistentVolumeClaim` or a generic `ephemeral` one,
    whose claim is named `<pod>-<volume>`: Karpenter `volume.GetPersistentVolumeClaim`)."""

    volume: str
    claim: str
    ephemeral: bool = False


class Placement(msgspec.Struct, frozen=True):
    host_ports: tuple[HostPort, ...] = ()
    spread: tuple[SpreadConstraint, ...] = ()
    affinity: tuple[AffinityTerm, ...] = ()
    claims: tuple[ClaimRef, ...] = ()
    error: str | None = None  # a part that does not parse: the checks that need it are unknown

    def __bool__(self) -> bool:
        return bool(self.host_ports or self.spread or self.affinity or self.claims or self.error)


NO_PLACEMENT = Placement()
