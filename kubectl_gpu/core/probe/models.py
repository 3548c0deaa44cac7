"""Frozen result types of the probe parsers, and the value normalisation they share.

Every parser in this package returns one of these dataclasses. ``to_dict()`` methods give the camelCase JSON
shape the CLI prints; ``Gpu.to_dict()`` and ``GpuProcess.to_dict()`` give exactly the keys of the JSON contract
unless ``detail=True`` is passed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"

__all__ = [
    "BlockDevice",
    "ComputeApp",
    "EccInfo",
    "Gpu",
    "GpuProcess",
    "JsonValue",
    "ListedGpu",
    "ListedMigDevice",
    "LsblkReport",
    "MdArray",
    "MdMember",
    "MdStat",
    "MdSync",
    "MigDevice",
    "Mount",
    "NeuronDevice",
    "NeuronLs",
    "NeuronProcess",
    "NvidiaKernelDriver",
    "NvidiaSmiReport",
    "OsRelease",
    "ProbeIssue",
    "ProbeResult",
    "RaidDevice",
    "RemappedRows",
    "RetiredPages",
    "Section",
    "TopoLink",
    "TopoNic",
    "TopoRow",
    "Topology",
]

# --------------------------------------------------------------------------------------------------------------
# Value normalisation shared by the nvidia-smi parsers
# --------------------------------------------------------------------------------------------------------------

#: Values meaning "this field does not exist here" (lower-cased, brackets removed). They become ``None``.
_NA_VALUES = frozenset(
    {
        "",
        "n/a",
        "na",
        "not supported",
        "requested functionality has been deprecated",
        "not available",
        "not available in wddm driver model",
        "none reported",
    }
)

_NUMBER_RE = re.compile(r"^([-+]?[0-9]{1,30}(?:\.[0-9]{1,30})?)\s*(?:[A-Za-z%/]+(?:\(s\))?)?$")


def _unbracket(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == "[" and value[-1] == "]":
        return value[1:-1].strip()
    return value


def is_na(value: str | None) -> bool:
    """True for ``None`` and the "no value here" spellings of nvidia-smi (``N/A``, ``[Not Supported]`` …)."""
    return value is None or _unbracket(value).lower() in _NA_VALUES


#: NVML error strings nvidia-smi prints instead of a value (lower-cased), often in brackets.
_ERROR_VALUES = frozenset(
    {
        "unknown error",
        "gpu is lost",
        "gpu requires reset",
        "insufficient permissions",
        "timeout",
        "driver not loaded",
        "corrupted inforom",
        "memory error",
        "gpu access blocked by the operating system",
        "driver/library version mismatch",
        "in use by another client",
        "not ready",
        "invalid state",
        "gpu not found",
        "no data",
        "uninitialized",
        "interrupt request issue",
        "insufficient external power",
    }
)


def error_value(value: str | None) -> str | None:
    """The NVML error nvidia-smi printed instead of a value, e.g. ``[Unknown Error]`` -> ``Unknown Error``.

    Returns ``None`` for ordinary values and for the "no value" spellings.
    """
    if value is None:
        return None
    inner = _unbracket(value)
    return inner if inner.lower() in _ERROR_VALUES else None


def clean(value: str | None) -> str | None:
    """Stripped text, or ``None`` for missing / not-applicable / bracketed error values."""
    if value is None or is_na(value) or error_value(value) is not None:
        return None
    return value.strip()


def _numeric(value: str | None) -> str | None:
    text = clean(value)
    if text is None:
        return None
    match = _NUMBER_RE.match(text)
    return None if match is None else match.group(1)


def number(value: str | None) -> float | None:
    """The leading number of ``"81920 MiB"``, ``"91 %"``, ``"67.03 W"``, ``"27 C"``; ``None`` when there is none."""
    text = _numeric(value)
    return None if text is None else float(text)


def integer(value: str | None) -> int | None:
    """Like :func:`number`, as an ``int`` (a fraction is truncated)."""
    text = _numeric(value)
    return None if text is None else int(text.split(".", 1)[0])


def yes_no(value: str | None) -> bool | None:
    """``Yes``/``No`` (and ``Enabled``/``Disabled``, ``True``/``False``) as a bool; anything else ``None``."""
    text = clean(value)
    if text is None:
        return None
    low = text.lower()
    if low in {"yes", "enabled", "true", "active"}:
        return True
    if low in {"no", "disabled", "false", "not active"}:
        return False
    return None


def _opt_list(items: Iterator[JsonValue]) -> list[JsonValue]:
    return list(items)


# --------------------------------------------------------------------------------------------------------------
# nvidia-smi
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GpuProcess:
    """A process using a GPU (or a MIG device of it)."""

    pid: int | None
    name: str | None
    used_memory_mib: int | None
    type: str | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None

    def to_dict(self, detail: bool = False, pods: Mapping[int, str] | None = None) -> dict[str, JsonValue]:
        """``pods``: PID -> ``namespace/name`` of the processes attributed to a pod (``pod`` is null otherwise)."""
        out: dict[str, JsonValue] = {
            "pid": self.pid,
            "name": self.name,
            "usedMemoryMiB": self.used_memory_mib,
            "pod": None if pods is None or self.pid is None else pods.get(self.pid),
        }
        if detail:
            out["type"] = self.type
            out["gpuInstanceId"] = self.gpu_instance_id
            out["computeInstanceId"] = self.compute_instance_id
        return out


@dataclass(frozen=True, slots=True)
class EccInfo:
    """ECC mode and error totals (correctable = single-bit, uncorrectable = double-bit in older DTDs)."""

    mode_current: str | None
    mode_pending: str | None
    volatile_correctable: int | None
    volatile_uncorrectable: int | None
    aggregate_correctable: int | None
    aggregate_uncorrectable: int | None

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "modeCurrent": self.mode_current,
            "modePending": self.mode_pending,
            "volatileCorrectable": self.volatile_correctable,
            "volatileUncorrectable": self.volatile_uncorrectable,
            "aggregateCorrectable": self.aggregate_correctable,
            "aggregateUncorrectable": self.aggregate_uncorrectable,
        }


@dataclass(frozen=True, slots=True)
class RetiredPages:
    """Page retirement (GPUs before Ampere)."""

    single_bit_count: int | None
    double_bit_count: int | None
    pending: bool | None

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "singleBitCount": self.single_bit_count,
            "doubleBitCount": self.double_bit_count,
            "pending": self.pending,
        }


@dataclass(frozen=True, slots=True)
class RemappedRows:
    """Row remapping (Ampere and later)."""

    correctable: int | None
    uncorrectable: int | None
    pending: bool | None
    failure: bool | None

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "correctable": self.correctable,
            "uncorrectable": self.uncorrectable,
            "pending": self.pending,
            "failure": self.failure,
        }


@dataclass(frozen=True, slots=True)
class MigDevice:
    """A MIG device (GPU instance + compute instance) of a GPU."""

    index: int | None
    gpu_instance_id: int | None
    compute_instance_id: int | None
    profile_name: str | None = None
    uuid: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    processes: tuple[GpuProcess, ...] = ()

    def to_dict(self, pods: Mapping[int, str] | None = None) -> dict[str, JsonValue]:
        return {
            "index": self.index,
            "gpuInstanceId": self.gpu_instance_id,
            "computeInstanceId": self.compute_instance_id,
            "profile": self.profile_name,
            "uuid": self.uuid,
            "memoryTotalMiB": self.memory_total_mib,
            "memoryUsedMiB": self.memory_used_mib,
            "processes": _opt_list(p.to_dict(pods=pods) for p in self.processes),
        }


@dataclass(frozen=True, slots=True)
class Gpu:
    """One physical GPU as nvidia-smi reports it. ``None`` means: not reported by this driver / DTD."""

    index: int
    name: str | None
    uuid: str | None
    pci_bus_id: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    memory_free_mib: int | None = None
    utilization_pct: int | None = None
    temperature_c: int | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    persistence_mode: str | None = None
    compute_mode: str | None = None
    mig_mode: str | None = None
    mig_mode_pending: str | None = None
    ecc: EccInfo | None = None
    retired_pages: RetiredPages | None = None
    remapped_rows: RemappedRows | None = None
    mig_devices: tuple[MigDevice, ...] = ()
    clock_event_reasons: tuple[str, ...] = ()
    processes: tuple[GpuProcess, ...] = ()
    minor_number: int | None = None
    virtualization_mode: str | None = None
    #: Error texts nvidia-smi printed instead of values, e.g. ``Unknown Error`` or ``GPU requires reset``.
    errors: tuple[str, ...] = ()

    def to_dict(self, detail: bool = False, pods: Mapping[int, str] | None = None) -> dict[str, JsonValue]:
        """Exactly the JSON contract keys; ``detail=True`` adds ECC, retired pages, remapped rows, MIG, etc.
        ``pods``: PID -> ``namespace/name``, for the processes' ``pod``."""
        out: dict[str, JsonValue] = {
            "index": self.index,
            "name": self.name,
            "uuid": self.uuid,
            "memoryTotalMiB": self.memory_total_mib,
            "memoryUsedMiB": self.memory_used_mib,
            "utilizationPct": self.utilization_pct,
            "temperatureC": self.temperature_c,
            "powerW": self.power_w,
            "migMode": self.mig_mode,
            "processes": _opt_list(p.to_dict(detail, pods) for p in self.processes),
        }
        if detail:
            out["pciBusId"] = self.pci_bus_id
            out["memoryFreeMiB"] = self.memory_free_mib
            out["powerLimitW"] = self.power_limit_w
            out["persistenceMode"] = self.persistence_mode
            out["computeMode"] = self.compute_mode
            out["migModePending"] = self.mig_mode_pending
            out["ecc"] = None if self.ecc is None else self.ecc.to_dict()
            out["retiredPages"] = None if self.retired_pages is None else self.retired_pages.to_dict()
            out["remappedRows"] = None if self.remapped_rows is None else self.remapped_rows.to_dict()
            out["migDevices"] = _opt_list(m.to_dict(pods) for m in self.mig_devices)
            out["clockEventReasons"] = list(self.clock_event_reasons)
            out["minorNumber"] = self.minor_number
            out["virtualizationMode"] = self.virtualization_mode
            out["errors"] = list(self.errors)
        return out


