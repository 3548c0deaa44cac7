"""What a probe (lsblk, /proc/mdstat, findmnt from the collector) says about a node's instance store."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from kubectl_gpu.core.analyses.nvme.spec import NvmeState, format_bytes
from kubectl_gpu.core.probe import BlockDevice, LsblkReport, ProbeResult, RaidDevice

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


class ProbeStorage(msgspec.Struct, frozen=True):
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


class _Seen:
    """The instance-store disks a probe shows, and the evidence gathered so far."""

    def __init__(self, probe: ProbeResult, lsblk: LsblkReport, disks: list[BlockDevice]) -> None:
        self.probe, self.lsblk, self.mdstat = probe, lsblk, probe.mdstat
        self.disks = disks
        self.names = [d.kernel_name for d in disks]
        self.disk_of: dict[str, str] = {}  # every device on a disk -> that disk
        for disk in disks:
            for dev, _ in disk.walk():
                self.disk_of.setdefault(dev.kernel_name, disk.kernel_name)
        self.size_of = {d.kernel_name: d.approx_size_bytes for d in disks}
        self.evidence: list[str] = []

    def result(
        self,
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
            evidence=(*self.evidence, *why),
            problems=why,
        )


def probe_storage(probe: ProbeResult, expected_count: int | None = None) -> ProbeStorage | None:
    """Classify the instance store from a probe; None when the probe has no usable lsblk section."""
    lsblk = probe.block_devices
    if lsblk is None:
        return None
    seen = _Seen(probe, lsblk, [d for d in lsblk.nvme_disks() if _is_instance_store(d)])
    if not seen.disks:
        return seen.result(NvmeState.NO_NVME, (), problems=["probe: lsblk shows no instance-store NVMe disk"])
    disks = seen.disks
    seen.evidence.append(
        f"probe: lsblk shows {len(disks)} instance-store NVMe disk(s): {', '.join(seen.names)}"
    )
    if expected_count is not None and len(disks) < expected_count:
        seen.evidence.append(f"the instance type has {expected_count} NVMe disks; lsblk shows {len(disks)}")
    raids = [r for r in lsblk.raid_devices() if any(m in seen.disk_of for m in r.members)]
    if raids:
        return _raid(seen, max(raids, key=lambda r: len(r.members)), expected_count)
    return _inactive_array(seen) or _single_disks(seen)


def _raid_problems(
    seen: _Seen, raid: RaidDevice, members: list[str], expected_count: int | None
) -> list[str]:
    problems: list[str] = []
    arr = seen.mdstat.array(raid.name) if seen.mdstat is not None else None
    if arr is not None:
        if not arr.active:
            problems.append(f"/proc/mdstat: {arr.name} is inactive")
        if arr.failed_members:
            problems.append(f"/proc/mdstat: {arr.name} has faulty member(s) {', '.join(arr.failed_members)}")
        if arr.degraded and not arr.failed_members:
            problems.append(f"/proc/mdstat: {arr.name} is degraded ({arr.member_status or 'missing disks'})")
    if len(members) < len(seen.disks):
        missing = sorted(set(seen.names) - set(members))
        problems.append(
            f"{raid.name} ({raid.level}) holds {len(members)} of the {len(seen.disks)} instance-store NVMe "
            f"disks; not in it: {', '.join(missing)}"
        )
    elif expected_count is not None and len(members) < expected_count:
        problems.append(
            f"{raid.name} ({raid.level}) holds {len(members)} NVMe disks; the instance type has {expected_count}"
        )
    return problems


def _raid(seen: _Seen, raid: RaidDevice, expected_count: int | None) -> ProbeStorage:
    """An md array over the instance-store disks: in use, degraded, or not mounted for storage."""
    members = sorted({seen.disk_of[m] for m in raid.members if m in seen.disk_of})
    below = {raid.name}
    for dev, _ in seen.lsblk.walk():
        if dev.kernel_name == raid.name:
            below.update(d.kernel_name for d, _ in dev.walk())
    storage, other = _targets(below, seen.lsblk, seen.probe)
    problems = _raid_problems(seen, raid, members, expected_count)
    total = raid.size_bytes
    if total is None and raid.size_text is not None:
        total = BlockDevice(raid.name, raid.level, None, raid.size_text).approx_size_bytes
    where = ", ".join(storage + other) or "not mounted"
    seen.evidence.append(
        f"{raid.name} ({raid.level}, {format_bytes(total)}) over {', '.join(members)}: {where}"
    )
    if problems:
        return seen.result(NvmeState.DEGRADED, members, total, raid.name, raid.level, storage, problems)
    if storage:
        return seen.result(NvmeState.ACTIVE, members, total, raid.name, raid.level, storage)
    reason = (
        f"{raid.name} is mounted at {', '.join(other)}, which is not kubelet/containerd storage"
        if other
        else f"{raid.name} exists but is not mounted"
    )
    return seen.result(NvmeState.NOT_USED, members, total, raid.name, raid.level, problems=[reason])


def _inactive_array(seen: _Seen) -> ProbeStorage | None:
    """No assembled array, but /proc/mdstat has an inactive or degraded one over the disks."""
    for arr in seen.mdstat.arrays if seen.mdstat is not None else ():
        on_disks = [m.name for m in arr.members if m.name in seen.disk_of]
        if on_disks and (not arr.active or arr.degraded):
            what = "inactive" if not arr.active else "degraded"
            return seen.result(
                NvmeState.DEGRADED,
                sorted({seen.disk_of[m] for m in on_disks}),
                array=arr.name,
                level=arr.level,
                problems=[f"/proc/mdstat: {arr.name} over {', '.join(on_disks)} is {what}"],
            )
    return None


def _single_disks(seen: _Seen) -> ProbeStorage:
    """No array: disks mounted one by one for kubelet/containerd storage, elsewhere, or not at all."""
    used: list[str] = []
    targets: set[str] = set()
    elsewhere: set[str] = set()
    for disk in seen.disks:
        storage, other = _targets({d.kernel_name for d, _ in disk.walk()}, seen.lsblk, seen.probe)
        if storage:
            used.append(disk.kernel_name)
            targets.update(storage)
        elsewhere.update(other)
    if used:
        if len(used) < len(seen.disks):
            seen.evidence.append(f"only {', '.join(used)} of {len(seen.disks)} disks is used, without RAID")
        seen.evidence.append(f"{', '.join(used)} mounted for {', '.join(sorted(targets))}")
        total_used = sum(seen.size_of[n] or 0 for n in used) or None
        return seen.result(NvmeState.ACTIVE, used, total_used, targets=sorted(targets))
    reason = (
        f"the instance-store disks are mounted at {', '.join(sorted(elsewhere))}, not for kubelet/containerd"
        if elsewhere
        else "the instance-store disks are not mounted: ephemeral storage is on EBS"
    )
    total_present = sum(v or 0 for v in seen.size_of.values()) or None
    return seen.result(NvmeState.NOT_USED, seen.names, total_present, problems=[reason])
