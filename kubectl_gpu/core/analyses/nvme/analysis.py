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
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, ClassVar

from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.fleet.nodes import compute_type, node_rows
from kubectl_gpu.core.k8s.models import Node, NodeClass
from kubectl_gpu.core.k8s.quantity import parse_quantity
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe import BlockDevice, LsblkReport, ProbeResult
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
GB = 10**9
GIB = 2**30
AUTO_MODE_DEFAULT_EPHEMERAL = "80Gi"  # create-node-class.adoc: ephemeralStorage.size default
NVME_LABELS = ("eks.amazonaws.com/instance-local-nvme", "karpenter.k8s.aws/instance-local-nvme")
# Where kubelet/containerd storage lives when it is on the instance store (as seen from the host mount
# namespace): Bottlerocket binds these from /mnt/.ephemeral; the Karpenter AL2023 RAID0 setup mounts
# /mnt/k8s-disks/0 and binds them from there.
STORAGE_TARGETS = (
    "/var/lib/kubelet",
    "/var/lib/containerd",
    "/var/log/pods",
    "/var/lib/docker",
    "/mnt/.ephemeral",
    "/mnt/k8s-disks",
)
_HOST_PREFIXES = ("/.bottlerocket/rootfs", "/host")
_SYSTEM_TARGETS = ("/", "/local", "/boot", "/boot/efi")
# How close the node's ephemeral-storage capacity must be to a device size to "match" it (filesystem
# overhead, md metadata and the 20 GiB EBS volume make it a little smaller, never much larger).
_MATCH_LOW = Decimal("0.85")
_MATCH_HIGH = Decimal("1.03")


class NvmeState(StrEnum):
    ACTIVE = "ACTIVE"
    DEGRADED = "DEGRADED"
    LIKELY_ACTIVE = "LIKELY_ACTIVE"
    NOT_USED = "NOT_USED"
    NO_NVME = "NO_NVME"
    UNKNOWN = "UNKNOWN"


def format_bytes(value: Decimal | int | None) -> str:
    """``214748364800`` -> ``214.7 GB (200 GiB)``; ``-`` for None."""
    if value is None:
        return "-"
    b = Decimal(value)
    gib = b / GIB
    gib_text = f"{gib:.0f}" if gib >= 100 or gib == gib.to_integral_value() else f"{gib:.1f}"
    if b >= 10**12:
        return f"{b / 10**12:.2f} TB ({gib_text} GiB)"
    return f"{b / GB:.1f} GB ({gib_text} GiB)"


def capacity_matches(capacity: Decimal, target: Decimal) -> bool:
    """True when an ephemeral-storage capacity is what a filesystem on ``target`` bytes reports."""
    if target <= 0:
        return False
    ratio = capacity / target
    return _MATCH_LOW <= ratio <= _MATCH_HIGH


# --------------------------------------------------------------------------------------------- NVMe of a node


@dataclass(frozen=True, slots=True)
class NvmeSpec:
    """The local NVMe an instance type has: total GB (decimal) and, where known, disk count x size."""

    total_gb: int
    count: int | None
    size_gb: int | None
    source: str  # label | catalog
    note: str | None = None

    @property
    def total_bytes(self) -> Decimal:
        return Decimal(self.total_gb) * GB

    @property
    def layout(self) -> str:
        if self.total_gb == 0:
            return "none"
        if self.count and self.size_gb:
            return f"{self.count}x{self.size_gb} GB"
        return f"{self.total_gb} GB"


def _instance_type(node: Node) -> str | None:
    labels = node.labels
    return labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")


def nvme_spec(node: Node, catalog: Catalog) -> NvmeSpec | None:
    """From the node's ``*/instance-local-nvme`` label (decimal GB), completed from the catalog; None if
    neither knows the instance type."""
    label_gb: int | None = None
    for key in NVME_LABELS:
        value = node.labels.get(key)
        if value is not None and value.strip().isdigit():
            label_gb = int(value.strip())
            break
    itype = _instance_type(node)
    spec = catalog.by_name(itype) if itype else None
    if label_gb is not None:
        if spec is not None and spec.local_nvme_total_gb == label_gb:
            return NvmeSpec(label_gb, spec.local_nvme_count, spec.local_nvme_size_gb, "label")
        note = (
            f"the instance-local-nvme label says {label_gb} GB but the catalog says "
            f"{spec.local_nvme_total_gb} GB for {itype}; using the label"
            if spec is not None
            else None
        )
        return NvmeSpec(label_gb, None, None, "label", note)
    if spec is not None:
        return NvmeSpec(spec.local_nvme_total_gb, spec.local_nvme_count, spec.local_nvme_size_gb, "catalog")
    return None