@dataclass(frozen=True, slots=True)
class NvidiaSmiReport:
    """What ``nvidia-smi -q -x`` or ``--query-gpu`` said about the node."""

    driver_version: str | None
    cuda_version: str | None
    attached_gpus: int | None
    gpus: tuple[Gpu, ...]

    def to_dict(self, detail: bool = False) -> dict[str, JsonValue]:
        return {
            "driverVersion": self.driver_version,
            "cudaVersion": self.cuda_version,
            "attachedGpus": self.attached_gpus,
            "gpus": _opt_list(g.to_dict(detail) for g in self.gpus),
        }


@dataclass(frozen=True, slots=True)
class ComputeApp:
    """One row of ``nvidia-smi --query-compute-apps``."""

    gpu_uuid: str | None
    gpu_bus_id: str | None
    pid: int | None
    process_name: str | None
    used_memory_mib: int | None


@dataclass(frozen=True, slots=True)
class ListedMigDevice:
    """A ``MIG <profile> Device <n>: (UUID: ...)`` line of ``nvidia-smi -L``."""

    index: int
    profile: str | None
    uuid: str
    #: Only the old (R450) UUID format ``MIG-GPU-<gpu uuid>/<gi>/<ci>`` carries the instance ids.
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


@dataclass(frozen=True, slots=True)
class ListedGpu:
    """A ``GPU <n>: <name> (UUID: ...)`` line of ``nvidia-smi -L`` with its MIG lines."""

    index: int
    name: str
    uuid: str | None
    mig_devices: tuple[ListedMigDevice, ...] = ()


