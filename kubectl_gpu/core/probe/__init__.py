"""Pure parsers for what the GPU debug pod collects: nvidia-smi (XML, CSV, ``-L``, ``topo -m``), lsblk,
/proc/mdstat, findmnt, neuron-ls, the cgroups of GPU processes, and the collector script's sectioned output
that carries them all.

Every parser takes ``str`` or ``bytes`` and returns a frozen dataclass from :mod:`.models`, or raises
:class:`ProbeParseError` (a ``ValueError``) with a one-line message; nothing here does I/O.
"""

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
