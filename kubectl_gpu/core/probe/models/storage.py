"""The node's storage: the ``lsblk`` device forest (with its NVMe disks and md / RAID devices), the
filesystems of ``findmnt`` and the arrays of ``/proc/mdstat``."""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec

__all__ = ["BlockDevice", "LsblkReport", "MdArray", "MdMember", "MdStat", "MdSync", "Mount", "RaidDevice"]

_SIZE_SUFFIX = {"B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


class BlockDevice(msgspec.Struct, frozen=True):
    """A node of the ``lsblk`` tree. ``size_bytes`` is ``None`` when lsblk printed a human size (``7T``)."""

    name: str
    type: str | None
    size_bytes: int | None
    size_text: str | None = None
    model: str | None = None
    mountpoints: tuple[str, ...] = ()
    fstype: str | None = None
    children: tuple[BlockDevice, ...] = ()

    @property
    def kernel_name(self) -> str:
        """``nvme0n1`` for both ``nvme0n1`` and ``/dev/nvme0n1``."""
        return self.name.rsplit("/", 1)[-1]

    @property
    def approx_size_bytes(self) -> int | None:
        """``size_bytes``, else the human size read with lsblk's binary units (``7T`` = 7 TiB), else ``None``."""
        if self.size_bytes is not None:
            return self.size_bytes
        if self.size_text is None:
            return None
        match = re.fullmatch(r"([0-9]{1,20}(?:\.[0-9]{1,20})?)([BKMGTPE])", self.size_text.strip())
        if match is None:
            return None
        return int(float(match.group(1)) * 1024 ** _SIZE_SUFFIX[match.group(2)])

    def walk(self) -> Iterator[tuple[BlockDevice, BlockDevice | None]]:
        """This device and all descendants, each with its parent (``None`` for this one)."""
        stack: list[tuple[BlockDevice, BlockDevice | None]] = [(self, None)]
        while stack:
            dev, parent = stack.pop()
            yield dev, parent
            stack.extend((child, dev) for child in reversed(dev.children))


class RaidDevice(msgspec.Struct, frozen=True):
    """An md / RAID device found in the lsblk tree, with the devices it sits on."""

    name: str
    level: str | None
    size_bytes: int | None
    size_text: str | None
    members: tuple[str, ...]
    mountpoints: tuple[str, ...]
    fstype: str | None


def _is_raid(dev: BlockDevice) -> bool:
    kind = (dev.type or "").lower()
    return kind.startswith("raid") or kind in {"md", "linear"}


class LsblkReport(msgspec.Struct, frozen=True):
    """The device forest of ``lsblk -J`` (or ``lsblk -P``)."""

    devices: tuple[BlockDevice, ...]

    def walk(self) -> Iterator[tuple[BlockDevice, BlockDevice | None]]:
        for dev in self.devices:
            yield from dev.walk()

    def nvme_disks(self) -> tuple[BlockDevice, ...]:
        """Whole NVMe disks (``type == "disk"``, kernel name ``nvme*``), in lsblk order, without duplicates."""
        seen: set[str] = set()
        out: list[BlockDevice] = []
        for dev, _parent in self.walk():
            if dev.type == "disk" and dev.kernel_name.startswith("nvme") and dev.kernel_name not in seen:
                seen.add(dev.kernel_name)
                out.append(dev)
        return tuple(out)

    def raid_devices(self) -> tuple[RaidDevice, ...]:
        """md / RAID devices with their members (the devices lsblk lists them under) and mountpoints."""
        order: list[str] = []
        found: dict[str, BlockDevice] = {}
        members: dict[str, list[str]] = {}
        for dev, parent in self.walk():
            if not _is_raid(dev):
                continue
            key = dev.kernel_name
            if key not in found:
                order.append(key)
                found[key] = dev
                members[key] = []
            if parent is not None and parent.kernel_name not in members[key]:
                members[key].append(parent.kernel_name)
        return tuple(
            RaidDevice(
                name=key,
                level=found[key].type,
                size_bytes=found[key].size_bytes,
                size_text=found[key].size_text,
                members=tuple(members[key]),
                mountpoints=found[key].mountpoints,
                fstype=found[key].fstype,
            )
            for key in order
        )


class Mount(msgspec.Struct, frozen=True):
    """One filesystem of ``findmnt -J``."""

    target: str
    source: str | None
    fstype: str | None
    options: str | None


class MdMember(msgspec.Struct, frozen=True):
    """A member of an md array: ``nvme0n1[0]``, ``sdb1[1](F)``."""

    name: str
    slot: int
    faulty: bool = False
    spare: bool = False
    write_mostly: bool = False
    replacement: bool = False
    journal: bool = False


class MdSync(msgspec.Struct, frozen=True):
    """A running resync / recovery / reshape / check."""

    action: str
    percent: float
    done_blocks: int | None = None
    total_blocks: int | None = None
    finish_minutes: float | None = None
    speed_kib_per_sec: int | None = None


class MdArray(msgspec.Struct, frozen=True):
    """One array of ``/proc/mdstat``."""

    name: str
    active: bool
    level: str | None
    members: tuple[MdMember, ...]
    blocks: int | None = None
    super_version: str | None = None
    chunk_kib: int | None = None
    read_only: str | None = None
    raid_disks: int | None = None
    working_disks: int | None = None
    member_status: str | None = None
    sync: MdSync | None = None
    #: ``PENDING`` or ``DELAYED`` when a resync is queued but not running.
    sync_waiting: str | None = None
    bitmap: str | None = None

    @property
    def failed_members(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.members if m.faulty)

    @property
    def degraded(self) -> bool:
        """Fewer working disks than raid disks, a ``_`` in ``[UU_]``, or a faulty member."""
        if (
            self.raid_disks is not None
            and self.working_disks is not None
            and self.working_disks < self.raid_disks
        ):
            return True
        if self.member_status is not None and "_" in self.member_status:
            return True
        return any(m.faulty for m in self.members)


class MdStat(msgspec.Struct, frozen=True):
    """``/proc/mdstat``."""

    personalities: tuple[str, ...]
    arrays: tuple[MdArray, ...]
    unused_devices: tuple[str, ...] = ()

    def array(self, name: str) -> MdArray | None:
        for arr in self.arrays:
            if arr.name == name:
                return arr
        return None