# --------------------------------------------------------------------------------------------- probe


@dataclass(frozen=True, slots=True)
class ProbeStorage:
    """What the probe's lsblk / mdstat / findmnt say about the instance store."""

    state: NvmeState
    devices: tuple[str, ...]  # instance-store NVMe disks in use (or present, when not used)
    total_bytes: int | None
    array: str | None  # md device name, when a RAID is in use
    level: str | None
    targets: tuple[str, ...]  # kubelet/containerd storage mountpoints found on it
    evidence: tuple[str, ...]
    problems: tuple[str, ...] = ()  # why DEGRADED / NOT_USED, one line each


def _strip_host(path: str) -> str:
    for prefix in _HOST_PREFIXES:
        if path.startswith(prefix + "/") or path == prefix:
            return path[len(prefix) :] or "/"
    return path


def _is_storage(path: str) -> bool:
    p = _strip_host(path)
    return any(p == t or p.startswith(t + "/") for t in STORAGE_TARGETS)


def _subtree_mounts(dev: BlockDevice) -> list[str]:
    return [m for d, _ in dev.walk() for m in d.mountpoints if m]


def _is_instance_store(dev: BlockDevice) -> bool:
    model = (dev.model or "").strip().lower()
    if "elastic block store" in model:
        return False
    if "instance storage" in model:
        return True
    return not any(_strip_host(m) in _SYSTEM_TARGETS for m in _subtree_mounts(dev))


def _source_name(source: str | None) -> str | None:
    """``/dev/md127[/kubelet]`` -> ``md127``; ``/dev/mapper/EPHEMERAL-DATA`` -> ``EPHEMERAL-DATA``."""
    if not source:
        return None
    base = source.split("[", 1)[0]
    if not base.startswith("/dev/"):
        return None
    return base.rsplit("/", 1)[-1]


def _targets(names: set[str], lsblk: LsblkReport, probe: ProbeResult) -> tuple[list[str], list[str]]:
    """(storage targets, other targets) mounted from any of the block devices ``names``."""
    found: list[str] = []
    for dev, _ in lsblk.walk():
        if dev.kernel_name in names:
            found += [m for m in dev.mountpoints if m]
    for mount in probe.mounts or ():
        if _source_name(mount.source) in names:
            found.append(mount.target)
    storage = sorted({m for m in found if _is_storage(m)})
    other = sorted({m for m in found if not _is_storage(m)})
    return storage, other


