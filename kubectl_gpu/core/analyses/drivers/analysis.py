"""`kubectl gpu drivers`: NVIDIA driver and CUDA ceiling per node and per AMI, and workloads whose CUDA
need is above the ceiling of a node they run on or may land on.

Driver sources, in order (never a silent guess):

* ``probe``: ``nvidia-smi`` / ``/proc/driver/nvidia/version`` from the collector in a debug pod, stored in
  a snapshot bundle's ``probes`` (see :func:`probe_for_node`);
* ``label``: NVIDIA GPU feature discovery's ``nvidia.com/cuda.driver-version.*`` node labels;
* ``inferred``: an upstream ``Bottlerocket OS x.y.z (aws-k8s-*-nvidia)`` osImage looked up in the packaged
  Bottlerocket release table (Auto Mode's date-versioned images cannot be mapped, so never for Auto Mode);
* ``unknown``.

"May land on" (kept simple, and stated in the report): the other NVIDIA nodes that advertise a GPU
resource the pod requests, whose NodePool the pod either pins with ``nodeSelector karpenter.sh/nodepool``
or whose NodePool taints (the node's own taints outside Karpenter) it tolerates, and whose labels satisfy
the pod's nodeSelector and required node affinity.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

from kubectl_gpu.core.analyses.drivers.workload_cuda import (
    Confidence,
    ReleaseTable,
    WorkloadCuda,
    workload_cuda,
)
from kubectl_gpu.core.catalog import Catalog, CatalogError, CompatLevel, DriverInference
from kubectl_gpu.core.catalog.versions import version_key
from kubectl_gpu.core.fleet.nodes import compute_type, driver_from_labels
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe import ProbeResult
from kubectl_gpu.core.report import Finding, ObjectRef, ReportBase, Severity
from kubectl_gpu.core.scheduling.affinity import selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import untolerated

__all__ = [
    "MAY_LAND_ON_RULE",
    "DriverGroup",
    "DriverReport",
    "NodeCheck",
    "NodeDriver",
    "Workload",
    "analyse",
    "build_driver_report",
    "is_nvidia_node",
    "node_driver",
    "probe_for_node",
]

SOURCE = "drivers"
MAY_LAND_ON_RULE = (
    "a workload may land on the other NVIDIA nodes that advertise a GPU resource it requests, in the NodePool "
    "it pins with nodeSelector karpenter.sh/nodepool, or else in any NodePool whose taints it tolerates "
    "(the node's own taints outside Karpenter), and whose labels satisfy its nodeSelector and required node "
    "affinity; cordoned nodes excluded"
)
_ZERO = Decimal(0)


def probe_for_node(state: ClusterState, node: str) -> ProbeResult | None:
    """The parsed collector output stored for ``node`` in the snapshot's ``probes``, if any."""
    return state.probe(node)


def is_nvidia_node(node: Node, catalog: Catalog, probe: ProbeResult | None = None) -> bool:
    """A node with NVIDIA GPUs: device-plugin resources, instance type, instance/GFD labels or a probe."""
    if any(
        k.startswith("nvidia.com/") and v > 0 for k, v in (*node.capacity.items(), *node.allocatable.items())
    ):
        return True
    labels = node.labels
    itype = labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")
    spec = catalog.by_name(itype) if itype else None
    if spec is not None and spec.is_nvidia:
        return True
    for key in ("eks.amazonaws.com/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-manufacturer"):
        if labels.get(key, "").lower() == "nvidia":
            return True
    if labels.get("nvidia.com/gpu.present") == "true":
        return True
    return probe is not None and probe.driver_version is not None


# --------------------------------------------------------------------------------------------- nodes


@dataclass(frozen=True, slots=True)
class NodeDriver:
    name: str
    node_pool: str | None
    instance_type: str | None
    compute_type: str
    ami: str | None
    os_image: str | None
    version: str | None
    cuda_max: str | None
    source: str  # probe | label | inferred | unknown
    minor_compat: str | None  # "12.x": the CUDA major this driver runs through minor-version compatibility
    open_ended: bool  # the driver is at the table's newest row: it may support more
    detail: str

    @property
    def known(self) -> bool:
        return self.version is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ami": self.ami,
            "osImage": self.os_image,
            "nodePool": self.node_pool,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "driver": {
                "version": self.version,
                "cudaMax": self.cuda_max,
                "source": self.source,
                "minorCompat": self.minor_compat,
                "cudaMaxOpenEnded": self.open_ended,
                "detail": self.detail,
            },
        }


