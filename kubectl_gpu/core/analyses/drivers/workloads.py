"""GPU workloads, the CUDA they need, and the nodes they run on or may land on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.resources import PerRequests
from kubectl_gpu.core.analyses.drivers.landing import (
    DriverKey,
    Landing,
    LandingIndex,
    Shape,
    driver_key,
    gpu_resources,
    nvidia_requested,
)
from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.analyses.drivers.workload_cuda import (
    CUDA_ANNOTATION,
    ImageCuda,
    ReleaseTable,
    WorkloadCuda,
    workload_cuda,
)
from kubectl_gpu.core.catalog import Catalog, CatalogError, CompatLevel
from kubectl_gpu.core.k8s.models import Container, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef

MAY_LAND_ON_RULE = (
    "a workload may land on the other NVIDIA nodes that advertise a GPU resource it requests, in the NodePool "
    "it pins with nodeSelector karpenter.sh/nodepool, or else in any NodePool whose taints it tolerates "
    "(the node's own taints outside Karpenter), and whose labels satisfy its nodeSelector and required node "
    "affinity; cordoned nodes excluded"
)


# Node names listed per may-land-on check and in `mayLandOn`; the counts always cover every node.
LISTED = 10
_RELATION_ORDER = {"runs-on": 0, "may-land-on": 1}


class NodeCheck(msgspec.Struct, frozen=True):
    """A workload's CUDA need against one driver (AMI, version, source) on the nodes it runs on or may land
    on: one check per driver, never per node. `node` is the first of `nodes` (by name); `nodes` lists every
    node it runs on, and at most LISTED of those it may land on (`node_count` counts them all)."""

    node: str
    relation: str  # runs-on | may-land-on
    driver: str | None
    driver_source: str
    cuda_max: str | None
    level: str  # full | minor-compat | no | unknown | driver-unknown
    reason: str
    ami: str | None = None
    node_count: int = 1
    nodes: tuple[str, ...] = ()

    @property
    def omitted(self) -> int:
        return self.node_count - len(self.nodes or (self.node,))

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "relation": self.relation,
            "driver": self.driver,
            "driverSource": self.driver_source,
            "cudaMax": self.cuda_max,
            "compat": self.level,
            "reason": self.reason,
            "ami": self.ami,
            "nodeCount": self.node_count,
            "nodes": list(self.nodes or (self.node,)),
            "nodesOmitted": self.omitted,
        }


class Workload(msgspec.Struct, frozen=True):
    namespace: str
    kind: str
    name: str
    pods: tuple[str, ...]
    cuda: WorkloadCuda
    runs_on: tuple[str, ...]
    may_land_on: tuple[str, ...]  # the first LISTED (by name); may_land_on_count counts them all
    checks: tuple[NodeCheck, ...]
    may_land_on_count: int = -1  # -1: len(may_land_on)

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.namespace)

    @property
    def may_land_on_total(self) -> int:
        return len(self.may_land_on) if self.may_land_on_count < 0 else self.may_land_on_count

    def to_dict(self) -> dict[str, Any]:
        need = self.cuda.need
        return {
            "namespace": self.namespace,
            "kind": self.kind,
            "name": self.name,
            "pods": list(self.pods),
            "cuda": need.to_dict() if need else None,
            "cudaNotes": list(self.cuda.notes),
            "cudaRedacted": self.cuda.redacted,
            "runsOn": list(self.runs_on),
            "mayLandOn": list(self.may_land_on),
            "mayLandOnCount": self.may_land_on_total,
            "checks": [c.to_dict() for c in self.checks],
        }


def _owner(pod: Pod) -> tuple[str, str]:
    kind, name = pod.meta.owner_kind, pod.meta.owner_name
    if not kind or not name:
        return "Pod", pod.name
    template_hash = pod.meta.labels.get("pod-template-hash")
    if kind == "ReplicaSet" and template_hash and name.endswith(f"-{template_hash}"):
        return "Deployment", name[: -len(template_hash) - 1]
    return kind, name


class _Checker:
    """`catalog.cuda.satisfies` once per (need, driver version)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.cache: dict[tuple[str, str], tuple[str, str]] = {}

    def level(self, need: str, row: NodeDriver) -> tuple[str, str]:
        if row.version is None:
            return "driver-unknown", row.detail
        key = (need, row.version)
        hit = self.cache.get(key)
        if hit is None:
            try:
                compat = self.catalog.cuda.satisfies(row.version, need)
                hit = (_LEVELS[compat.level], compat.reason)
            except CatalogError as exc:
                hit = ("driver-unknown", str(exc))
            self.cache[key] = hit
        return hit

    def check(self, need: str, row: NodeDriver, relation: str, nodes: list[str], count: int) -> NodeCheck:
        level, reason = self.level(need, row)
        return NodeCheck(
            nodes[0],
            relation,
            row.version,
            row.source,
            row.cuda_max,
            level,
            reason,
            row.ami,
            count,
            tuple(nodes),
        )