def probe_storage(probe: ProbeResult, expected_count: int | None = None) -> ProbeStorage | None:
    """Classify the instance store from a probe; None when the probe has no usable lsblk section."""
    lsblk = probe.block_devices
    if lsblk is None:
        return None
    mdstat = probe.mdstat
    evidence: list[str] = []

    def result(
        state: NvmeState,
        devices: Iterable[str],
        total: int | None = None,
        array: str | None = None,
        level: str | None = None,
        targets: Iterable[str] = (),
        problems: Iterable[str] = (),
    ) -> ProbeStorage:
        why = tuple(problems)
        return ProbeStorage(
            state=state,
            devices=tuple(devices),
            total_bytes=total,
            array=array,
            level=level,
            targets=tuple(targets),
            evidence=(*evidence, *why),
            problems=why,
        )

    disks = [d for d in lsblk.nvme_disks() if _is_instance_store(d)]
    if not disks:
        return result(NvmeState.NO_NVME, (), problems=["probe: lsblk shows no instance-store NVMe disk"])
    names = [d.kernel_name for d in disks]
    disk_of: dict[str, str] = {}
    for disk in disks:
        for dev, _ in disk.walk():
            disk_of.setdefault(dev.kernel_name, disk.kernel_name)
    size_of = {d.kernel_name: d.approx_size_bytes for d in disks}
    evidence.append(f"probe: lsblk shows {len(disks)} instance-store NVMe disk(s): {', '.join(names)}")
    if expected_count is not None and len(disks) < expected_count:
        evidence.append(f"the instance type has {expected_count} NVMe disks; lsblk shows {len(disks)}")

    raids = [r for r in lsblk.raid_devices() if any(m in disk_of for m in r.members)]
    if raids:
        raid = max(raids, key=lambda r: len(r.members))
        members = sorted({disk_of[m] for m in raid.members if m in disk_of})
        below = {raid.name}
        for dev, _ in lsblk.walk():
            if dev.kernel_name == raid.name:
                below.update(d.kernel_name for d, _ in dev.walk())
        storage, other = _targets(below, lsblk, probe)
        problems: list[str] = []
        arr = mdstat.array(raid.name) if mdstat is not None else None
        if arr is not None:
            if not arr.active:
                problems.append(f"/proc/mdstat: {arr.name} is inactive")
            if arr.failed_members:
                problems.append(
                    f"/proc/mdstat: {arr.name} has faulty member(s) {', '.join(arr.failed_members)}"
                )
            if arr.degraded and not arr.failed_members:
                problems.append(
                    f"/proc/mdstat: {arr.name} is degraded ({arr.member_status or 'missing disks'})"
                )
        if len(members) < len(disks):
            missing = sorted(set(names) - set(members))
            problems.append(
                f"{raid.name} ({raid.level}) holds {len(members)} of the {len(disks)} instance-store NVMe "
                f"disks; not in it: {', '.join(missing)}"
            )
        elif expected_count is not None and len(members) < expected_count:
            problems.append(
                f"{raid.name} ({raid.level}) holds {len(members)} NVMe disks; the instance type has "
                f"{expected_count}"
            )
        total = raid.size_bytes
        if total is None and raid.size_text is not None:
            total = BlockDevice(raid.name, raid.level, None, raid.size_text).approx_size_bytes
        where = ", ".join(storage + other) or "not mounted"
        evidence.append(
            f"{raid.name} ({raid.level}, {format_bytes(total)}) over {', '.join(members)}: {where}"
        )
        if problems:
            return result(NvmeState.DEGRADED, members, total, raid.name, raid.level, storage, problems)
        if storage:
            return result(NvmeState.ACTIVE, members, total, raid.name, raid.level, storage)
        reason = (
            f"{raid.name} is mounted at {', '.join(other)}, which is not kubelet/containerd storage"
            if other
            else f"{raid.name} exists but is not mounted"
        )
        return result(NvmeState.NOT_USED, members, total, raid.name, raid.level, problems=[reason])

    # No assembled array: an inactive md array over the disks, or single disks.
    for arr in mdstat.arrays if mdstat is not None else ():
        on_disks = [m.name for m in arr.members if m.name in disk_of]
        if on_disks and (not arr.active or arr.degraded):
            what = "inactive" if not arr.active else "degraded"
            return result(
                NvmeState.DEGRADED,
                sorted({disk_of[m] for m in on_disks}),
                array=arr.name,
                level=arr.level,
                problems=[f"/proc/mdstat: {arr.name} over {', '.join(on_disks)} is {what}"],
            )
    used: list[str] = []
    targets: set[str] = set()
    elsewhere: set[str] = set()
    for disk in disks:
        storage, other = _targets({d.kernel_name for d, _ in disk.walk()}, lsblk, probe)
        if storage:
            used.append(disk.kernel_name)
            targets.update(storage)
        elsewhere.update(other)
    if used:
        if len(used) < len(disks):
            evidence.append(f"only {', '.join(used)} of {len(disks)} disks is used, without RAID")
        evidence.append(f"{', '.join(used)} mounted for {', '.join(sorted(targets))}")
        total_used = sum(size_of[n] or 0 for n in used) or None
        return result(NvmeState.ACTIVE, used, total_used, targets=sorted(targets))
    reason = (
        f"the instance-store disks are mounted at {', '.join(sorted(elsewhere))}, not for kubelet/containerd"
        if elsewhere
        else "the instance-store disks are not mounted: ephemeral storage is on EBS"
    )
    total_present = sum(v or 0 for v in size_of.values()) or None
    return result(NvmeState.NOT_USED, names, total_present, problems=[reason])


# --------------------------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class NvmeRow:
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


