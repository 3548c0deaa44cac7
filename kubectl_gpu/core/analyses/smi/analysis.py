"""What the collector found: whether the container saw a device, GPU health findings, and one node's
`smi` result with its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core import report
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.compared import hashed_without
from kubectl_gpu.core.debugpod.kinds import Accelerator
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe import ProbeResult
from kubectl_gpu.core.probe.attribution import (
    ProcessPod,
    attribute_processes,
    attribution_notes,
    cgroups_problem,
)
from kubectl_gpu.core.probe.models import Gpu, JsonValue
from kubectl_gpu.core.probe.nvidia_errors import NVIDIA_SMI_ERROR

__all__ = [
    "MIG_RESERVED_MAX_MIB",
    "Finding",
    "ProbeHealthReport",
    "SmiResult",
    "analyse",
    "findings",
    "mig_reservation_only",
    "sees_accelerator",
    "unseen_reason",
]


def sees_accelerator(result: ProbeResult, accelerator: Accelerator) -> bool:
    if accelerator is Accelerator.NEURON:
        return result.neuron is not None and bool(result.neuron.devices)
    return bool(result.gpus)


def unseen_reason(result: ProbeResult, accelerator: Accelerator) -> str:
    """Why the collector found no device, from the first failing tool section."""
    names = ("neuron-ls",) if accelerator is Accelerator.NEURON else ("nvidia-smi-xml", "nvidia-smi-list")
    for issue in result.issues:
        if issue.section in names:
            return issue.message
    return "the tools ran but listed no device"


class Finding(msgspec.Struct, frozen=True):
    """A GPU health problem in nvidia-smi's output. `error` findings make `smi` exit 1."""

    code: str
    severity: str  # error | warning
    gpu: int | None
    message: str

    def to_dict(self) -> dict[str, JsonValue]:
        return {"code": self.code, "severity": self.severity, "gpu": self.gpu, "message": self.message}


_GPU_SECTIONS = ("nvidia-smi-xml", "nvidia-smi-csv", "nvidia-smi-list")
_SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


def findings(result: ProbeResult) -> tuple[Finding, ...]:
    """Health findings per GPU: uncorrectable ECC, row-remap failure/pending, pending page retirement,
    NVML error values (GPU lost / requires reset), hardware slowdowns, a pending MIG change; and
    `NVIDIA_SMI_FAILED` when the driver is there but nvidia-smi could not list any GPU (after an XID 79
    "fallen off the bus", every call fails with "GPU is lost")."""
    out = _node_findings(result)
    for gpu in result.gpus:
        i = gpu.index
        ecc = gpu.ecc
        if ecc is not None and (ecc.volatile_uncorrectable or 0) > 0:
            out.append(
                Finding(
                    "ECC_UNCORRECTABLE",
                    "error",
                    i,
                    f"GPU {i}: {ecc.volatile_uncorrectable} uncorrectable ECC errors since the driver loaded",
                )
            )
        rows = gpu.remapped_rows
        if rows is not None and rows.failure:
            out.append(Finding("ROW_REMAP_FAILURE", "error", i, f"GPU {i}: row remapping failed; replace it"))
        if rows is not None and rows.pending:
            out.append(
                Finding("ROW_REMAP_PENDING", "error", i, f"GPU {i}: row remapping pending; reset the GPU")
            )
        pages = gpu.retired_pages
        if pages is not None and pages.pending:
            out.append(
                Finding(
                    "PAGE_RETIREMENT_PENDING", "error", i, f"GPU {i}: page retirement pending; reset the GPU"
                )
            )
        for error in gpu.errors:
            out.append(Finding("GPU_ERROR", "error", i, f"GPU {i}: nvidia-smi reports {error!r}"))
        slow = [r for r in gpu.clock_event_reasons if r in _SLOWDOWNS]
        if slow:
            out.append(Finding("CLOCK_SLOWDOWN", "warning", i, f"GPU {i}: clocks slowed: {', '.join(slow)}"))
        if gpu.mig_mode_pending and gpu.mig_mode and gpu.mig_mode_pending != gpu.mig_mode:
            out.append(
                Finding(
                    "MIG_CHANGE_PENDING",
                    "warning",
                    i,
                    f"GPU {i}: MIG mode {gpu.mig_mode} -> {gpu.mig_mode_pending} waits for a GPU reset",
                )
            )
    return tuple(out)


