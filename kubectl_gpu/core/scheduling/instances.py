"""The catalog's instance types indexed for requirement matching, per provider."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from functools import cached_property

import msgspec

from kubectl_gpu.core.catalog import Catalog, InstanceType, Provider
from kubectl_gpu.core.scheduling.requirements import NormalizedRequirement, Requirements

__all__ = ["CAPACITY_TYPE", "IndexedType", "InstanceIndex", "capacity_of"]

CAPACITY_TYPE = "karpenter.sh/capacity-type"
# Offerings we assume every type has; zones and reserved capacity are not in the catalog.
_OFFERED_CAPACITY = ("on-demand", "spot")
_MI = Decimal(2**20)


def capacity_of(it: InstanceType, resource: str) -> Decimal:
    """What one instance offers of a resource, as a node would advertise it (allocatable where known)."""
    if resource == "cpu":
        if it.allocatable_cpu_millicores:
            return Decimal(it.allocatable_cpu_millicores) / 1000
        return Decimal(it.vcpu)
    if resource == "memory":
        return Decimal(it.allocatable_memory_mib or it.memory_mib) * _MI
    if resource == "nodes":
        return Decimal(1)
    if it.extended_resources is not None:
        return Decimal(it.extended_resources.get(resource, 0))
    if resource == "nvidia.com/gpu" and it.accelerator_manufacturer == "nvidia":
        return Decimal(it.accelerator_count)
    return Decimal(0)


def raw_capacity_of(it: InstanceType, resource: str) -> Decimal:
    """Capacity as counted against NodePool limits (Karpenter counts capacity, not allocatable)."""
    if resource == "cpu":
        return Decimal(it.vcpu)
    if resource == "memory":
        return Decimal(it.memory_mib) * _MI
    return capacity_of(it, resource)


class IndexedType(msgspec.Struct, frozen=True):
    it: InstanceType
    labels: Mapping[str, str]
    unknown: frozenset[str]


class InstanceIndex:
    """Instance types with their labels for one provider, and requirement filtering over them."""

    def __init__(self, catalog: Catalog, provider: Provider) -> None:
        self.catalog = catalog
        self.provider = provider
        self.types = tuple(
            IndexedType(it, catalog.labels(it, provider), catalog.unknown_label_keys(it, provider))
            for it in catalog.instance_types
        )
        self._admits: dict[Requirements, dict[str, bool]] = {}
        self._fits: dict[tuple[tuple[str, Decimal], ...], dict[str, bool]] = {}
        self._admitted: dict[frozenset[tuple[str, NormalizedRequirement]], tuple[IndexedType, ...]] = {}
        # What callers derive from this index alone, under a name of theirs (lint's fix checks): it lives
        # as long as the index, so it never outlives the catalog it was computed from.
        self.derived: dict[str, dict[object, object]] = {}

    def admitted_by(self, reqs: Requirements) -> dict[str, bool]:
        """Type name -> `first_mismatch(reqs, type) is None`, filled on use and kept per requirement set:
        the NodePools of a cluster share instance types, and a pod shape is checked against each of them."""
        return self._admits.setdefault(reqs, {})

    def admits(self, memo: dict[str, bool], reqs: Requirements, entry: IndexedType) -> bool:
        found = memo.get(entry.it.name)
        if found is None:
            found = memo[entry.it.name] = self.first_mismatch(reqs, entry) is None
        return found

    def fitting_by(self, requests: Mapping[str, Decimal]) -> dict[str, bool]:
        """Type name -> `fit_failure(type, requests) is None`, filled on use, per requests."""
        return self._fits.setdefault(tuple(sorted(requests.items())), {})

    @staticmethod
    def fits(memo: dict[str, bool], entry: IndexedType, requests: Mapping[str, Decimal]) -> bool:
        found = memo.get(entry.it.name)
        if found is None:
            found = memo[entry.it.name] = fit_failure(entry, requests) is None
        return found

    @cached_property
    def universe(self) -> frozenset[str]:
        """Label keys whose value an instance type decides (the rest come from the NodePool or offering)."""
        keys = set(self.catalog.label_table.instance_keys(self.provider))
        keys.update(("node.kubernetes.io/instance-type", "kubernetes.io/arch", "kubernetes.io/os"))
        keys.update(self.catalog.label_table.static[self.provider])
        for entry in self.types:
            keys.update(entry.labels)
        return frozenset(keys)

    def first_mismatch(self, reqs: Requirements, entry: IndexedType) -> str | None:
        """The first requirement key this instance type cannot satisfy, or None when it is admitted."""
        for key, req in reqs.items():
            if key == CAPACITY_TYPE:
                if not any(req.matches_value(v) for v in _OFFERED_CAPACITY):
                    return key
                continue
            if key not in self.universe or key in entry.unknown:
                continue
            if not req.matches_value(entry.labels.get(key)):
                return key
        return None

    def unverifiable(self, reqs: Requirements) -> frozenset[str]:
        """The keys of `reqs` that `unverified_keys` may name for some type (what it reads of them)."""
        return frozenset(k for k in reqs if k != CAPACITY_TYPE and k in self.universe)

    def unverified_keys(self, reqs: Requirements, entry: IndexedType) -> tuple[str, ...]:
        """Requirement keys `first_mismatch` let through only because the catalog does not know this type's
        value for them: such a type is never known to pass them."""
        if not entry.unknown:  # most types: the catalog knows every label it has
            return ()
        return tuple(k for k in reqs if k != CAPACITY_TYPE and k in self.universe and k in entry.unknown)

    def admitted(self, reqs: Requirements) -> tuple[IndexedType, ...]:
        """The types `reqs` admit; once per distinct set of the requirements `first_mismatch` reads (NodePools
        that differ only by their name or their own labels admit the same types)."""
        key = frozenset((k, r) for k, r in reqs.items() if k == CAPACITY_TYPE or k in self.universe)
        found = self._admitted.get(key)
        if found is None:
            candidates = self._candidates(reqs)
            found = self._admitted[key] = tuple(e for e in candidates if self.first_mismatch(reqs, e) is None)
        return found

    def _candidates(self, reqs: Requirements) -> tuple[IndexedType, ...]:
        """The types that may pass `reqs`, in index order: those with one of the listed values of its most
        selective `In` requirement on a label the types decide (or whose value for it the catalog does not
        know); every other type fails that requirement in `first_mismatch`. All types where there is none."""
        best: list[int] | None = None
        for key, req in reqs.items():
            if key == CAPACITY_TYPE or key not in self.universe or req.complement or not req.values:
                continue
            by_value = self._positions.get(key, {})
            positions = [i for value in req.values for i in by_value.get(value, ())]
            positions += self._unknown_at.get(key, ())
            if best is None or len(positions) < len(best):
                best = positions
        if best is None:
            return self.types
        return tuple(self.types[i] for i in sorted(set(best)))

    @cached_property
    def by_name(self) -> dict[str, IndexedType]:
        """Each type by its name."""
        return {e.it.name: e for e in self.types}

    @cached_property
    def _positions(self) -> dict[str, dict[str, list[int]]]:
        """Label key -> value -> the positions of the types with that value."""
        out: dict[str, dict[str, list[int]]] = {}
        for i, entry in enumerate(self.types):
            for key, value in entry.labels.items():
                out.setdefault(key, {}).setdefault(value, []).append(i)
        return out

    @cached_property
    def _unknown_at(self) -> dict[str, list[int]]:
        """Label key -> the positions of the types whose value for it the catalog does not know."""
        out: dict[str, list[int]] = {}
        for i, entry in enumerate(self.types):
            for key in entry.unknown:
                out.setdefault(key, []).append(i)
        return out


def fit_failure(entry: IndexedType, requests: Mapping[str, Decimal]) -> str | None:
    """Why one instance of this type cannot hold the pod's requests, or None when it can."""
    for resource, wanted in requests.items():
        have = capacity_of(entry.it, resource)
        if wanted > have:
            return f"{resource} {_fmt(wanted, resource)} > {_fmt(have, resource)}"
    return None


def _fmt(value: Decimal, resource: str) -> str:
    if resource == "memory":
        return f"{value / _MI / 1024:.1f}Gi"
    return str(int(value)) if value == value.to_integral_value() else f"{value.normalize()}"
