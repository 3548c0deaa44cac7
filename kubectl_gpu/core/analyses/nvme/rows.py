"""One row per GPU node: its NVMe, the NodeClass that decides its use, the ephemeral-storage capacity it
reports, and the verdict."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.nodes import compute_type
from kubectl_gpu.core.analyses.nvme.spec import (
    AUTO_MODE_DEFAULT_EPHEMERAL,
    MATCH_LOW,
    NvmeSpec,
    NvmeState,
    capacity_matches,
    format_bytes,
    instance_type_of,
    nvme_spec,
)
from kubectl_gpu.core.analyses.nvme.storage import probe_storage
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import Node, NodeClass
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState


class NvmeRow(msgspec.Struct, frozen=True):
    name: str
    instance_type: str | None
    compute_type: str
    node_pool: str | None
    node_class: tuple[str, str] | None  # (kind, name)
    state: NvmeState
    spec: NvmeSpec | None
    devices: tuple[str, ...]
    total_bytes: int | None  # what the probe saw in use, else the NVMe total
    requested: str | None  # NodeClass ephemeralStorage.size as written (Auto Mode)
    requested_bytes: Decimal | None
    requested_default: bool
    capacity: str | None  # node status.capacity ephemeral-storage as reported
    capacity_bytes: Decimal | None
    instance_store_policy: str | None
    probed: bool
    evidence: tuple[str, ...]
    cause: str | None = None  # why NOT_USED / mismatch: "size" | "policy" | "probe" | "capacity"
    reason: str | None = None  # the one line a finding quotes

    def to_dict(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "name": self.name,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "nodePool": self.node_pool,
            "nodeClass": {"kind": self.node_class[0], "name": self.node_class[1]}
            if self.node_class
            else None,
            "nvme": {
                "state": str(self.state),
                "devices": list(self.devices),
                "totalGB": spec.total_gb if spec else None,
                "layout": spec.layout if spec else None,
                "nvmeSource": spec.source if spec else None,
                "inUseBytes": self.total_bytes,
                "ephemeralStorageRequested": self.requested,
                "ephemeralStorageRequestedBytes": int(self.requested_bytes)
                if self.requested_bytes is not None
                else None,
                "ephemeralStorageRequestedIsDefault": self.requested_default,
                "instanceStorePolicy": self.instance_store_policy,
                "nodeEphemeralCapacity": self.capacity,
                "nodeEphemeralCapacityBytes": int(self.capacity_bytes)
                if self.capacity_bytes is not None
                else None,
                "probed": self.probed,
                "evidence": list(self.evidence),
            },
        }


def _node_class(
    node: Node, state: ClusterState, ctype: str
) -> tuple[tuple[str, str] | None, NodeClass | None]:
    labels = node.labels
    ref: tuple[str, str] | None = None
    if labels.get("eks.amazonaws.com/nodeclass"):
        ref = ("NodeClass", labels["eks.amazonaws.com/nodeclass"])
    elif labels.get("karpenter.k8s.aws/ec2nodeclass"):
        ref = ("EC2NodeClass", labels["karpenter.k8s.aws/ec2nodeclass"])
    else:
        claim = state.nodeclaim_by_node.get(node.name)
        pool = state.nodepool_by_name.get(labels.get("karpenter.sh/nodepool", ""))
        class_ref = (claim.node_class_ref if claim else None) or (pool.node_class_ref if pool else None)
        if class_ref is not None:
            ref = (class_ref.kind, class_ref.name)
    if ref is None:
        return None, None
    return ref, state.nodeclass_by_ref.get(ref)


def _capacity(node: Node) -> tuple[str | None, Decimal | None]:
    return node.ephemeral_storage_text, node.capacity.get("ephemeral-storage")


def _capacity_verdict(capacity: Decimal | None, nvme: Decimal, ebs: Decimal | None) -> tuple[str | None, str]:
    """("nvme" | "ebs" | "both" | None, sentence) for a node's ephemeral-storage capacity."""
    if capacity is None:
        return None, "the node reports no ephemeral-storage capacity"
    on_nvme = capacity_matches(capacity, nvme)
    on_ebs = ebs is not None and capacity_matches(capacity, ebs)
    text = f"ephemeral-storage capacity {format_bytes(capacity)}"
    if on_nvme and on_ebs and ebs is not None:
        return "both", (
            f"{text} fits both the NVMe ({format_bytes(nvme)}) and the NodeClass size ({format_bytes(ebs)}): "
            "it cannot tell them apart"
        )
    if on_nvme:
        return "nvme", f"{text} matches the NVMe ({format_bytes(nvme)})"
    if on_ebs and ebs is not None:
        return (
            "ebs",
            f"{text} matches the NodeClass size ({format_bytes(ebs)}), not the NVMe ({format_bytes(nvme)})",
        )
    return None, f"{text} matches neither the NVMe ({format_bytes(nvme)}) nor the NodeClass size"


