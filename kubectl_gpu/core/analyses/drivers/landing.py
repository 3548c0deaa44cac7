"""Where a GPU workload may land, computed once per scheduling shape over groups of alike nodes.

A workload's candidates depend only on its *scheduling shape* (the GPU resources it requests, its
tolerations, nodeSelector and node affinity) and, per node, on the node's effective taints (its NodePool's,
or its own outside Karpenter), the GPU resources it advertises and the labels the shape reads. Nodes that
agree on those are one `_Group`; each shape is evaluated once per group, never per node, and the nodes of a
passing group are summarised per driver (`DriverKey`: AMI, version, source, ceiling), so the cost is linear
in workloads + nodes and the result is proportional to the distinct drivers, not to the nodes.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from itertools import islice

import msgspec

from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.affinity import NodeAffinity, selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import Taint, Toleration, untolerated

__all__ = ["DriverKey", "Landing", "LandingIndex", "Shape", "driver_key", "gpu_resources"]

_ZERO = Decimal(0)
_NAME = "metadata.name"
# (ami, driver version, source, cuda max, detail when the driver is unknown): nodes alike for a CUDA check.
DriverKey = tuple[str, str, str, str, str]


def driver_key(row: NodeDriver) -> DriverKey:
    return (
        row.ami or "",
        row.version or "",
        row.source,
        row.cuda_max or "",
        row.detail if not row.version else "",
    )


def nvidia_requested(requests: Mapping[str, Decimal]) -> frozenset[str] | None:
    """The NVIDIA resources requested above zero; None where one is requested at zero (the pod's limits
    then decide: `gpu_resources`)."""
    found: set[str] = set()
    for k, v in requests.items():
        if k.startswith("nvidia.com/"):
            if v > 0:
                found.add(k)
            else:
                return None
    return frozenset(found)


def gpu_resources(
    pod: Pod, requested: Callable[[Mapping[str, Decimal]], frozenset[str] | None] = nvidia_requested
) -> frozenset[str]:
    """The NVIDIA resources the pod requests or limits (> 0). Effective requests already carry a limit
    without a request (the API default), so limits are read (from the raw pod) only for an explicit 0.
    `requested`: `nvidia_requested`, or the same once per requests object (`PerRequests`)."""
    found = requested(pod.requests)
    if found is not None:
        return found
    named = {k for k, v in pod.requests.items() if k.startswith("nvidia.com/") and v > 0}
    named.update(k for k, v in pod.limits.items() if k.startswith("nvidia.com/") and v > 0)
    return frozenset(named)


class Shape(msgspec.Struct, frozen=True):
    """What decides where a pod may land (replicas of one template share it)."""

    resources: frozenset[str]
    tolerations: tuple[Toleration, ...]
    node_selector: tuple[tuple[str, str], ...]
    affinity: NodeAffinity

    @classmethod
    def of(cls, pod: Pod) -> Shape:
        return cls(
            gpu_resources(pod), pod.tolerations, tuple(sorted(pod.node_selector.items())), pod.node_affinity
        )

    def keys(self) -> tuple[tuple[str, ...], bool]:
        """The label keys it reads, sorted, and whether it reads the node name (matchFields)."""
        keys = {k for k, _ in self.node_selector}
        by_name = False
        for term in self.affinity.required_terms:
            keys.update(r.key for r in term.match_expressions)
            by_name = by_name or any(r.key == _NAME for r in term.match_fields)
        return tuple(sorted(keys)), by_name


class _Group(msgspec.Struct):
    """Nodes alike for one key set: the labels read, effective taints, GPU resources advertised."""

    labels: dict[str, str]
    taints: tuple[Taint, ...]
    advertised: frozenset[str]
    name: str | None
    by_driver: dict[DriverKey, list[str]] = msgspec.field(default_factory=lambda: defaultdict(list))


class Landing:
    """The nodes a shape may land on, per driver: names sorted; `count` of them. Each driver's lists are
    merged once, on first use (workloads of one shape ask for every driver, and each may skip its own
    nodes): a count or a listing then costs the nodes skipped, not every group's list again."""

    __slots__ = ("_merged", "by_driver")

    def __init__(self, by_driver: Mapping[DriverKey, tuple[list[str], ...]]) -> None:
        self.by_driver = by_driver
        self._merged: dict[DriverKey, tuple[list[str], frozenset[str]]] = {}

    def _names_of(self, key: DriverKey) -> tuple[list[str], frozenset[str]]:
        found = self._merged.get(key)
        if found is None:
            lists = self.by_driver[key]
            names = list(lists[0]) if len(lists) == 1 else list(heapq.merge(*lists))
            found = self._merged[key] = (names, frozenset(names))
        return found

    def names(self, key: DriverKey, skip: frozenset[str]) -> Iterator[str]:
        return (n for n in self._names_of(key)[0] if n not in skip)

    def count(self, key: DriverKey, skip: frozenset[str]) -> int:
        names, members = self._names_of(key)
        return len(names) - len(skip & members) if skip else len(names)

    def first(self, limit: int, skip: frozenset[str]) -> list[str]:
        merged = heapq.merge(*(self._names_of(key)[0] for key in self.by_driver))
        return list(islice((n for n in merged if n not in skip), limit))