@dataclass(frozen=True, slots=True)
class TopoLink:
    """The link from a row device to ``peer`` (``X``, ``NV12``, ``PIX``, ``PXB``, ``PHB``, ``NODE``, ``SYS``…)."""

    peer: str
    link: str

    @property
    def nvlink_count(self) -> int | None:
        """The number of bonded NVLinks for ``NV#`` links, else ``None``."""
        match = re.fullmatch(r"NV([0-9]{1,6})", self.link)
        return int(match.group(1)) if match else None


@dataclass(frozen=True, slots=True)
class TopoRow:
    """One row of the ``nvidia-smi topo -m`` matrix."""

    name: str
    links: tuple[TopoLink, ...]
    cpu_affinity: str | None = None
    numa_affinity: str | None = None
    gpu_numa_id: str | None = None


@dataclass(frozen=True, slots=True)
class TopoNic:
    """A ``NIC<n>: <device>`` line of the NIC legend."""

    name: str
    device: str


@dataclass(frozen=True, slots=True)
class Topology:
    """The ``nvidia-smi topo -m`` matrix."""

    devices: tuple[str, ...]
    rows: tuple[TopoRow, ...]
    nics: tuple[TopoNic, ...] = ()

    def link(self, a: str, b: str) -> str | None:
        """The link type between devices ``a`` and ``b`` (``None`` if either is unknown)."""
        for row in self.rows:
            if row.name == a:
                for link in row.links:
                    if link.peer == b:
                        return link.link
        return None

    @property
    def gpus(self) -> tuple[str, ...]:
        return tuple(d for d in self.devices if d.startswith("GPU"))


