"""Pure parsers for what the GPU debug pod collects: nvidia-smi (XML, CSV, ``-L``, ``topo -m``), lsblk,
/proc/mdstat, findmnt, neuron-ls, the cgroups of GPU processes, and the collector script's sectioned output
that carries them all.

Every parser takes ``str`` or ``bytes`` and returns a frozen dataclass from :mod:`.models`, or raises
:class:`ProbeParseError` (a ``ValueError``) with a one-line message; nothing here does I/O.

The names below are loaded on first use (PEP 562): an analysis that only reads `ProbeResult` (drivers,
nvme, smi: every one `diagnose` runs) does not import every parser at start, and a snapshot without probes
never needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cgroups import parse_pid_cgroups, pod_uid_of_cgroup_path
    from .collector import (
        COLLECTOR_VERSION,
        SECTION_NAMES,
        parse_collector_output,
        parse_kernel_release,
        parse_nvidia_driver_version,
        parse_os_release,
        split_sections,
    )
    from .errors import ProbeParseError
    from .lsblk import parse_findmnt_json, parse_lsblk_json, parse_lsblk_pairs
    from .mdstat import parse_mdstat
    from .models import (
        BlockDevice,
        ComputeApp,
        EccInfo,
        Gpu,
        GpuProcess,
        ListedGpu,
        ListedMigDevice,
        LsblkReport,
        MdArray,
        MdMember,
        MdStat,
        MdSync,
        MigDevice,
        Mount,
        NeuronDevice,
        NeuronLs,
        NeuronProcess,
        NvidiaKernelDriver,
        NvidiaSmiReport,
        OsRelease,
        ProbeIssue,
        ProbeResult,
        RaidDevice,
        RemappedRows,
        RetiredPages,
        Section,
        TopoLink,
        Topology,
        TopoNic,
        TopoRow,
    )
    from .neuron import parse_neuron_ls_json
    from .nvidia_csv import (
        QUERY_GPU_FIELDS,
        QUERY_GPU_FIELDS_BASIC,
        decode_clock_event_reasons,
        parse_compute_apps_csv,
        parse_query_gpu_csv,
    )
    from .nvidia_list import parse_nvidia_smi_list
    from .nvidia_topo import parse_nvidia_smi_topo
    from .nvidia_xml import parse_nvidia_smi_xml
    from .saved import parse_saved_output

#: Each exported name, and the submodule that defines it.
_SOURCES = {
    "BlockDevice": "models",
    "COLLECTOR_VERSION": "collector",
    "ComputeApp": "models",
    "EccInfo": "models",
    "Gpu": "models",
    "GpuProcess": "models",
    "ListedGpu": "models",
    "ListedMigDevice": "models",
    "LsblkReport": "models",
    "MdArray": "models",
    "MdMember": "models",
    "MdStat": "models",
    "MdSync": "models",
    "MigDevice": "models",
    "Mount": "models",
    "NeuronDevice": "models",
    "NeuronLs": "models",
    "NeuronProcess": "models",
    "NvidiaKernelDriver": "models",
    "NvidiaSmiReport": "models",
    "OsRelease": "models",
    "ProbeIssue": "models",
    "ProbeParseError": "errors",
    "ProbeResult": "models",
    "QUERY_GPU_FIELDS": "nvidia_csv",
    "QUERY_GPU_FIELDS_BASIC": "nvidia_csv",
    "RaidDevice": "models",
    "RemappedRows": "models",
    "RetiredPages": "models",
    "SECTION_NAMES": "collector",
    "Section": "models",
    "TopoLink": "models",
    "TopoNic": "models",
    "TopoRow": "models",
    "Topology": "models",
    "decode_clock_event_reasons": "nvidia_csv",
    "parse_collector_output": "collector",
    "parse_compute_apps_csv": "nvidia_csv",
    "parse_findmnt_json": "lsblk",
    "parse_kernel_release": "collector",
    "parse_lsblk_json": "lsblk",
    "parse_lsblk_pairs": "lsblk",
    "parse_mdstat": "mdstat",
    "parse_neuron_ls_json": "neuron",
    "parse_nvidia_driver_version": "collector",
    "parse_nvidia_smi_list": "nvidia_list",
    "parse_nvidia_smi_topo": "nvidia_topo",
    "parse_nvidia_smi_xml": "nvidia_xml",
    "parse_os_release": "collector",
    "parse_pid_cgroups": "cgroups",
    "parse_query_gpu_csv": "nvidia_csv",
    "parse_saved_output": "saved",
    "pod_uid_of_cgroup_path": "cgroups",
    "split_sections": "collector",
}


def __getattr__(name: str) -> Any:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "COLLECTOR_VERSION",
    "QUERY_GPU_FIELDS",
    "QUERY_GPU_FIELDS_BASIC",
    "SECTION_NAMES",
    "BlockDevice",
    "ComputeApp",
    "EccInfo",
    "Gpu",
    "GpuProcess",
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
    "ProbeParseError",
    "ProbeResult",
    "RaidDevice",
    "RemappedRows",
    "RetiredPages",
    "Section",
    "TopoLink",
    "TopoNic",
    "TopoRow",
    "Topology",
    "decode_clock_event_reasons",
    "parse_collector_output",
    "parse_compute_apps_csv",
    "parse_findmnt_json",
    "parse_kernel_release",
    "parse_lsblk_json",
    "parse_lsblk_pairs",
    "parse_mdstat",
    "parse_neuron_ls_json",
    "parse_nvidia_driver_version",
    "parse_nvidia_smi_list",
    "parse_nvidia_smi_topo",
    "parse_nvidia_smi_xml",
    "parse_os_release",
    "parse_pid_cgroups",
    "parse_query_gpu_csv",
    "parse_saved_output",
    "pod_uid_of_cgroup_path",
    "split_sections",
]
