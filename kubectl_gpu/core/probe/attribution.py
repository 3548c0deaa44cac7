"""Which pod a GPU process runs in: its cgroup gives the pod's UID (the collector's ``pid-cgroups`` section),
the node's pods give the UID a name. Pure: the pods come in as models, the cgroups as a parsed probe.

A process that stays unattributed says why (:class:`Unattributed`), and :func:`attribution_notes` turns the
reasons into the notes `kubectl gpu smi` prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

import msgspec

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.probe import ProbeResult

__all__ = [
    "ATTRIBUTION_NOTE",
    "MIRROR_POD_ANNOTATION",
    "PID_CGROUPS_SECTION",
    "ProcessPod",
    "Unattributed",
    "attribute",
    "attribute_processes",
    "attribution_notes",
    "cgroups_problem",
    "pod_names_by_uid",
    "process_pids",
]

#: How every note about unattributed processes begins.
ATTRIBUTION_NOTE = "process pods are null"
#: A mirror pod carries the UID of its static pod (the hash the kubelet names the pod's cgroup by) here.
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
PID_CGROUPS_SECTION = "pid-cgroups"
_PID_LIMIT = 8


class Unattributed(StrEnum):
    """Why a process has no pod."""

    #: nvidia-smi (or neuron-ls) gave no PID for the process.
    NO_PID = "no-pid"
    #: The output has no usable ``pid-cgroups`` section (an older collector, plain nvidia-smi output, a failure).
    NO_SECTION = "no-section"
    #: The PID is not in a pod's cgroup: a process of the node itself, or one that exited meanwhile.
    NOT_IN_POD = "not-in-pod"
    #: The pod UID is known but there is no pod list to name it by (``--from-file``, listing forbidden).
    NO_POD_LIST = "no-pod-list"
    #: The pod UID is not among the node's pods (deleted since, or a static pod without its mirror pod).
    POD_NOT_LISTED = "pod-not-listed"


#: Reasons that hold for a whole node rather than for single processes.
_NODE_WIDE = frozenset({Unattributed.NO_SECTION, Unattributed.NO_POD_LIST})


class ProcessPod(msgspec.Struct, frozen=True):
    """One process: its pod UID (from its cgroup) and ``namespace/name``, or why there is none."""

    pid: int | None
    uid: str | None = None
    pod: str | None = None
    why: Unattributed | None = None


def pod_names_by_uid(pods: Iterable[Pod]) -> dict[str, str]:
    """Pod UID -> ``namespace/name``; a mirror pod also under its static pod's UID, which its cgroup carries."""
    out: dict[str, str] = {}
    for pod in pods:
        name = f"{pod.namespace}/{pod.name}"
        if pod.meta.uid:
            out.setdefault(pod.meta.uid.lower(), name)
        mirror = pod.meta.annotations.get(MIRROR_POD_ANNOTATION)
        if mirror:
            out.setdefault(mirror.lower(), name)
    return out


def cgroups_problem(probe: ProbeResult) -> str | None:
    """Why the probe's ``pid_pods`` may lack processes that do run in pods; ``None`` when the section was read."""
    if probe.section(PID_CGROUPS_SECTION) is None:
        return (
            "the collector output has no pid-cgroups section (saved by an older kubectl-gpu, or plain nvidia-smi "
            "output), so host PIDs cannot be matched to pods"
        )
    for issue in probe.issues:
        if issue.section == PID_CGROUPS_SECTION and issue.kind in ("failed", "parse", "truncated"):
            return f"the collector's pid-cgroups section failed ({issue.message})"
    return None


