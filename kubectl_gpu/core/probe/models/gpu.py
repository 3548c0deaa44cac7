"""What nvidia-smi reports about the GPUs: ``-q -x`` / ``--query-gpu`` (:class:`NvidiaSmiReport` of
:class:`Gpu`), ``--query-compute-apps`` (:class:`ComputeApp`) and ``-L`` (:class:`ListedGpu`).

``Gpu.to_dict()`` and ``GpuProcess.to_dict()`` give exactly the keys of the JSON contract unless
``detail=True`` is passed.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from .values import JsonValue, json_list

__all__ = [
    "ComputeApp",
    "EccInfo",
    "Gpu",
    "GpuProcess",
    "ListedGpu",
    "ListedMigDevice",
    "MigDevice",
    "NvidiaSmiReport",
    "RemappedRows",
    "RetiredPages",
]


class GpuProcess(msgspec.Struct, frozen=True):
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


class EccInfo(msgspec.Struct, frozen=True):
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


class RetiredPages(msgspec.Struct, frozen=True):
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


class RemappedRows(msgspec.Struct, frozen=True):
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


class MigDevice(msgspec.Struct, frozen=True):
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
            "processes": json_list(p.to_dict(pods=pods) for p in self.processes),
        }


class Gpu(msgspec.Struct, frozen=True):
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
    #: False when the source cannot list processes (``--query-gpu`` CSV, ``-L``): ``processes`` is then
    #: unknown, not empty, and the JSON says ``null``.
    processes_known: bool = True
    #: False when the source cannot list MIG devices (``--query-gpu`` CSV on a GPU whose MIG mode is not
    #: read as Disabled): ``mig_devices`` is then unknown, not none, and the JSON says ``null``.
    mig_devices_known: bool = True

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
            "processes": json_list(p.to_dict(detail, pods) for p in self.processes)
            if self.processes_known
            else None,
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
            out["migDevices"] = (
                json_list(m.to_dict(pods) for m in self.mig_devices) if self.mig_devices_known else None
            )
            out["clockEventReasons"] = list(self.clock_event_reasons)
            out["minorNumber"] = self.minor_number
            out["virtualizationMode"] = self.virtualization_mode
            out["errors"] = list(self.errors)
        return out


class NvidiaSmiReport(msgspec.Struct, frozen=True):
    """What ``nvidia-smi -q -x`` or ``--query-gpu`` said about the node."""

    driver_version: str | None
    cuda_version: str | None
    attached_gpus: int | None
    gpus: tuple[Gpu, ...]
    #: What was repaired to read an XML document that was not well-formed (None: it was).
    recovered: str | None = None


class ComputeApp(msgspec.Struct, frozen=True):
    """One row of ``nvidia-smi --query-compute-apps``."""

    gpu_uuid: str | None
    gpu_bus_id: str | None
    pid: int | None
    process_name: str | None
    used_memory_mib: int | None


class ListedMigDevice(msgspec.Struct, frozen=True):
    """A ``MIG <profile> Device <n>: (UUID: ...)`` line of ``nvidia-smi -L``."""

    index: int
    profile: str | None
    uuid: str
    #: Only the old (R450) UUID format ``MIG-GPU-<gpu uuid>/<gi>/<ci>`` carries the instance ids.
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


class ListedGpu(msgspec.Struct, frozen=True):
    """A ``GPU <n>: <name> (UUID: ...)`` line of ``nvidia-smi -L`` with its MIG lines."""

    index: int
    name: str
    uuid: str | None
    mig_devices: tuple[ListedMigDevice, ...] = ()