def _row(node: Node, state: ClusterState, catalog: Catalog) -> NvmeRow:
    ctype = compute_type(node.labels)
    itype = _instance_type(node)
    spec = nvme_spec(node, catalog)
    ref, nc = _node_class(node, state, ctype)
    cap_text, cap = _capacity(node)
    requested: str | None = None
    requested_bytes: Decimal | None = None
    requested_default = False
    policy: str | None = None
    evidence: list[str] = []
    if spec is not None and spec.note:
        evidence.append(spec.note)
    if nc is not None and nc.kind == "NodeClass":
        requested = nc.ephemeral_storage_text
        requested_bytes = nc.ephemeral_storage_size
        if requested_bytes is None:
            requested, requested_default = AUTO_MODE_DEFAULT_EPHEMERAL, True
            requested_bytes = parse_quantity(AUTO_MODE_DEFAULT_EPHEMERAL)
    elif nc is not None:
        policy = nc.instance_store_policy
    if ref is not None and nc is None:
        evidence.append(f"{ref[0]} {ref[1]} is not in the data (not readable, or deleted)")

    def row(
        st: NvmeState,
        devices: Iterable[str] = (),
        total: int | None = None,
        cause: str | None = None,
        probed: bool = False,
        reason: str | None = None,
    ) -> NvmeRow:
        return NvmeRow(
            name=node.name,
            instance_type=itype,
            compute_type=ctype,
            node_pool=node.labels.get("karpenter.sh/nodepool"),
            node_class=ref,
            state=st,
            spec=spec,
            devices=tuple(devices),
            total_bytes=total,
            requested=requested,
            requested_bytes=requested_bytes,
            requested_default=requested_default,
            capacity=cap_text,
            capacity_bytes=cap,
            instance_store_policy=policy,
            probed=probed,
            evidence=tuple(evidence),
            cause=cause,
            reason=reason if reason is not None else (evidence[-1] if evidence else None),
        )

    probe = state.probe(node.name)
    if probe is not None:
        seen = probe_storage(probe, spec.count if spec else None)
        if seen is not None:
            evidence += seen.evidence
            why = "; ".join(seen.problems) if seen.problems else None
            return row(seen.state, seen.devices, seen.total_bytes, "probe", probed=True, reason=why)
        evidence.append("probe output has no usable lsblk section; judging from the configuration")

    if spec is None:
        evidence.append(
            f"instance type {itype or '?'} is not in the catalog and the node has no instance-local-nvme label"
        )
        return row(NvmeState.UNKNOWN)
    if spec.total_gb == 0:
        evidence.append(f"{itype} has no local NVMe instance store")
        return row(NvmeState.NO_NVME)
    nvme = spec.total_bytes
    evidence.append(f"{itype} has {spec.layout} local NVMe ({format_bytes(nvme)}, from the {spec.source})")

    if ctype == "auto" and requested_bytes is not None:
        asked = f"{requested}{' (default)' if requested_default else ''} = {format_bytes(requested_bytes)}"
        if requested_bytes >= nvme:
            evidence.append(
                f"NodeClass {ref[1] if ref else '?'} asks for ephemeralStorage.size {asked} >= the NVMe: Auto Mode "
                "puts ephemeral storage on an EBS volume of that size and leaves the NVMe raw"
            )
            verdict, sentence = _capacity_verdict(cap, nvme, requested_bytes)
            evidence.append(sentence)
            return row(NvmeState.NOT_USED, (), None, "size")
        evidence.append(
            f"NodeClass {ref[1] if ref else '?'} asks for ephemeralStorage.size {asked} < the NVMe: Auto Mode "
            "should format the NVMe for ephemeral storage"
            + (" (RAID0 across the disks)" if (spec.count or 0) > 1 else "")
        )
        verdict, sentence = _capacity_verdict(cap, nvme, requested_bytes)
        evidence.append(sentence)
        if verdict in ("nvme", "both"):
            return row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
        if verdict == "ebs":
            return row(NvmeState.UNKNOWN, (), None, "capacity")
        evidence.append("no probe: cannot tell; run `kubectl gpu snapshot --probe`")
        return row(NvmeState.UNKNOWN)
    if ctype == "karpenter" and nc is not None and nc.kind == "EC2NodeClass":
        verdict, sentence = _capacity_verdict(cap, nvme, None)
        if policy == "RAID0":
            evidence.append(f"EC2NodeClass {nc.name} sets instanceStorePolicy: RAID0")
            evidence.append(sentence)
            if cap is not None and verdict != "nvme" and cap < nvme * _MATCH_LOW:
                return row(NvmeState.UNKNOWN, (), None, "capacity")
            return row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
        evidence.append(
            f"EC2NodeClass {nc.name} does not set instanceStorePolicy (RAID0): the instance store is not used"
            if policy is None
            else f"EC2NodeClass {nc.name} sets instanceStorePolicy: {policy}, not RAID0"
        )
        evidence.append(sentence)
        return row(NvmeState.NOT_USED, (), None, "policy")
    # Auto Mode without its NodeClass, other nodes: only the capacity can hint, and a hint is not enough.
    verdict, sentence = _capacity_verdict(cap, nvme, None)
    evidence.append(sentence)
    if ctype == "auto" and verdict == "nvme":
        return row(NvmeState.LIKELY_ACTIVE, (), int(nvme))
    evidence.append(
        "not EKS Auto Mode or Karpenter with a readable NodeClass, and no probe: run `kubectl gpu snapshot --probe`"
    )
    return row(NvmeState.UNKNOWN)


