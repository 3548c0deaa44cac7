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
from collections.abc import Iterable
from datetime import datetime
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.analyses.drivers.nodes import (
    DriverGroup,
    NodeDriver,
    driver_groups,
    is_nvidia_node,
    node_driver,
    probe_for_node,
)
from kubectl_gpu.core.analyses.drivers.workload_cuda import Confidence, ReleaseTable
from kubectl_gpu.core.analyses.drivers.workloads import MAY_LAND_ON_RULE, NodeCheck, Workload, gpu_workloads
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.versions import version_key
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, ObjectRef, ReportBase, Severity

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


def _replace_nodes(names: Iterable[str], omitted: int = 0) -> str:
    """The command that replaces these nodes: Karpenter drains a node it owns and deletes its NodeClaim with it
    (karpenter.sh, Disruption, manual methods), so it comes back on the current AMI."""
    more = f", and the {omitted} other such nodes `kubectl gpu drivers` lists" if omitted else ""
    return f"`kubectl delete node {' '.join(sorted(set(names)))}`{more}"


def _nodes_text(c: NodeCheck) -> str:
    listed = c.nodes or (c.node,)
    if c.node_count == 1:
        return listed[0]
    more = f" +{c.omitted} more" if c.omitted else ""
    return f"{c.node_count} nodes ({', '.join(listed)}{more})"


def _node_list(checks: Iterable[NodeCheck]) -> str:
    """One part per driver the workload meets (checks are per driver, not per node)."""
    parts = []
    for c in checks:
        where = "runs on" if c.relation == "runs-on" else "may land on"
        driver = f"driver {c.driver}" + (f" ({c.driver_source})" if c.driver_source != "label" else "")
        cuda = f", CUDA <= {c.cuda_max}" if c.cuda_max else ""
        parts.append(f"{where} {_nodes_text(c)} ({driver}{cuda})")
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
        good = sorted(_nodes_text(c) for c in w.checks if c.level == "full")
        ceilings = sorted({c.cuda_max for c in bad if c.cuda_max}, key=lambda v: version_key(v) or ())
        keep = (
            f"keep it on nodes whose driver supports it ({', '.join(good)})"
            if good
            else (
                "keep it off these nodes (nodeSelector / node affinity on a NodePool or AMI with a newer driver)"
            )
        )
        old = [n for c in bad for n in (c.nodes or (c.node,))]
        fix = (
            f"use an image built for CUDA <= {ceilings[0] if ceilings else '?'}, or {keep}; on EKS Auto Mode "
            f"the driver comes with the AMI: replace the old nodes ({_replace_nodes(old, sum(c.omitted for c in bad))}) "
            "so they come back on the current AMI"
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
            f"{_nodes_text(c)} ({'driver unknown' if c.driver is None else c.reason})" for c in unchecked
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
        ordered = sorted(versions, key=lambda v: version_key(v) or ())
        older = ordered[:-1]
        for version in ordered:
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
                f"older AMI ({_replace_nodes(m.name for v in older for m in versions[v])}, or let drift "
                "replacement finish) or pin workloads that need the newer CUDA to the newer nodes",
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


class DriverReport(msgspec.Struct, ReportBase, frozen=True):
    kind: ClassVar[str] = "DriverReport"
    nodes: tuple[NodeDriver, ...]
    groups: tuple[DriverGroup, ...]
    workloads: tuple[Workload, ...]
    findings: tuple[Finding, ...]
    now: datetime
    notes: tuple[str, ...] = ()

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
        if is_nvidia_node(
            node,
            catalog,
            probe_for_node(state, node.name),
            tuple(s.driver for s in state.slices_by_node.get(node.name, ())),
        )
    ]
    rows.sort(key=lambda r: (r.node_pool or "~", r.ami or "", r.name))
    by_name = {r.name: r for r in rows}
    workloads = gpu_workloads(state, catalog, by_name, table)
    findings: list[Finding] = []
    findings += _pool_findings(rows)
    findings += _node_findings(rows)
    for w in workloads:
        findings += _workload_findings(w)
    findings.sort(key=Finding.sort_key)
    return DriverReport(tuple(rows), driver_groups(rows), tuple(workloads), tuple(findings), now)


def analyse(state: ClusterState, catalog: Catalog, now: datetime) -> DriverReport:
    return build_driver_report(state, catalog, now)
