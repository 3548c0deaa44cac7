"""Frozen result types of the probe parsers, one module per thing probed.

Every parser in this package returns one of these dataclasses. ``to_dict()`` methods give the camelCase JSON
shape the CLI prints; ``Gpu.to_dict()`` and ``GpuProcess.to_dict()`` give exactly the keys of the JSON contract
unless ``detail=True`` is passed.

* :mod:`.values` - the JSON value type, and the normalisation of nvidia-smi's values the parsers share;
* :mod:`.gpu` - nvidia-smi's GPUs, processes, MIG devices, ECC / retired pages / remapped rows, ``-L`` lines;
* :mod:`.topology` - the ``nvidia-smi topo -m`` matrix;
* :mod:`.storage` - lsblk devices, findmnt mounts, ``/proc/mdstat`` arrays;
* :mod:`.neuron` - neuron-ls devices;
* :mod:`.result` - the collector's result for one node, with its sections, issues and host facts.
"""

from .gpu import (
    ComputeApp,
    EccInfo,
    Gpu,
    GpuProcess,
    ListedGpu,
    ListedMigDevice,
    MigDevice,
    NvidiaSmiReport,
    RemappedRows,
    RetiredPages,
)
from .neuron import NeuronDevice, NeuronLs, NeuronProcess
from .result import NvidiaKernelDriver, OsRelease, ProbeIssue, ProbeResult, Section
from .storage import BlockDevice, LsblkReport, MdArray, MdMember, MdStat, MdSync, Mount, RaidDevice
from .topology import TopoLink, Topology, TopoNic, TopoRow
from .values import JsonValue

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
