"""`kubectl gpu nvme`: is a GPU node's local NVMe instance store used for kubelet/containerd storage?

Rules (EKS-FACTS §3, §7; ``automode-learn-instances.adoc``; Karpenter ``instanceStorePolicy``):

* EKS Auto Mode: when the NodeClass ``ephemeralStorage.size`` (default 80Gi) is *smaller* than the
  instance's local NVMe, Auto Mode formats the NVMe for ephemeral data (RAID0 across several drives) and
  uses a small 20 GiB EBS data volume; when the size *equals or exceeds* the NVMe, it uses an EBS volume of
  that size and leaves the NVMe raw ("exposed directly").
* Self-managed Karpenter: ``EC2NodeClass.spec.instanceStorePolicy: RAID0`` puts kubelet/containerd on a
  RAID0 of the instance store; unset, the instance store is not used.
* The ``*/instance-local-nvme`` label and the catalog give the NVMe total in decimal GB (10^9 bytes);
  NodeClass sizes are Kubernetes quantities (``80Gi`` binary, ``200G`` decimal, plain bytes), compared in
  bytes.
* A probe (collector output in a snapshot bundle: ``lsblk``, ``/proc/mdstat``, ``findmnt``) overrides the
  configuration rule: it shows what the node actually did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.accelerators.nodes import node_rows
from kubectl_gpu.core.analyses.nvme.rows import NvmeRow, nvme_row
from kubectl_gpu.core.analyses.nvme.spec import (
    AUTO_MODE_DEFAULT_EPHEMERAL,
    GIB,
    NvmeSpec,
    NvmeState,
    capacity_matches,
    format_bytes,
    nvme_spec,
)
from kubectl_gpu.core.analyses.nvme.storage import ProbeStorage, probe_storage
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, ObjectRef, ReportBase, Severity

__all__ = [
    "AUTO_MODE_DEFAULT_EPHEMERAL",
    "NvmeReport",
    "NvmeRow",
    "NvmeSpec",
    "NvmeState",
    "ProbeStorage",
    "analyse",
    "build_nvme_report",
    "capacity_matches",
    "format_bytes",
    "nvme_spec",
    "probe_storage",
]

SOURCE = "nvme"


def _suggested_size(min_nvme: Decimal) -> str:
    default = parse_quantity(AUTO_MODE_DEFAULT_EPHEMERAL)
    if default < min_nvme:
        return AUTO_MODE_DEFAULT_EPHEMERAL
    return f"{max(int(min_nvme * Decimal('0.9') / GIB), 1)}Gi"


def _node_finding(r: NvmeRow) -> Finding | None:
    """A finding on one node (NOT_USED for a reason other than its NodeClass, DEGRADED, UNKNOWN)."""
    node_ref = ObjectRef("Node", r.name)
    layout = r.spec.layout if r.spec else "?"
    if r.state is NvmeState.NOT_USED:
        return Finding(
            "NVME_NOT_USED",
            Severity.WARNING,
            node_ref,
            f"{r.name} ({r.instance_type}) has {layout} NVMe it does not use for kubelet/containerd: {r.reason}",
            "check the NodeClass (Auto Mode: ephemeralStorage.size below the NVMe; Karpenter: "
            "instanceStorePolicy: RAID0) and replace the node",
            SOURCE,
        )
    if r.state is NvmeState.DEGRADED:
        return Finding(
            "NVME_DEGRADED",
            Severity.ERROR,
            node_ref,
            f"{r.name}: the NVMe RAID is missing a member: {r.reason}",
            "the instance store is ephemeral and cannot be repaired in place: replace the node "
            f"(`kubectl delete node {r.name}`: Karpenter drains it and deletes its NodeClaim) so a healthy "
            "node replaces it",
            SOURCE,
        )
    if r.state is NvmeState.UNKNOWN and r.cause == "capacity":
        return Finding(
            "NVME_CAPACITY_MISMATCH",
            Severity.WARNING,
            node_ref,
            f"{r.name}: the configuration says kubelet/containerd storage should be on the {layout} NVMe, "
            f"but {r.reason}",
            "look at the node with `kubectl gpu snapshot --probe` (lsblk, mdstat, findmnt); if the NVMe is "
            "unused, replace the node",
            SOURCE,
        )
    if r.state is NvmeState.UNKNOWN:
        return Finding(
            "NVME_STATE_UNKNOWN",
            Severity.INFO,
            node_ref,
            f"{r.name}: cannot tell whether its NVMe is used: {r.reason}",
            "capture with `kubectl gpu snapshot --probe`",
            SOURCE,
        )
    return None


def _class_finding(kind: str, name: str, cause: str, members: list[NvmeRow]) -> Finding:
    """One finding on the NodeClass / EC2NodeClass that leaves the NVMe of its nodes unused."""
    nodes = ", ".join(f"{m.name} ({m.instance_type}, {m.spec.layout if m.spec else '?'})" for m in members)
    if cause == "size":
        min_nvme = min(m.spec.total_bytes for m in members if m.spec)
        asked = members[0].requested or "?"
        size = _suggested_size(min_nvme)
        message = (
            f"{kind} {name} asks for ephemeralStorage.size {asked} ({format_bytes(members[0].requested_bytes)}), "
            f"at least the local NVMe of {nodes}: Auto Mode uses an EBS volume for kubelet/containerd storage "
            "and leaves the NVMe raw"
        )
        fix = (
            f"set spec.ephemeralStorage.size below {format_bytes(min_nvme)}, e.g. "
            f"`kubectl patch nodeclass {name} --type merge -p "
            f'\'{{"spec":{{"ephemeralStorage":{{"size":"{size}"}}}}}}\'`: Auto Mode then puts ephemeral '
            "storage on the NVMe (RAID0 across several disks) plus a 20 GiB EBS volume; nodes are replaced "
            "through drift"
        )
    else:
        message = (
            f"{kind} {name} does not set instanceStorePolicy: RAID0, so the instance store of {nodes} is not "
            "used for kubelet/containerd storage (EBS is)"
        )
        fix = (
            f'`kubectl patch ec2nodeclass {name} --type merge -p \'{{"spec":{{"instanceStorePolicy":'
            '"RAID0"}}\'`; Karpenter replaces the nodes through drift'
        )
    return Finding("NVME_NOT_USED", Severity.WARNING, ObjectRef(kind, name), message, fix, SOURCE)


def _findings(rows: Iterable[NvmeRow]) -> list[Finding]:
    """Per node, except nodes whose NodeClass leaves the NVMe unused: one finding per NodeClass for those."""
    out: list[Finding] = []
    by_class: dict[tuple[str, str, str], list[NvmeRow]] = defaultdict(list)
    for r in rows:
        if r.state is NvmeState.NOT_USED and r.cause in ("size", "policy") and r.node_class:
            by_class[(r.node_class[0], r.node_class[1], r.cause)].append(r)
        elif (found := _node_finding(r)) is not None:
            out.append(found)
    for (kind, name, cause), members in sorted(by_class.items()):
        out.append(_class_finding(kind, name, cause, members))
    return out


class NvmeReport(msgspec.Struct, ReportBase, frozen=True):
    kind: ClassVar[str] = "NvmeReport"
    rows: tuple[NvmeRow, ...]
    findings: tuple[Finding, ...]
    now: datetime

    def body(self) -> dict[str, Any]:
        return {
            "nodes": [r.to_dict() for r in self.rows],
            "findings": [f.to_dict() for f in self.findings],
        }


def build_nvme_report(
    state: ClusterState, catalog: Catalog, now: datetime, *, include_all: bool = False
) -> NvmeReport:
    """One row per GPU/accelerator node (every node with ``include_all``)."""
    if include_all:
        nodes = list(state.nodes)
    else:
        names = {r.name for r in node_rows(state, catalog)}
        nodes = [n for n in state.nodes if n.name in names]
    rows = [nvme_row(node, state, catalog) for node in nodes]
    rows.sort(key=lambda r: (r.node_pool or "~", r.instance_type or "", r.name))
    findings = sorted(_findings(rows), key=Finding.sort_key)
    return NvmeReport(tuple(rows), tuple(findings), now)


def analyse(state: ClusterState, catalog: Catalog, now: datetime, *, include_all: bool = False) -> NvmeReport:
    return build_nvme_report(state, catalog, now, include_all=include_all)