def node_driver(node: Node, state: ClusterState, catalog: Catalog) -> NodeDriver:
    """The driver of one node and where it was read (see the module docstring for the order)."""
    labels = node.labels
    claim = state.nodeclaim_by_node.get(node.name)
    probe = probe_for_node(state, node.name)
    label = driver_from_labels(labels, catalog)
    version: str | None = None
    source = "unknown"
    detail = ""
    if probe is not None and probe.driver_version:
        version, source = probe.driver_version, "probe"
        detail = f"read by the collector in a debug pod ({probe.gpu_source or 'driver-version'})"
        if label.version and label.version != version:
            detail += f"; the GPU feature discovery label says {label.version} (stale?)"
    elif label.version:
        version, source = label.version, "label"
        detail = "NVIDIA GPU feature discovery label nvidia.com/cuda.driver-version"
    else:
        reason = "no probe output and no GPU feature discovery label"
        if node.os_image:
            info = catalog.bottlerocket.parse_os_image(node.os_image)
            if info.inferred and info.drivers:
                version, source = info.drivers[0], "inferred"
                others = f" (the release lists {', '.join(info.drivers)})" if len(info.drivers) > 1 else ""
                detail = info.reason + others
            elif info.inference is DriverInference.NOT_MAPPABLE:
                detail = (
                    f"{reason}; EKS Auto Mode AMI versions ({info.version}) do not map to upstream Bottlerocket "
                    "releases, so the driver cannot be inferred from the osImage"
                )
            else:
                detail = f"{reason}; {info.reason}"
        else:
            detail = reason
    cuda_max: str | None = None
    minor: str | None = None
    open_ended = False
    if version is not None:
        try:
            ceiling = catalog.cuda.max_cuda(version)
        except CatalogError as exc:
            detail += f"; {exc}"
            ceiling = None
        if ceiling is not None:
            cuda_max, open_ended = ceiling.cuda, ceiling.open_ended
            if ceiling.minor_compat is not None:
                minor = f"{ceiling.minor_compat.cuda_major}.x"
    itype = labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")
    return NodeDriver(
        name=node.name,
        node_pool=labels.get("karpenter.sh/nodepool"),
        instance_type=itype,
        compute_type=compute_type(labels),
        ami=claim.image_id if claim else None,
        os_image=node.os_image,
        version=version,
        cuda_max=cuda_max,
        source=source,
        minor_compat=minor,
        open_ended=open_ended,
        detail=detail,
    )


@dataclass(frozen=True, slots=True)
class DriverGroup:
    """Nodes that share an AMI (NodeClaim ``status.imageID``) and OS image."""

    ami: str | None
    os_image: str | None
    nodes: tuple[str, ...]
    node_pools: tuple[str, ...]
    drivers: tuple[tuple[str | None, str | None, str, int], ...]  # (version, cudaMax, source, nodes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ami": self.ami,
            "osImage": self.os_image,
            "nodeCount": len(self.nodes),
            "nodes": list(self.nodes),
            "nodePools": list(self.node_pools),
            "drivers": [
                {"version": v, "cudaMax": c, "source": s, "nodeCount": n} for v, c, s, n in self.drivers
            ],
        }


def _groups(rows: Iterable[NodeDriver]) -> tuple[DriverGroup, ...]:
    by_key: dict[tuple[str, str], list[NodeDriver]] = defaultdict(list)
    for row in rows:
        by_key[(row.ami or "", row.os_image or "")].append(row)
    out: list[DriverGroup] = []
    for (ami, os_image), members in sorted(by_key.items()):
        counts: dict[tuple[str | None, str | None, str], int] = defaultdict(int)
        for m in members:
            counts[(m.version, m.cuda_max, m.source)] += 1
        drivers = tuple(
            (v, c, s, n)
            for (v, c, s), n in sorted(
                counts.items(), key=lambda kv: (version_key(kv[0][0] or "") or (), kv[0][2])
            )
        )
        out.append(
            DriverGroup(
                ami=ami or None,
                os_image=os_image or None,
                nodes=tuple(sorted(m.name for m in members)),
                node_pools=tuple(sorted({m.node_pool for m in members if m.node_pool})),
                drivers=drivers,
            )
        )
    return tuple(out)