def attribute(
    pid: int | None,
    pid_pods: Mapping[int, str],
    pods: Mapping[str, str] | None,
    *,
    section_problem: str | None = None,
) -> ProcessPod:
    """The pod of process ``pid``: ``pid_pods`` (PID -> pod UID) then ``pods`` (UID -> ``namespace/name``,
    ``None`` when there is no pod list). ``section_problem``: see :func:`cgroups_problem`."""
    if pid is None:
        return ProcessPod(None, why=Unattributed.NO_PID)
    uid = pid_pods.get(pid)
    if uid is None:
        return ProcessPod(pid, why=Unattributed.NO_SECTION if section_problem else Unattributed.NOT_IN_POD)
    if pods is None:
        return ProcessPod(pid, uid, why=Unattributed.NO_POD_LIST)
    name = pods.get(uid.lower())
    if name is None:
        return ProcessPod(pid, uid, why=Unattributed.POD_NOT_LISTED)
    return ProcessPod(pid, uid, name)


def process_pids(probe: ProbeResult) -> tuple[int | None, ...]:
    """Every process the probe lists (GPUs, their MIG devices, Neuron devices), each PID once, in order."""
    pids: dict[int | None, None] = {}
    for gpu in probe.gpus:
        for proc in gpu.processes:
            pids[proc.pid] = None
        for mig in gpu.mig_devices:
            for proc in mig.processes:
                pids[proc.pid] = None
    if probe.neuron is not None:
        for device in probe.neuron.devices:
            for neuron_proc in device.processes:
                pids[neuron_proc.pid] = None
    return tuple(pids)


def attribute_processes(probe: ProbeResult, pods: Mapping[str, str] | None) -> tuple[ProcessPod, ...]:
    """:func:`attribute` for every process of the probe."""
    problem = cgroups_problem(probe)
    return tuple(attribute(pid, probe.pid_pods, pods, section_problem=problem) for pid in process_pids(probe))


def _pids(found: Sequence[ProcessPod]) -> str:
    pids = [str(p.pid) for p in found if p.pid is not None]
    shown = ", ".join(pids[:_PID_LIMIT])
    more = f" and {len(pids) - _PID_LIMIT} more" if len(pids) > _PID_LIMIT else ""
    return f"PID{'s' if len(pids) > 1 else ''} {shown}{more}"


def attribution_notes(
    processes: Sequence[ProcessPod],
    *,
    section_problem: str | None = None,
    pods_problem: str | None = None,
) -> tuple[str, ...]:
    """One note per reason some processes have no pod, in :class:`Unattributed` order; none when every
    process was attributed. ``pods_problem``: why there is no pod list (for ``NO_POD_LIST``)."""
    by_reason: dict[Unattributed, list[ProcessPod]] = {}
    for proc in processes:
        if proc.why is not None:
            by_reason.setdefault(proc.why, []).append(proc)
    notes: list[str] = []
    for why in Unattributed:
        found = by_reason.get(why)
        if not found:
            continue
        # A reason of the whole node (no section, no pod list) reads the same on every node: no PIDs then.
        which = "" if len(found) == len(processes) and why in _NODE_WIDE else f" for {_pids(found)}"
        if why is Unattributed.NO_PID:
            notes.append(f"{ATTRIBUTION_NOTE} for processes without a PID (the tool reported none)")
        elif why is Unattributed.NO_SECTION:
            problem = section_problem or "the collector read no cgroups"
            notes.append(f"{ATTRIBUTION_NOTE}{which}: {problem}")
        elif why is Unattributed.NOT_IN_POD:
            notes.append(
                f"{ATTRIBUTION_NOTE}{which}: not in a pod's cgroup (a process of the node itself, or one that "
                "exited before its cgroup was read)"
            )
        elif why is Unattributed.NO_POD_LIST:
            problem = pods_problem or "there is no pod list to name their pod UIDs by"
            notes.append(f"{ATTRIBUTION_NOTE}{which}: {problem}")
        else:
            uids = ", ".join(dict.fromkeys(p.uid for p in found if p.uid))
            notes.append(
                f"{ATTRIBUTION_NOTE}{which}: pod UID {uids} is not in the node's pod list (deleted since, or a "
                "static pod without its mirror pod)"
            )
    return tuple(notes)