#: The memory a MIG-enabled GPU shows in use with no process on it: MIG's own reservation. Real idle
#: captures (tests/fixtures/probe, nvidia_gpu_exporter, driver 590.48.01): H100 80GB HBM3 with 4 instances
#: 59 MiB, H200 with 5 instances 55 MiB, "Processes: None"; the same boards with MIG disabled: 0 MiB.
#: A CUDA context alone takes hundreds of MiB, so up to this much is no sign of a process.
MIG_RESERVED_MAX_MIB = 64


def mig_reservation_only(gpu: Gpu) -> bool:
    """A MIG-enabled GPU whose memory in use is no more than MIG's own reservation."""
    used = gpu.memory_used_mib
    return gpu.mig_mode == "Enabled" and used is not None and used <= MIG_RESERVED_MAX_MIB


def _node_findings(result: ProbeResult) -> list[Finding]:
    """What is wrong with nvidia-smi's view of the node as a whole: it fails (its own error text, or a
    failing section while the driver is loaded), it lists fewer GPUs than it counts as attached, or GPU
    memory is in use by processes that could not be read."""
    out: list[Finding] = []
    said = [i for i in result.issues if i.kind == NVIDIA_SMI_ERROR]
    failed = said or [i for i in result.issues if i.section in _GPU_SECTIONS and i.kind == "failed"]
    if not result.gpus and failed and (said or result.driver_version or result.kernel_driver is not None):
        out.append(
            Finding("NVIDIA_SMI_FAILED", "error", None, f"nvidia-smi fails on this node: {failed[0].message}")
        )
    attached, listed = result.attached_gpus, len(result.gpus)
    if attached is not None and result.gpus and listed < attached:
        # Our collector asks for every GPU; a saved `nvidia-smi -q -x -i 0` lists one of its attached GPUs.
        ours = result.collector_version is not None
        out.append(
            Finding(
                "GPU_MISSING",
                "error" if ours else "warning",
                None,
                f"nvidia-smi counts {attached} attached GPUs but lists {listed}: {attached - listed} cannot be "
                "reached (fallen off the bus, or lost; see dmesg for XID 79)"
                + ("" if ours else ", unless the output was asked for some GPUs only (-i)"),
            )
        )
    busy = [
        g
        for g in result.gpus
        if not g.processes_known and (g.memory_used_mib or 0) > 0 and not mig_reservation_only(g)
    ]
    if busy:
        used = sum(g.memory_used_mib or 0 for g in busy)
        out.append(
            Finding(
                "GPU_PROCESSES_UNKNOWN",
                "warning",
                None,
                f"{len(busy)} GPUs use {used} MiB of memory, but their processes could not be read "
                f"(GPU facts from {result.gpu_source or 'an unknown source'}): unknown, not none",
            )
        )
    return out


#: Issues of the XML section that left it unread (the GPU facts then come from CSV or `-L`, with no processes).
_UNREAD = ("parse", "failed", "empty", "missing", "truncated")


def read_notes(result: ProbeResult) -> list[str]:
    """What was not read as nvidia-smi wrote it: an XML document recovered from what made it ill-formed (a
    control character in a process name), and GPUs whose processes are unknown, with why."""
    notes = [f"nvidia-smi's {i.message}" for i in result.issues if i.kind == "recovered"]
    unknown = [gpu.index for gpu in result.gpus if not gpu.processes_known]
    if unknown:
        xml = next((i for i in result.issues if i.section == "nvidia-smi-xml" and i.kind in _UNREAD), None)
        why = f"the nvidia-smi XML could not be read ({xml.message}); " if xml is not None else ""
        which = "every GPU" if len(unknown) == len(result.gpus) else f"GPU {', '.join(map(str, unknown))}"
        notes.append(
            f"processes of {which} unknown (PROCS ?), not none: {why}GPU facts from "
            f"{result.gpu_source or 'an unknown source'}, which lists no processes"
        )
    return notes