# --------------------------------------------------------------------------------------------- workloads


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


def _workloads(
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


# --------------------------------------------------------------------------------------------- findings


def _node_list(checks: Iterable[NodeCheck]) -> str:
    parts = []
    for c in checks:
        where = "runs on" if c.relation == "runs-on" else "may land on"
        driver = f"driver {c.driver}" + (f" ({c.driver_source})" if c.driver_source != "label" else "")
        cuda = f", CUDA <= {c.cuda_max}" if c.cuda_max else ""
        parts.append(f"{where} {c.node} ({driver}{cuda})")
    return "; ".join(parts)


def _need_text(w: Workload) -> str:
    need = w.cuda.need
    assert need is not None
    bound = "at least " if need.at_least else ""
    return f"CUDA {bound}{need.version} ({need.confidence}: {need.source})"


def _workload_findings(w: Workload) -> list[Finding]:
    out: list[Finding] = []
    if w.cuda.redacted:
        fallback = f"; using {_need_text(w)}" if w.cuda.need else "; nothing else says which CUDA it needs"
        out.append(
            Finding(
                "CUDA_NEED_REDACTED",
                Severity.INFO,
                w.ref,
                f"CUDA_VERSION is set in the pod spec but the snapshot redacted its value{fallback}",
                f'annotate the pod template with {"kubectl-gpu.io/cuda"}: "<version>", or capture with '
                "`kubectl gpu snapshot --no-redact`",
                SOURCE,
            )
        )
    need = w.cuda.need
    if need is None:
        return out
    bad = [c for c in w.checks if c.level == "no"]
    if bad:
        weak = need.confidence is Confidence.HEURISTIC or all(c.driver_source == "inferred" for c in bad)
        good = sorted(c.node for c in w.checks if c.level == "full")
        ceilings = sorted({c.cuda_max for c in bad if c.cuda_max}, key=lambda v: version_key(v) or ())
        keep = (
            f"keep it on nodes whose driver supports it ({', '.join(good)})"
            if good
            else (
                "keep it off these nodes (nodeSelector / node affinity on a NodePool or AMI with a newer driver)"
            )
        )
        fix = (
            f"use an image built for CUDA <= {ceilings[0] if ceilings else '?'}, or {keep}; on EKS Auto Mode "
            "the driver comes with the AMI: replace old nodes (`kubectl delete nodeclaim NAME`) so they come "
            "back on the current AMI"
        )
        out.append(
            Finding(
                "CUDA_EXCEEDS_DRIVER",
                Severity.WARNING if weak else Severity.ERROR,
                w.ref,
                f"needs {_need_text(w)}, above the driver's CUDA ceiling: {_node_list(bad)}",
                fix,
                SOURCE,
            )
        )
    minor = [c for c in w.checks if c.level == "minor-compat"]
    if minor:
        out.append(
            Finding(
                "CUDA_MINOR_COMPAT_ONLY",
                Severity.WARNING,
                w.ref,
                f"needs {_need_text(w)}, above the driver's own CUDA version; it runs only through CUDA "
                f"minor-version compatibility (no PTX JIT of newer PTX, some newer APIs fail): "
                f"{_node_list(minor)}",
                "use an image built for the driver's CUDA version, or nodes whose AMI ships a newer driver",
                SOURCE,
            )
        )
    unchecked = [c for c in w.checks if c.level in ("driver-unknown", "unknown")]
    if unchecked:
        names = ", ".join(
            f"{c.node} ({'driver unknown' if c.driver is None else c.reason})" for c in unchecked
        )
        out.append(
            Finding(
                "CUDA_UNCHECKED",
                Severity.INFO,
                w.ref,
                f"needs {_need_text(w)}; cannot check it against {names}",
                "run `kubectl gpu snapshot --probe` (reads the driver with nvidia-smi in a debug pod) or install "
                "NVIDIA GPU feature discovery",
                SOURCE,
            )
        )
    return out


def _pool_findings(rows: Iterable[NodeDriver]) -> list[Finding]:
    by_pool: dict[str, list[NodeDriver]] = defaultdict(list)
    for row in rows:
        if row.node_pool and row.version:
            by_pool[row.node_pool].append(row)
    out: list[Finding] = []
    for pool, members in sorted(by_pool.items()):
        versions: dict[str, list[NodeDriver]] = defaultdict(list)
        for m in members:
            versions[m.version or ""].append(m)
        if len(versions) < 2:
            continue
        parts = []
        for version in sorted(versions, key=lambda v: version_key(v) or ()):
            ms = versions[version]
            cuda = f"CUDA {ms[0].cuda_max}" if ms[0].cuda_max else "CUDA ?"
            amis = sorted({m.ami for m in ms if m.ami})
            ami = f", {', '.join(amis)}" if amis else ""
            srcs = sorted({m.source for m in ms})
            parts.append(
                f"{version} ({cuda}{ami}; {', '.join(srcs)}) on {', '.join(sorted(m.name for m in ms))}"
            )
        out.append(
            Finding(
                "MIXED_DRIVERS_IN_NODEPOOL",
                Severity.WARNING,
                ObjectRef("NodePool", pool),
                f"NodePool {pool} runs {len(versions)} NVIDIA driver versions: " + "; ".join(parts),
                "the same pod gets a different CUDA ceiling depending on the node; replace the nodes on the "
                "older AMI (`kubectl delete nodeclaim NAME`, or let drift replacement finish) or pin "
                "workloads that need the newer CUDA to the newer nodes",
                SOURCE,
            )
        )
    return out


def _node_findings(rows: Iterable[NodeDriver]) -> list[Finding]:
    out: list[Finding] = []
    for row in rows:
        if row.source == "unknown":
            out.append(
                Finding(
                    "DRIVER_UNKNOWN",
                    Severity.INFO,
                    ObjectRef("Node", row.name),
                    f"NVIDIA driver of {row.name} is unknown: {row.detail}",
                    "run `kubectl gpu snapshot --probe` (nvidia-smi in a debug pod), or install NVIDIA GPU "
                    "feature discovery (labels nvidia.com/cuda.driver-version.*)",
                    SOURCE,
                )
            )
        elif row.source == "inferred":
            out.append(
                Finding(
                    "DRIVER_INFERRED",
                    Severity.INFO,
                    ObjectRef("Node", row.name),
                    f"driver {row.version} of {row.name} is inferred, not read from the node: {row.detail}",
                    "confirm with `kubectl gpu snapshot --probe`",
                    SOURCE,
                )
            )
    return out


# --------------------------------------------------------------------------------------------- report


@dataclass(frozen=True, slots=True)
class DriverReport(ReportBase):
    kind: ClassVar[str] = "DriverReport"
    nodes: tuple[NodeDriver, ...]
    groups: tuple[DriverGroup, ...]
    workloads: tuple[Workload, ...]
    findings: tuple[Finding, ...]
    now: datetime
    notes: tuple[str, ...] = field(default=())

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    def body(self) -> dict[str, Any]:
        return {
            "nodes": [n.to_dict() for n in self.nodes],
            "groups": [g.to_dict() for g in self.groups],
            "workloads": [w.to_dict() for w in self.workloads],
            "mayLandOnRule": MAY_LAND_ON_RULE,
            "findings": [f.to_dict() for f in self.findings],
        }


def build_driver_report(
    state: ClusterState, catalog: Catalog, now: datetime, *, table: ReleaseTable | None = None
) -> DriverReport:
    """Drivers of every NVIDIA node, grouped by AMI, and the CUDA checks of every GPU workload."""
    rows = [
        node_driver(node, state, catalog)
        for node in state.nodes
        if is_nvidia_node(node, catalog, probe_for_node(state, node.name))
    ]
    rows.sort(key=lambda r: (r.node_pool or "~", r.ami or "", r.name))
    by_name = {r.name: r for r in rows}
    workloads = _workloads(state, catalog, by_name, table)
    findings: list[Finding] = []
    findings += _pool_findings(rows)
    findings += _node_findings(rows)
    for w in workloads:
        findings += _workload_findings(w)
    findings.sort(key=Finding.sort_key)
    return DriverReport(tuple(rows), _groups(rows), tuple(workloads), tuple(findings), now)


def analyse(state: ClusterState, catalog: Catalog, now: datetime) -> DriverReport:
    return build_driver_report(state, catalog, now)
