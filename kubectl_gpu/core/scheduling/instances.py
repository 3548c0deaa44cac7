"""The catalog's instance types indexed for requirement matching, per provider."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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

    @classmethod
    def of(cls, catalog: Catalog, provider: Provider) -> InstanceIndex:
        """The catalog's index for `provider`, built on first use and kept with the catalog: the analyses of
        one run (pending, lint, their fix checks) share it and what it has matched, a pure function of the
        catalog (~3 ms to build on every command otherwise)."""
        return catalog.derived(f"scheduling.instance_index.{provider}", lambda c: cls(c, provider))

    def __init__(self, catalog: Catalog, provider: Provider) -> None:
        self.catalog = catalog
        self.provider = provider
        self.types = tuple(
            IndexedType(it, catalog.labels(it, provider), catalog.unknown_label_keys(it, provider))
            for it in catalog.instance_types
        )
        self._fits: dict[tuple[tuple[str, Decimal], ...], dict[str, bool]] = {}
        self._admitted: dict[frozenset[tuple[str, NormalizedRequirement]], tuple[IndexedType, ...]] = {}
        # What callers derive from this index alone, under a name of theirs (lint's fix checks): it lives
        # as long as the index, so it never outlives the catalog it was computed from.
        self.derived: dict[str, dict[object, object]] = {}
        self._all = (1 << len(self.types)) - 1
        self._passing_masks: dict[tuple[str, NormalizedRequirement], int] = {}
        self._by_value: dict[str, tuple[dict[str | None, int], int]] = {}

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

    def passing(self, reqs: Requirements) -> int:
        """The types `first_mismatch` fails on no key of `reqs` (the types `reqs` admit), as a bit mask (bit i:
        `types[i]`)."""
        mask = self._all
        for key, req in reqs.items():
            mask &= self._passing(key, req)
            if not mask:
                break
        return mask

    def mismatch_counts(self, reqs: Requirements) -> dict[str, int]:
        """How many types `first_mismatch` fails on each key of `reqs` (keys it fails none on left out): each
        requirement is matched against the distinct values of its key once, not against every type."""
        remaining, counts = self._all, {}
        for key, req in reqs.items():
            passing = self._passing(key, req)
            failing = remaining & ~passing
            if failing:
                counts[key] = failing.bit_count()
                remaining &= passing
        return counts

    def _passing(self, key: str, req: NormalizedRequirement) -> int:
        """The types `first_mismatch` does not fail on this one requirement, once per requirement."""
        found = self._passing_masks.get((key, req))
        if found is None:
            if key == CAPACITY_TYPE:
                found = self._all if any(req.matches_value(v) for v in _OFFERED_CAPACITY) else 0
            elif key not in self.universe:
                found = self._all
            else:
                by_value, found = self._value_masks(key)  # a type whose value is unknown is let through
                if req.values and not req.complement and req.gte is None and req.lte is None:
                    # `In`: the types with one of its values (a NodePool's list is shorter than the index's)
                    for wanted in req.values:
                        at = by_value.get(wanted)
                        if at is not None:
                            found |= at
                else:
                    for value, at in by_value.items():
                        if req.matches_value(value):
                            found |= at
            self._passing_masks[(key, req)] = found
        return found

    def _value_masks(self, key: str) -> tuple[dict[str | None, int], int]:
        """The types by their value for `key` (None: they have none), and those whose value the catalog does not
        know, as bit masks; once per key."""
        found = self._by_value.get(key)
        if found is None:
            by_value: dict[str | None, int] = {}
            unknown = 0
            for i, entry in enumerate(self.types):
                if key in entry.unknown:
                    unknown |= 1 << i
                else:
                    value = entry.labels.get(key)
                    by_value[value] = by_value.get(value, 0) | 1 << i
            found = self._by_value[key] = (by_value, unknown)
        return found

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
        """The types `reqs` admit (`passing`, in index order); once per distinct set of the requirements
        `first_mismatch` reads (NodePools that differ only by their name or their own labels admit the same
        types)."""
        key = frozenset((k, r) for k, r in reqs.items() if k == CAPACITY_TYPE or k in self.universe)
        found = self._admitted.get(key)
        if found is None:
            found = self._admitted[key] = self.of_mask(self.passing(reqs))
        return found

    @cached_property
    def by_name(self) -> dict[str, IndexedType]:
        """Each type by its name."""
        return {e.it.name: e for e in self.types}

    def of_mask(self, mask: int) -> tuple[IndexedType, ...]:
        """The types whose bits are set in `mask` (as `passing` makes it), in index order."""
        types, out = self.types, []
        while mask:
            low = mask & -mask
            out.append(types[low.bit_length() - 1])
            mask ^= low
        return tuple(out)

    def mask_of(self, types: Iterable[IndexedType]) -> int:
        """`types` (the index's own) as a bit mask."""
        at, mask = self.position, 0
        for entry in types:
            mask |= 1 << at[entry.it.name]
        return mask

    @cached_property
    def position(self) -> dict[str, int]:
        """Each type's place in `types` (its bit in `passing`), by its name."""
        return {e.it.name: i for i, e in enumerate(self.types)}


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