class _Node:
    """What decides one node's NVMe verdict, and the evidence gathered so far."""

    def __init__(self, node: Node, state: ClusterState, catalog: Catalog) -> None:
        self.node = node
        self.ctype = compute_type(node.labels)
        self.itype = instance_type_of(node)
        self.spec = nvme_spec(node, catalog)
        self.ref, self.nc = _node_class(node, state, self.ctype)
        self.cap_text, self.cap = _capacity(node)
        self.requested: str | None = None
        self.requested_bytes: Decimal | None = None
        self.requested_default = False
        self.policy: str | None = None
        self.evidence: list[str] = []
        if self.spec is not None and self.spec.note:
            self.evidence.append(self.spec.note)
        nc = self.nc
        if nc is not None and nc.kind == "NodeClass":
            self.requested = nc.ephemeral_storage_text
            self.requested_bytes = nc.ephemeral_storage_size
            if self.requested_bytes is None:
                self.requested, self.requested_default = AUTO_MODE_DEFAULT_EPHEMERAL, True
                self.requested_bytes = parse_quantity(AUTO_MODE_DEFAULT_EPHEMERAL)
        elif nc is not None:
            self.policy = nc.instance_store_policy
        if self.ref is not None and nc is None:
            self.evidence.append(f"{self.ref[0]} {self.ref[1]} is not in the data (not readable, or deleted)")

    def row(
        self,
        st: NvmeState,
        devices: Iterable[str] = (),
        total: int | None = None,
        cause: str | None = None,
        probed: bool = False,
        reason: str | None = None,
    ) -> NvmeRow:
        evidence = self.evidence
        return NvmeRow(
            name=self.node.name,
            instance_type=self.itype,
            compute_type=self.ctype,
            node_pool=self.node.labels.get("karpenter.sh/nodepool"),
            node_class=self.ref,
            state=st,
            spec=self.spec,
            devices=tuple(devices),
            total_bytes=total,
            requested=self.requested,
            requested_bytes=self.requested_bytes,
            requested_default=self.requested_default,
            capacity=self.cap_text,
            capacity_bytes=self.cap,
            instance_store_policy=self.policy,
            probed=probed,
            evidence=tuple(evidence),
            cause=cause,
            reason=reason if reason is not None else (evidence[-1] if evidence else None),
        )