_LEVELS = {
    CompatLevel.FULL: "full",
    CompatLevel.MINOR_COMPAT: "minor-compat",
    CompatLevel.NO: "no",
    CompatLevel.UNKNOWN: "unknown",
}


def _checks(
    need: str, runs_on: list[str], landing: Landing, rows: Mapping[str, NodeDriver], checker: _Checker
) -> list[NodeCheck]:
    out: list[NodeCheck] = []
    by_driver: dict[DriverKey, list[str]] = defaultdict(list)
    for name in runs_on:
        by_driver[driver_key(rows[name])].append(name)
    for names in by_driver.values():
        out.append(checker.check(need, rows[names[0]], "runs-on", names, len(names)))
    skip = frozenset(runs_on)
    for key in landing.by_driver:
        count = landing.count(key, skip)
        if count:
            names = list(islice(landing.names(key, skip), LISTED))
            out.append(checker.check(need, rows[names[0]], "may-land-on", names, count))
    out.sort(key=lambda c: (_RELATION_ORDER[c.relation], c.node))
    return out


def _considered(pod: Pod) -> list[Container]:
    """The containers whose CUDA counts (`workload_cuda`): those that request a GPU, else all of them."""
    gpu = [c for c in pod.containers if any(n.startswith("nvidia.com/") for n in c.resource_names)]
    return gpu or list(pod.containers)


def _bare_template(pod: Pod) -> tuple[Any, ...]:
    """What decides a bare pod's checks: where it may land, and what its CUDA need is read from. Bare pods
    (no controller) alike in these are one workload, and the first pod stands for all of them exactly."""
    containers = tuple(
        (c.name, c.image, c.env.get("CUDA_VERSION"), "CUDA_VERSION" in c.env, c.resource_names)
        for c in pod.containers
    )
    return Shape.of(pod), pod.meta.annotations.get(CUDA_ANNOTATION), containers


def _group_pods(pods: Iterable[Pod]) -> list[tuple[str, str, str, list[Pod]]]:
    """(namespace, kind, name, pods) per workload: pods by owner, bare pods by namespace and template. A
    lone bare pod is its own workload (`Pod`, its name); two or more alike are `BarePods` named by their
    images (`#2`, `#3` ... after a name two templates of one namespace share)."""
    groups: dict[tuple[str, str, str, Any], list[Pod]] = defaultdict(list)
    for pod in pods:
        kind, name = _owner(pod)
        template = _bare_template(pod) if kind == "Pod" else None
        groups[(pod.namespace, kind, "" if template is not None else name, template)].append(pod)
    out: list[tuple[str, str, str, list[Pod]]] = []
    for (namespace, kind, name, template), members in groups.items():
        members.sort(key=lambda p: p.name)
        if template is not None:
            kind, name = ("Pod", members[0].name) if len(members) == 1 else ("BarePods", _images(members[0]))
        out.append((namespace, kind, name, members))
    out.sort(key=lambda g: (g[0], g[1], g[2], g[3][0].name))
    seen: dict[tuple[str, str, str], int] = {}
    for i, (namespace, kind, name, members) in enumerate(out):
        n = seen[(namespace, kind, name)] = seen.get((namespace, kind, name), 0) + 1
        if kind == "BarePods" and n > 1:
            out[i] = (namespace, kind, f"{name} #{n}", members)
    return out


def _images(pod: Pod) -> str:
    return ",".join(c.image or "?" for c in _considered(pod))


def gpu_workloads(
    state: ClusterState, catalog: Catalog, rows: Mapping[str, NodeDriver], table: ReleaseTable | None
) -> list[Workload]:
    """Every GPU workload (pods grouped by owner, bare pods by namespace and template), its CUDA need and
    its checks, once per scheduling shape; what an image needs is read once per image."""
    index = LandingIndex(state, (n for n in state.nodes if n.name in rows), rows)
    checker = _Checker(catalog)
    images: dict[tuple[str, str], ImageCuda] = {}
    requested = PerRequests(nvidia_requested)  # the pods of a template share their requests
    gpu_pods = (
        pod
        for pod in state.listed_pods
        if not pod.terminated and (gpu_resources(pod, requested) or pod.resource_claims)
    )
    out: list[Workload] = []
    for namespace, kind, name, pods in _group_pods(gpu_pods):
        first = pods[0]
        cuda = workload_cuda(first, table, images)
        runs_on = sorted({p.node_name for p in pods if p.node_name and p.node_name in rows})
        # Replicas share one pod template: the first pod stands for all of them.
        landing = index.landing(Shape.of(first))
        skip = frozenset(runs_on)
        checks = _checks(cuda.need.version, runs_on, landing, rows, checker) if cuda.need is not None else []
        out.append(
            Workload(
                namespace=namespace,
                kind=kind,
                name=name,
                pods=tuple(p.name for p in pods),
                cuda=cuda,
                runs_on=tuple(runs_on),
                may_land_on=tuple(landing.first(LISTED, skip)),
                checks=tuple(checks),
                may_land_on_count=sum(landing.count(k, skip) for k in landing.by_driver),
            )
        )
    return out