@hashed_without("pods")
class SmiResult(msgspec.Struct, frozen=True):
    """One node's `smi` outcome: the parsed collector output, or the error that prevented it."""

    node: str | None
    strategy: str | None
    probe: ProbeResult | None
    error: str | None = None
    raw: str | None = None
    notes: tuple[str, ...] = ()
    image: str | None = None
    #: The node's pods, UID -> `namespace/name` (see `attribution.pod_names_by_uid`); None: no pod list.
    pods: Mapping[str, str] | None = None
    #: Why there is no pod list (`pods` is None), for the note on processes left without a pod.
    pods_unknown: str | None = None
    #: `error` says data is missing (a snapshot without a probe of the node), not that the node failed:
    #: "could not look" (exit 4), never a cluster error (exit 3).
    missing: bool = False

    @property
    def findings(self) -> tuple[Finding, ...]:
        return findings(self.probe) if self.probe is not None else ()

    def attribution(self) -> tuple[ProcessPod, ...]:
        """The pod of every process (GPU, MIG, Neuron), or why it has none."""
        return attribute_processes(self.probe, self.pods) if self.probe is not None else ()

    def process_pods(self) -> dict[int, str]:
        """PID -> `namespace/name` of the processes attributed to a pod."""
        return {p.pid: p.pod for p in self.attribution() if p.pid is not None and p.pod is not None}

    @property
    def processes_unknown(self) -> bool:
        """Whether some GPU's processes could not be read (the XML failed and the GPU facts came from a source
        that lists none): the node's status is then `partial`, never `ok`, and a note says why."""
        return self.probe is not None and any(not gpu.processes_known for gpu in self.probe.gpus)

    def all_notes(self) -> tuple[str, ...]:
        notes = list(self.notes)
        if self.probe is not None:
            notes += read_notes(self.probe)
            notes += attribution_notes(
                self.attribution(),
                section_problem=cgroups_problem(self.probe),
                pods_problem=self.pods_unknown,
            )
        return tuple(notes)

    def to_dict(self) -> dict[str, JsonValue]:
        """The `SmiReport` result: the contract keys first, then findings, notes and tool issues."""
        probe = self.probe
        pods = self.process_pods()
        out: dict[str, JsonValue] = {
            "node": self.node,
            "strategy": self.strategy,
            "driverVersion": probe.driver_version if probe else None,
            "cudaVersion": probe.cuda_version if probe else None,
            "gpus": [g.to_dict(detail=True, pods=pods) for g in probe.gpus] if probe else [],
            "error": self.error,
        }
        if probe is not None and probe.neuron is not None:
            out["neuronDevices"] = [
                {
                    "index": d.index,
                    "ncCount": d.nc_count,
                    "memoryBytes": d.memory_bytes,
                    "bdf": d.bdf,
                    "processes": [
                        {
                            "pid": p.pid,
                            "command": p.command,
                            "pod": None if p.pid is None else pods.get(p.pid),
                        }
                        for p in d.processes
                    ],
                }
                for d in probe.neuron.devices
            ]
        out["image"] = self.image
        out["findings"] = [f.to_dict() for f in self.findings]
        out["notes"] = list(self.all_notes())
        out["issues"] = [i.to_dict() for i in probe.issues] if probe else []
        return out


class ProbeHealthReport(msgspec.Struct, report.ReportBase, frozen=True):
    """GPU health read by nvidia-smi in debug pods, from the probes `snapshot --probe` stored (diagnose)."""

    kind: ClassVar[str] = "ProbeHealthReport"
    findings: tuple[report.Finding, ...]

    def body(self) -> dict[str, Any]:
        return {"findings": [f.to_dict() for f in self.findings]}


def analyse(state: ClusterState, catalog: Catalog, now: datetime) -> ProbeHealthReport:
    out = []
    for node in state.nodes:
        probe = state.probe(node.name)
        if probe is None:
            continue
        for found in findings(probe):
            where = (
                f"GPU {found.gpu}: " if found.gpu is not None and not found.message.startswith("GPU") else ""
            )
            out.append(
                report.Finding(
                    found.code,
                    report.Severity(found.severity),
                    report.ObjectRef("Node", node.name),
                    where + found.message,
                    f"kubectl gpu smi {node.name} for the current state; kubectl gpu shell {node.name} for dmesg",
                    "smi",
                )
            )
    return ProbeHealthReport(tuple(out))