def nvme_row(node: Node, state: ClusterState, catalog: Catalog) -> NvmeRow:
    facts = _Node(node, state, catalog)
    spec, itype, evidence = facts.spec, facts.itype, facts.evidence
    probe = state.probe(node.name)
    if probe is not None:
        seen = probe_storage(probe, spec.count if spec else None)
        if seen is not None:
            evidence += seen.evidence
            why = "; ".join(seen.problems) if seen.problems else None
            return facts.row(seen.state, seen.devices, seen.total_bytes, "probe", probed=True, reason=why)
        evidence.append("probe output has no usable lsblk section; judging from the configuration")
    if spec is None:
        evidence.append(
            f"instance type {itype or '?'} is not in the catalog and the node has no instance-local-nvme label"
        )
        return facts.row(NvmeState.UNKNOWN)
    if spec.total_gb == 0:
        evidence.append(f"{itype} has no local NVMe instance store")
        return facts.row(NvmeState.NO_NVME)
    nvme = spec.total_bytes
    evidence.append(f"{itype} has {spec.layout} local NVMe ({format_bytes(nvme)}, from the {spec.source})")
    if facts.ctype == "auto" and facts.requested_bytes is not None:
        return _auto_mode(facts, spec, nvme, facts.requested_bytes)
    if facts.ctype == "karpenter" and facts.nc is not None and facts.nc.kind == "EC2NodeClass":
        return _ec2_node_class(facts, facts.nc, nvme)
    # Auto Mode without its NodeClass, other nodes: only the capacity can hint, and a hint is not enough.
    verdict, sentence = _capacity_verdict(facts.cap, nvme, None)
    evidence.append(sentence)
    if facts.ctype == "auto" and verdict == "nvme":
        return facts.row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
    evidence.append(
        "not EKS Auto Mode or Karpenter with a readable NodeClass, and no probe: run `kubectl gpu snapshot --probe`"
    )
    return facts.row(NvmeState.UNKNOWN)


def _auto_mode(facts: _Node, spec: NvmeSpec, nvme: Decimal, requested: Decimal) -> NvmeRow:
    """Auto Mode: the NodeClass ephemeralStorage.size against the NVMe, then the reported capacity."""
    evidence, ref = facts.evidence, facts.ref
    default = " (default)" if facts.requested_default else ""
    asked = f"{facts.requested}{default} = {format_bytes(requested)}"
    if requested >= nvme:
        evidence.append(
            f"NodeClass {ref[1] if ref else '?'} asks for ephemeralStorage.size {asked} >= the NVMe: Auto Mode "
            "puts ephemeral storage on an EBS volume of that size and leaves the NVMe raw"
        )
        evidence.append(_capacity_verdict(facts.cap, nvme, requested)[1])
        return facts.row(NvmeState.NOT_USED, (), None, "size")
    evidence.append(
        f"NodeClass {ref[1] if ref else '?'} asks for ephemeralStorage.size {asked} < the NVMe: Auto Mode "
        "should format the NVMe for ephemeral storage"
        + (" (RAID0 across the disks)" if (spec.count or 0) > 1 else "")
    )
    verdict, sentence = _capacity_verdict(facts.cap, nvme, requested)
    evidence.append(sentence)
    if verdict in ("nvme", "both"):
        return facts.row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
    if verdict == "ebs":
        return facts.row(NvmeState.UNKNOWN, (), None, "capacity")
    evidence.append("no probe: cannot tell; run `kubectl gpu snapshot --probe`")
    return facts.row(NvmeState.UNKNOWN)


def _ec2_node_class(facts: _Node, nc: NodeClass, nvme: Decimal) -> NvmeRow:
    """Self-managed Karpenter: instanceStorePolicy RAID0 or not, checked against the reported capacity."""
    evidence, cap, policy = facts.evidence, facts.cap, facts.policy
    verdict, sentence = _capacity_verdict(cap, nvme, None)
    if policy == "RAID0":
        evidence.append(f"EC2NodeClass {nc.name} sets instanceStorePolicy: RAID0")
        evidence.append(sentence)
        if cap is not None and verdict != "nvme" and cap < nvme * MATCH_LOW:
            return facts.row(NvmeState.UNKNOWN, (), None, "capacity")
        return facts.row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
    evidence.append(
        f"EC2NodeClass {nc.name} does not set instanceStorePolicy (RAID0): the instance store is not used"
        if policy is None
        else f"EC2NodeClass {nc.name} sets instanceStorePolicy: {policy}, not RAID0"
    )
    evidence.append(sentence)
    return facts.row(NvmeState.NOT_USED, (), None, "policy")
