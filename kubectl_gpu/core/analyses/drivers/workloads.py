"""GPU workloads, the CUDA they need, and the nodes they run on or may land on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.analyses.drivers.nodes import NodeDriver
from kubectl_gpu.core.analyses.drivers.workload_cuda import ReleaseTable, WorkloadCuda, workload_cuda
from kubectl_gpu.core.catalog import Catalog, CatalogError, CompatLevel
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.core.scheduling.affinity import selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import untolerated

MAY_LAND_ON_RULE = (
    "a workload may land on the other NVIDIA nodes that advertise a GPU resource it requests, in the NodePool "
    "it pins with nodeSelector karpenter.sh/nodepool, or else in any NodePool whose taints it tolerates "
    "(the node's own taints outside Karpenter), and whose labels satisfy its nodeSelector and required node "
    "affinity; cordoned nodes excluded"
)
_ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class NodeCheck:
    node: str
    relation: str  # runs-on | may-land-on
    driver: str | None
    driver_source: str
    cuda_max: str | None
    level: str  # full | minor-compat | no | unknown | driver-unknown
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "relation": self.relation,
            "driver": self.driver,
            "driverSource": self.driver_source,
            "cudaMax": self.cuda_max,
            "compat": self.level,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Workload:
    namespace: str
    kind: str
    name: str
    pods: tuple[str, ...]
    cuda: WorkloadCuda
    runs_on: tuple[str, ...]
    may_land_on: tuple[str, ...]
    checks: tuple[NodeCheck, ...]

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.namespace)

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
            "checks": [c.to_dict() for c in self.checks],
        }


def _gpu_resources(pod: Pod) -> set[str]:
    return {
        k for k, v in (*pod.requests.items(), *pod.limits.items()) if k.startswith("nvidia.com/") and v > 0
    }


def _owner(pod: Pod) -> tuple[str, str]:
    kind, name = pod.meta.owner_kind, pod.meta.owner_name
    if not kind or not name:
        return "Pod", pod.name
    template_hash = pod.meta.labels.get("pod-template-hash")
    if kind == "ReplicaSet" and template_hash and name.endswith(f"-{template_hash}"):
        return "Deployment", name[: -len(template_hash) - 1]
    return kind, name


def _candidates(pod: Pod, nodes: Iterable[Node], state: ClusterState, resources: set[str]) -> list[str]:
    pinned = pod.node_selector.get("karpenter.sh/nodepool")
    out: list[str] = []
    for node in nodes:
        if node.name == pod.node_name or node.unschedulable:
            continue
        if resources and not any(
            node.capacity.get(r, _ZERO) > 0 or node.allocatable.get(r, _ZERO) > 0 for r in resources
        ):
            continue
        pool_name = node.labels.get("karpenter.sh/nodepool")
        if pinned is not None and pool_name != pinned:
            continue
        pool = state.nodepool_by_name.get(pool_name) if pool_name else None
        taints = pool.taints if pool is not None else node.taints
        if untolerated(pod.tolerations, taints):
            continue
        try:
            ok, _ = selector_matches(pod.node_selector, pod.node_affinity, node.labels, node_name=node.name)
        except RequirementError:
            ok = False
        if ok:
            out.append(node.name)
    return out


def _check(need: str, row: NodeDriver, relation: str, catalog: Catalog) -> NodeCheck:
    if row.version is None:
        return NodeCheck(row.name, relation, None, row.source, None, "driver-unknown", row.detail)
    try:
        compat = catalog.cuda.satisfies(row.version, need)
    except CatalogError as exc:
        return NodeCheck(
            row.name, relation, row.version, row.source, row.cuda_max, "driver-unknown", str(exc)
        )
    level = {
        CompatLevel.FULL: "full",
        CompatLevel.MINOR_COMPAT: "minor-compat",
        CompatLevel.NO: "no",
        CompatLevel.UNKNOWN: "unknown",
    }[compat.level]
    return NodeCheck(row.name, relation, row.version, row.source, row.cuda_max, level, compat.reason)


def gpu_workloads(
    state: ClusterState, catalog: Catalog, rows: Mapping[str, NodeDriver], table: ReleaseTable | None
) -> list[Workload]:
    nvidia_nodes = [n for n in state.nodes if n.name in rows]
    groups: dict[tuple[str, str, str], list[Pod]] = defaultdict(list)
    for pod in state.listed_pods:
        if pod.terminated or not (_gpu_resources(pod) or pod.resource_claims):
            continue
        kind, name = _owner(pod)
        groups[(pod.namespace, kind, name)].append(pod)
    out: list[Workload] = []
    for (namespace, kind, name), pods in sorted(groups.items()):
        pods.sort(key=lambda p: p.name)
        first = pods[0]
        cuda = workload_cuda(first, table)
        runs_on = sorted({p.node_name for p in pods if p.node_name and p.node_name in rows})
        # Replicas share one pod template: the first pod stands for all of them.
        may = _candidates(first, nvidia_nodes, state, _gpu_resources(first))
        may_land = sorted(set(may) - set(runs_on))
        checks: list[NodeCheck] = []
        if cuda.need is not None:
            checks += [_check(cuda.need.version, rows[n], "runs-on", catalog) for n in runs_on]
            checks += [_check(cuda.need.version, rows[n], "may-land-on", catalog) for n in may_land]
        out.append(
            Workload(
                namespace=namespace,
                kind=kind,
                name=name,
                pods=tuple(p.name for p in pods),
                cuda=cuda,
                runs_on=tuple(runs_on),
                may_land_on=tuple(may_land),
                checks=tuple(checks),
            )
        )
    return out
