"""Does one instance type of a NodePool hold the pod once everything else on the node is counted?

* NodeOverlays (matched in `core/scheduling/overlays.py`): their `capacity` is assigned over the type's
  (`InstanceType.ApplyCapacityOverlay`); `price` / `priceAdjustment` change the price (`AdjustedPrice`).
* Daemon overhead (`scheduler.go` `buildDaemonOverheadGroups`, `isDaemonPodCompatible`): the requests of every
  DaemonSet whose pod tolerates the pool's taints (PreferNoSchedule tolerated) and whose node requirements are
  compatible with the pool (`AllowUndefinedWellKnownLabels`) and intersect the type's, one required term at
  a time; added to the pod's requests (`filterInstanceTypesByRequirements`), and their host ports conflict
  with the pod's (`HostPortUsage.Conflicts`).
* ephemeral-storage (karpenter-provider-aws `pkg/providers/instancetype/types.go` `ephemeralStorage`,
  `kubeReservedResources`, `evictionThreshold`): RAID0 instance store when `instanceStorePolicy: RAID0`, else the
  `rootVolume` block device, else the AMI family's ephemeral device (`/dev/xvda`, Bottlerocket `/dev/xvdb`),
  else 20Gi; allocatable is that less 1Gi kube-reserved and the 10% `nodefs.available` eviction threshold.
  EKS Auto Mode: `ephemeralStorage.size` (default 80Gi), or the local NVMe when that is larger (see `nvme`);
  its reserved share is not published, so only the capacity itself is held against the pod.
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import cached_property

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.k8s.models import DaemonSet, NodeClass, NodeOverlay, NodePool, Resources
from kubectl_gpu.core.k8s.placement import HostPort
from kubectl_gpu.core.scheduling.affinity import scheduling_requirements
from kubectl_gpu.core.scheduling.instances import IndexedType, InstanceIndex, capacity_of
from kubectl_gpu.core.scheduling.overlay_prices import adjusted_price as overlay_adjusted
from kubectl_gpu.core.scheduling.overlays import Overlaid, OverlayMatcher
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements
from kubectl_gpu.core.scheduling.taints import untolerated

__all__ = ["PoolFit", "adjusted_price"]

GI = Decimal(2**30)
EPHEMERAL = "ephemeral-storage"
_DEFAULT_EBS = 20 * GI  # amifamily.DefaultEBS
_AUTO_DEFAULT = 80 * GI  # Auto Mode NodeClass ephemeralStorage.size default (EKS docs)
_KUBE_RESERVED = GI  # default kube-reserved ephemeral-storage


def adjusted_price(price: float, change: str | None) -> float:
    """Karpenter `cloudprovider.AdjustedPrice` (`core.scheduling.overlay_prices.adjusted_price`) on a float:
    a plain number replaces the price, `+x`/`-x` adds, `+x%`/`-x%` scales; never below zero."""
    adjusted = overlay_adjusted(Decimal(str(price)), None, change)
    if adjusted is None:
        raise ValueError(f"not a price or a price adjustment: {change!r}")
    return float(adjusted)


def _family(node_class: NodeClass) -> str:
    family = (node_class.ami_family or "").lower()
    if not family and node_class.ami_aliases:
        family = node_class.ami_aliases[0].split("@", 1)[0].lower()
    return family


def ephemeral_capacity(node_class: NodeClass, entry: IndexedType) -> Decimal | None:
    """The ephemeral-storage a node of this type and NodeClass reports (capacity); None when unknown."""
    nvme = Decimal(entry.it.local_nvme_total_gb) * Decimal(10**9)
    if node_class.kind == "NodeClass":  # EKS Auto Mode
        size = node_class.ephemeral_storage_size or _AUTO_DEFAULT
        return nvme if nvme > size else size
    if (node_class.instance_store_policy or "").upper() == "RAID0" and nvme > 0:
        return nvme
    devices = node_class.block_devices
    root = next((d for d in devices if d[1]), None)
    if root is not None and root[2] is not None:
        return root[2]
    family = _family(node_class)
    if devices:
        if family == "custom":
            return devices[-1][2] or _DEFAULT_EBS
        wanted = "/dev/xvdb" if family == "bottlerocket" else "/dev/xvda"
        match = next((d for d in devices if d[0] == wanted), None)
        if match is not None and match[2] is not None:
            return match[2]
    return _DEFAULT_EBS


def ephemeral_allocatable(node_class: NodeClass, capacity: Decimal) -> Decimal:
    if node_class.kind == "NodeClass":
        return capacity
    return capacity - _KUBE_RESERVED - Decimal(math.ceil(capacity / 100 * 10))


class PoolFit:
    """Per pool, what does not depend on the pod: overlays and daemons per instance type."""

    def __init__(
        self,
        pool: NodePool,
        requirements: Requirements,
        well_known: frozenset[str],
        index: InstanceIndex,
        types: tuple[IndexedType, ...],
        daemonsets: tuple[DaemonSet, ...],
        overlays: tuple[NodeOverlay, ...],
        node_class: NodeClass | None,
    ) -> None:
        self.pool = pool
        self.requirements = requirements
        self.well_known = well_known
        self.index = index
        self.types = types
        self.daemonsets = daemonsets
        self.overlays = OverlayMatcher(overlays)
        self.node_class = node_class
        self._overheads: dict[str, Resources] = {}

    # --- NodeOverlay ------------------------------------------------------------------------------

    @cached_property
    def _overlaid(self) -> dict[str, Overlaid]:
        """type name -> what the overlays set on it in this pool (types no overlay touches: absent)."""
        if not self.overlays:
            return {}
        out: dict[str, Overlaid] = {}
        for entry in self.types:
            found = self.overlays.overlaid(self.pool, entry)
            if found is not None:
                out[entry.it.name] = found
        return out

    def capacity(self, entry: IndexedType, resource: str) -> Decimal:
        found = self._overlaid.get(entry.it.name)
        if found is not None and resource in found.capacity:
            return found.capacity[resource]
        return capacity_of(entry.it, resource)

    def price(self, entry: IndexedType) -> float | None:
        base = entry.it.price_usd_per_hour
        found = self._overlaid.get(entry.it.name)
        if base is None or found is None:
            return base
        return adjusted_price(base, found.price)

    def overlay_capacity(self, entry: IndexedType) -> Resources:
        found = self._overlaid.get(entry.it.name)
        return found.capacity if found else {}

    def overlay_names(self, entry: IndexedType) -> tuple[str, ...]:
        found = self._overlaid.get(entry.it.name)
        return found.names if found else ()

    def overlay_uncertain(self, entry: IndexedType) -> bool:
        found = self._overlaid.get(entry.it.name)
        return bool(found and found.uncertain)

    # --- daemons ----------------------------------------------------------------------------------

    @cached_property
    def _pool_daemons(self) -> tuple[tuple[DaemonSet, tuple[Requirements, ...]], ...]:
        """The DaemonSets that tolerate the pool's taints, with their requirement alternatives that are
        compatible with the pool (one per required term: `removeRequiredNodeAffinityTerm`)."""
        out = []
        for ds in self.daemonsets:
            if untolerated(ds.pod.tolerations, self.pool.taints):  # PreferNoSchedule never blocks
                continue
            try:
                reqs = scheduling_requirements(ds.pod.node_selector, ds.pod.node_affinity)
            except RequirementError:
                continue
            alts = tuple(
                a
                for a in reqs.alternatives()
                if not self.requirements.compatible(a, allow_undefined=self.well_known)
            )
            if alts:
                out.append((ds, alts))
        return tuple(out)

    def _daemon_fits(self, alts: tuple[Requirements, ...], entry: IndexedType) -> bool:
        return any(self.index.first_mismatch(a, entry) is None for a in alts)

    @cached_property
    def _daemons(self) -> dict[str, tuple[DaemonSet, ...]]:
        return {e.it.name: self._fitting_daemons(e) for e in self.types}

    def _fitting_daemons(self, entry: IndexedType) -> tuple[DaemonSet, ...]:
        return tuple(ds for ds, alts in self._pool_daemons if self._daemon_fits(alts, entry))

    def daemons(self, entry: IndexedType) -> tuple[DaemonSet, ...]:
        found = self._daemons.get(entry.it.name)
        if found is None:
            found = self._fitting_daemons(entry)
        return found

    def overhead(self, entry: IndexedType) -> Resources:
        found = self._overheads.get(entry.it.name)
        if found is None:
            found = {}
            for ds in self.daemons(entry):
                for name, value in ds.pod.requests.items():
                    found[name] = found.get(name, Decimal(0)) + value
            self._overheads[entry.it.name] = found
        return found

    def port_conflict(
        self, entry: IndexedType, ports: tuple[HostPort, ...]
    ) -> tuple[DaemonSet, HostPort] | None:
        for ds in self.daemons(entry):
            for mine in ports:
                for theirs in ds.pod.placement.host_ports:
                    if mine.conflicts(theirs):
                        return ds, mine
        return None

    # --- the fit ----------------------------------------------------------------------------------

    def failure(self, entry: IndexedType, shape: PodShape) -> str | None:
        """Why one node of this type cannot hold the pod with its daemons, or None when it can (ephemeral
        storage with an unknown NodeClass is left to `ephemeral_unknown`)."""
        overhead = self.overhead(entry)
        wanted_by = dict(shape.requests)
        for resource in ("cpu", "memory"):  # what the daemons need counts even when the pod asks for none
            if resource in overhead:
                wanted_by.setdefault(resource, Decimal(0))
        for resource, wanted in wanted_by.items():
            need = wanted + overhead.get(resource, Decimal(0))
            have = self.capacity(entry, resource)
            if need > have:
                extra = (
                    f" with {_fmt(overhead[resource], resource)} for daemonsets"
                    if resource in overhead
                    else ""
                )
                return f"{resource} {_fmt(need, resource)}{extra} > {_fmt(have, resource)}"
        need = shape.ephemeral_storage + overhead.get(EPHEMERAL, Decimal(0))
        if need > 0 and self.node_class is not None:
            capacity = ephemeral_capacity(self.node_class, entry)
            if capacity is not None:
                allocatable = ephemeral_allocatable(self.node_class, capacity)
                if need > allocatable:
                    return (
                        f"{EPHEMERAL} {_fmt(need, EPHEMERAL)} > {_fmt(allocatable, EPHEMERAL)} allocatable of a "
                        f"{_fmt(capacity, EPHEMERAL)} volume ({self.node_class.kind} {self.node_class.name})"
                    )
        return None

    def ephemeral_unknown(self, shape: PodShape, entries: tuple[IndexedType, ...]) -> bool:
        """Whether ephemeral storage is wanted of `entries` (the pool's types) and the NodeClass is unknown."""
        if self.node_class is not None or (not shape.ephemeral_storage and not self._ephemeral_overhead):
            return False
        return any(shape.ephemeral_storage + self.overhead(e).get(EPHEMERAL, Decimal(0)) > 0 for e in entries)

    @cached_property
    def _ephemeral_overhead(self) -> bool:
        """Whether the daemons want ephemeral storage on any of the pool's types (`ephemeral_unknown`)."""
        return any(self.overhead(e).get(EPHEMERAL, Decimal(0)) > 0 for e in self.types)


def _fmt(value: Decimal, resource: str) -> str:
    if resource in ("memory", EPHEMERAL):
        return f"{value / GI:.1f}Gi"
    return str(int(value)) if value == value.to_integral_value() else f"{value.normalize()}"