# --------------------------------------------------------------------------------------------------------------
# Storage
# --------------------------------------------------------------------------------------------------------------

_SIZE_SUFFIX = {"B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


@dataclass(frozen=True, slots=True)
class BlockDevice:
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

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "name": self.name,
            "type": self.type,
            "sizeBytes": self.size_bytes,
            "size": self.size_text,
            "model": self.model,
            "mountpoints": list(self.mountpoints),
            "fstype": self.fstype,
            "children": _opt_list(c.to_dict() for c in self.children),
        }


@dataclass(frozen=True, slots=True)
class RaidDevice:
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


@dataclass(frozen=True, slots=True)
class LsblkReport:
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


@dataclass(frozen=True, slots=True)
class Mount:
    """One filesystem of ``findmnt -J``."""

    target: str
    source: str | None
    fstype: str | None
    options: str | None


@dataclass(frozen=True, slots=True)
class MdMember:
    """A member of an md array: ``nvme0n1[0]``, ``sdb1[1](F)``."""

    name: str
    slot: int
    faulty: bool = False
    spare: bool = False
    write_mostly: bool = False
    replacement: bool = False
    journal: bool = False


@dataclass(frozen=True, slots=True)
class MdSync:
    """A running resync / recovery / reshape / check."""

    action: str
    percent: float
    done_blocks: int | None = None
    total_blocks: int | None = None
    finish_minutes: float | None = None
    speed_kib_per_sec: int | None = None


@dataclass(frozen=True, slots=True)
class MdArray:
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
    def state(self) -> str:
        return "active" if self.active else "inactive"

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

    @property
    def resyncing(self) -> bool:
        return self.sync is not None or self.sync_waiting is not None

    @property
    def healthy(self) -> bool:
        return self.active and not self.degraded and not self.resyncing


@dataclass(frozen=True, slots=True)
class MdStat:
    """``/proc/mdstat``."""

    personalities: tuple[str, ...]
    arrays: tuple[MdArray, ...]
    unused_devices: tuple[str, ...] = ()

    def array(self, name: str) -> MdArray | None:
        for arr in self.arrays:
            if arr.name == name:
                return arr
        return None


# --------------------------------------------------------------------------------------------------------------
# Neuron
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NeuronProcess:
    pid: int | None
    command: str | None
    runtime_version: str | None


