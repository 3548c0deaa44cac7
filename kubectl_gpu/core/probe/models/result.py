"""The collector script's result for one node (:class:`ProbeResult`), its sections and issues, and the host
facts it reads besides nvidia-smi (the kernel driver, ``/etc/os-release``)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kubectl_gpu.core.compared import hashed_without

from .gpu import Gpu, ListedGpu
from .neuron import NeuronLs
from .storage import LsblkReport, MdStat, Mount
from .topology import Topology
from .values import JsonValue

__all__ = ["NvidiaKernelDriver", "OsRelease", "ProbeIssue", "ProbeResult", "Section"]


class NvidiaKernelDriver(msgspec.Struct, frozen=True):
    """``/proc/driver/nvidia/version``."""

    version: str
    open_kernel_module: bool
    arch: str | None = None
    gcc_version: str | None = None


class OsRelease(msgspec.Struct, frozen=True):
    """``/etc/os-release`` of the host, as ``(key, value)`` pairs in file order."""

    fields: tuple[tuple[str, str], ...]


class Section(msgspec.Struct, frozen=True):
    """One ``BEGIN``/``END`` block of the collector's output."""

    name: str
    rc: int | None
    body: str
    stderr: str = ""
    #: The block had no ``END`` marker (the output was cut off, or the next block began first).
    truncated: bool = False


class ProbeIssue(msgspec.Struct, frozen=True):
    """Something that went wrong with one section: ``missing``, ``truncated``, ``failed``, ``empty``, ``parse``."""

    section: str
    kind: str
    message: str

    def to_dict(self) -> dict[str, JsonValue]:
        return {"section": self.section, "kind": self.kind, "message": self.message}


@hashed_without("pid_pods")
class ProbeResult(msgspec.Struct, frozen=True):
    """Everything the collector script found on one node."""

    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[Gpu, ...]
    #: How many GPUs nvidia-smi counts as attached (``<attached_gpus>``); more than ``gpus`` lists: one is gone.
    attached_gpus: int | None = None
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
    pid_pods: Mapping[int, str] = msgspec.field(default_factory=dict)
    sections: tuple[Section, ...] = ()
    issues: tuple[ProbeIssue, ...] = ()

    def section(self, name: str) -> Section | None:
        for sec in self.sections:
            if sec.name == name:
                return sec
        return None