class LandingIndex:
    """The schedulable NVIDIA nodes, grouped per key set on first use; `landing(shape)` once per shape."""

    def __init__(self, state: ClusterState, nodes: Iterable[Node], rows: Mapping[str, NodeDriver]) -> None:
        self._nodes: list[tuple[Node, tuple[Taint, ...], frozenset[str], DriverKey]] = []
        for node in sorted(nodes, key=lambda n: n.name):
            if node.unschedulable or node.name not in rows:
                continue
            pool_name = node.labels.get("karpenter.sh/nodepool")
            pool = state.nodepool_by_name.get(pool_name) if pool_name else None
            taints = pool.taints if pool is not None else node.taints
            advertised = frozenset(
                r
                for r, v in (*node.capacity.items(), *node.allocatable.items())
                if r.startswith("nvidia.com/") and v > _ZERO
            )
            self._nodes.append((node, taints, advertised, driver_key(rows[node.name])))
        self._groups: dict[tuple[tuple[str, ...], bool], list[_Group]] = {}
        self._by_selector: dict[tuple[object, ...], dict[tuple[str | None, ...], list[_Group]]] = {}
        self._landings: dict[Shape, Landing] = {}

    def _groups_for(self, keys: tuple[str, ...], by_name: bool) -> list[_Group]:
        cached = self._groups.get((keys, by_name))
        if cached is not None:
            return cached
        groups: dict[tuple[object, ...], _Group] = {}
        for node, taints, advertised, dkey in self._nodes:
            values = tuple(node.labels.get(k) for k in keys)
            name = node.name if by_name else None
            gkey = (values, taints, advertised, name)
            group = groups.get(gkey)
            if group is None:
                labels = {k: v for k, v in zip(keys, values, strict=True) if v is not None}
                group = groups[gkey] = _Group(labels, taints, advertised, name)
            group.by_driver[dkey].append(node.name)  # nodes are in name order: lists stay sorted
        out = self._groups[(keys, by_name)] = list(groups.values())
        return out

    def _candidate_groups(self, shape: Shape, keys: tuple[str, ...], by_name: bool) -> list[_Group]:
        """The groups whose labels agree with the shape's nodeSelector (an index per selector key set)."""
        groups = self._groups_for(keys, by_name)
        if not shape.node_selector:
            return groups
        sel_keys = tuple(k for k, _ in shape.node_selector)
        index_key = (keys, by_name, sel_keys)
        index = self._by_selector.get(index_key)
        if index is None:
            index = self._by_selector[index_key] = defaultdict(list)
            for group in groups:
                index[tuple(group.labels.get(k) for k in sel_keys)].append(group)
        return index.get(tuple(v for _, v in shape.node_selector), [])

    def landing(self, shape: Shape) -> Landing:
        cached = self._landings.get(shape)
        if cached is not None:
            return cached
        keys, by_name = shape.keys()
        selector = dict(shape.node_selector)
        by_driver: dict[DriverKey, list[list[str]]] = defaultdict(list)
        tolerated: dict[tuple[Taint, ...], bool] = {}
        for group in self._candidate_groups(shape, keys, by_name):
            if shape.resources and not shape.resources & group.advertised:
                continue
            ok = tolerated.get(group.taints)
            if ok is None:
                ok = tolerated[group.taints] = not untolerated(shape.tolerations, group.taints)
            if not ok or not _matches(selector, shape.affinity, group):
                continue
            for dkey, names in group.by_driver.items():
                by_driver[dkey].append(names)
        landing = self._landings[shape] = Landing({k: tuple(v) for k, v in by_driver.items()})
        return landing


def _matches(selector: Mapping[str, str], affinity: NodeAffinity, group: _Group) -> bool:
    try:
        ok, _ = selector_matches(selector, affinity, group.labels, node_name=group.name)
    except RequirementError:
        return False
    return ok