@dataclass(frozen=True, slots=True)
class NeuronDevice:
    """One device of ``neuron-ls --json-output``."""

    index: int
    nc_count: int | None
    memory_bytes: int | None
    bdf: str | None
    connected_to: tuple[int, ...] = ()
    cpu_affinity: str | None = None
    numa_node: int | None = None
    logical_neuroncore_config: int | None = None
    neuroncore_ids: tuple[int, ...] = ()
    processes: tuple[NeuronProcess, ...] = ()


@dataclass(frozen=True, slots=True)
class NeuronLs:
    devices: tuple[NeuronDevice, ...]
    driver_version: str | None = None
    runtime_version: str | None = None


# --------------------------------------------------------------------------------------------------------------
# Collector
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NvidiaKernelDriver:
    """``/proc/driver/nvidia/version``."""

    version: str
    open_kernel_module: bool
    arch: str | None = None
    gcc_version: str | None = None


@dataclass(frozen=True, slots=True)
class OsRelease:
    """``/etc/os-release`` of the host, as ``(key, value)`` pairs in file order."""

    fields: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        for k, v in self.fields:
            if k == key:
                return v
        return None

    @property
    def id(self) -> str | None:
        return self.get("ID")

    @property
    def version_id(self) -> str | None:
        return self.get("VERSION_ID")

    @property
    def pretty_name(self) -> str | None:
        return self.get("PRETTY_NAME")


@dataclass(frozen=True, slots=True)
class Section:
    """One ``BEGIN``/``END`` block of the collector's output."""

    name: str
    rc: int | None
    body: str
    stderr: str = ""
    #: The block had no ``END`` marker (the output was cut off, or the next block began first).
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class ProbeIssue:
    """Something that went wrong with one section: ``missing``, ``truncated``, ``failed``, ``empty``, ``parse``."""

    section: str
    kind: str
    message: str

    def to_dict(self) -> dict[str, JsonValue]:
        return {"section": self.section, "kind": self.kind, "message": self.message}


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """Everything the collector script found on one node."""

    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[Gpu, ...]
    #: Which section the GPU facts came from: ``nvidia-smi-xml``, ``nvidia-smi-csv``, ``nvidia-smi-list``.
    gpu_source: str | None = None
    collector_version: str | None = None
    #: The collector's final ``DONE`` marker was seen.
    complete: bool = False
    gpu_list: tuple[ListedGpu, ...] = ()
    topology: Topology | None = None
    kernel_driver: NvidiaKernelDriver | None = None
    block_devices: LsblkReport | None = None
    mdstat: MdStat | None = None
    mounts: tuple[Mount, ...] | None = None
    kernel_release: str | None = None
    os_release: OsRelease | None = None
    neuron: NeuronLs | None = None
    #: PID -> pod UID of the GPU processes that run in a pod's cgroup (the ``pid-cgroups`` section).
    pid_pods: Mapping[int, str] = field(default_factory=dict, hash=False)
    sections: tuple[Section, ...] = field(default=(), repr=False)
    issues: tuple[ProbeIssue, ...] = ()

    def section(self, name: str) -> Section | None:
        for sec in self.sections:
            if sec.name == name:
                return sec
        return None

    def to_dict(self, detail: bool = False) -> dict[str, JsonValue]:
        """``driverVersion``, ``cudaVersion`` and ``gpus``; ``detail=True`` adds the rest."""
        out: dict[str, JsonValue] = {
            "driverVersion": self.driver_version,
            "cudaVersion": self.cuda_version,
            "gpus": _opt_list(g.to_dict(detail) for g in self.gpus),
        }
        if detail:
            out["gpuSource"] = self.gpu_source
            out["collectorVersion"] = self.collector_version
            out["complete"] = self.complete
            out["kernelDriverVersion"] = None if self.kernel_driver is None else self.kernel_driver.version
            out["kernelRelease"] = self.kernel_release
            out["osPrettyName"] = None if self.os_release is None else self.os_release.pretty_name
            out["issues"] = _opt_list(i.to_dict() for i in self.issues)
        return out