# --------------------------------------------------------------------------------------------- findings


def _suggested_size(min_nvme: Decimal) -> str:
    default = parse_quantity(AUTO_MODE_DEFAULT_EPHEMERAL)
    if default < min_nvme:
        return AUTO_MODE_DEFAULT_EPHEMERAL
    return f"{max(int(min_nvme * Decimal('0.9') / GIB), 1)}Gi"


def _findings(rows: Iterable[NvmeRow]) -> list[Finding]:
    out: list[Finding] = []
    by_class: dict[tuple[str, str, str], list[NvmeRow]] = defaultdict(list)
    for r in rows:
        node_ref = ObjectRef("Node", r.name)
        if r.state is NvmeState.NOT_USED and r.cause in ("size", "policy") and r.node_class:
            by_class[(r.node_class[0], r.node_class[1], r.cause)].append(r)
        elif r.state is NvmeState.NOT_USED:
            out.append(
                Finding(
                    "NVME_NOT_USED",
                    Severity.WARNING,
                    node_ref,
                    f"{r.name} ({r.instance_type}) has {r.spec.layout if r.spec else '?'} NVMe it does not use for "
                    f"kubelet/containerd: {r.reason}",
                    "check the NodeClass (Auto Mode: ephemeralStorage.size below the NVMe; Karpenter: "
                    "instanceStorePolicy: RAID0) and replace the node",
                    SOURCE,
                )
            )
        elif r.state is NvmeState.DEGRADED:
            out.append(
                Finding(
                    "NVME_DEGRADED",
                    Severity.ERROR,
                    node_ref,
                    f"{r.name}: the NVMe RAID is missing a member: {r.reason}",
                    "the instance store is ephemeral and cannot be repaired in place: cordon and drain the node, "
                    "then delete its NodeClaim (`kubectl delete nodeclaim NAME`) so a healthy node replaces it",
                    SOURCE,
                )
            )
        elif r.state is NvmeState.UNKNOWN and r.cause == "capacity":
            out.append(
                Finding(
                    "NVME_CAPACITY_MISMATCH",
                    Severity.WARNING,
                    node_ref,
                    f"{r.name}: the configuration says kubelet/containerd storage should be on the "
                    f"{r.spec.layout if r.spec else '?'} NVMe, but {r.reason}",
                    "look at the node with `kubectl gpu snapshot --probe` (lsblk, mdstat, findmnt); if the NVMe is "
                    "unused, replace the node",
                    SOURCE,
                )
            )
        elif r.state is NvmeState.UNKNOWN:
            out.append(
                Finding(
                    "NVME_STATE_UNKNOWN",
                    Severity.INFO,
                    node_ref,
                    f"{r.name}: cannot tell whether its NVMe is used: {r.reason}",
                    "capture with `kubectl gpu snapshot --probe`",
                    SOURCE,
                )
            )
    for (kind, name, cause), members in sorted(by_class.items()):
        nodes = ", ".join(
            f"{m.name} ({m.instance_type}, {m.spec.layout if m.spec else '?'})" for m in members
        )
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
        out.append(Finding("NVME_NOT_USED", Severity.WARNING, ObjectRef(kind, name), message, fix, SOURCE))
    return out


# --------------------------------------------------------------------------------------------- report


@dataclass(frozen=True, slots=True)
class NvmeReport(ReportBase):
    kind: ClassVar[str] = "NvmeReport"
    rows: tuple[NvmeRow, ...]
    findings: tuple[Finding, ...]
    now: datetime

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

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
    rows = [_row(node, state, catalog) for node in nodes]
    rows.sort(key=lambda r: (r.node_pool or "~", r.instance_type or "", r.name))
    findings = sorted(_findings(rows), key=Finding.sort_key)
    return NvmeReport(tuple(rows), tuple(findings), now)


def analyse(state: ClusterState, catalog: Catalog, now: datetime, *, include_all: bool = False) -> NvmeReport:
    return build_nvme_report(state, catalog, now, include_all=include_all)
