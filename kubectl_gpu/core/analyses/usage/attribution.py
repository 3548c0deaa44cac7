"""Which pod holds which GPU, and how busy each pod's GPUs were. Pure.

A GPU is attributed to the pods the DCGM exporter names in its `pod`/`namespace` labels (the GPU
Operator's kubelet pod-resources join: "exporter"). Without them the device plugin's allocation decides
what it can: a pod that holds every GPU of its node has the node's GPUs ("allocation"); when every
measured GPU of a node is below the threshold, any pod on it is below it too, and its figure is the
node's highest ("node-max", an upper bound). Otherwise the pod's utilisation is unknown: the exporter
does not say which of the node's GPUs are its.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow, usage_fraction
from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.analyses.usage.report import ZERO, GpuUsage, Workload
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.usage.rates import gauge_mean
from kubectl_gpu.core.usage.window import GpuWindow

__all__ = ["PodFigures", "gpu_pods", "gpu_rows", "held_by", "pod_figures", "workload_of"]

_TEMPLATE_HASH = "pod-template-hash"


def workload_of(pod: Pod) -> Workload:
    """The pod's workload: a ReplicaSet's Deployment (its name less `-<pod-template-hash>`), else its owner."""
    kind, name = pod.meta.owner_kind, pod.meta.owner_name
    namespace = pod.namespace
    if kind == "ReplicaSet" and name:
        template = pod.meta.labels.get(_TEMPLATE_HASH)
        if template and name.endswith(f"-{template}"):
            return Workload(namespace, "Deployment", name[: -len(template) - 1])
        return Workload(namespace, "ReplicaSet", name)
    if kind and name:
        return Workload(namespace, kind, name)
    return Workload(namespace, "Pod", pod.name)


def gpu_pods(pods: Sequence[Pod]) -> list[Pod]:
    """The running pods that hold accelerators (device plugin requests, or DRA claims)."""
    return [p for p in pods if not p.terminated and (accelerator_requests(p.requests) or p.resource_claims)]


def held_by(row: NodeRow, pod: Pod) -> Decimal:
    """The GPUs (in the node's primary resource units) the pod's requests take."""
    acc = row.accelerator
    if acc is None:
        return ZERO
    usages = [u for u in (acc, *row.other_resources) if u is not None]
    return usage_fraction(usages, pod.requests) * acc.paid


def gpu_rows(windows: Sequence[GpuWindow], held_all: Pod | None) -> list[GpuUsage]:
    """The node's measured GPUs, each with the pods that hold it and how that is known."""
    rows = []
    for w in windows:
        if w.pods:
            pods, how = tuple(f"{p.namespace}/{p.name}" for p in w.pods), "exporter"
        elif held_all is not None:
            pods, how = (f"{held_all.namespace}/{held_all.name}",), "allocation"
        else:
            pods, how = (), None
        rows.append(
            GpuUsage(
                node=w.node,
                index=w.index,
                uuid=w.uuid,
                model=w.model,
                mig_profile=w.mig_profile,
                source=w.source,
                util_percent=w.util_percent,
                util_field=w.util_field,
                samples=w.samples,
                memory_used_mib=w.memory_used_mib,
                memory_total_mib=w.memory_total_mib,
                power_w=w.power_w if w.power_w is not None else w.energy_power_w,
                pods=pods,
                attribution=how,
                mig_instance=w.key[1] or None,
            )
        )
    return rows


class PodFigures(msgspec.Struct, frozen=True):
    util_percent: float | None
    attribution: str | None
    memory_used_mib: float | None
    source: str


def pod_figures(pod: Pod, gpus: Sequence[GpuUsage], idle_below: float) -> PodFigures:
    """How busy the pod's GPUs were over the window, and how that is known (module docstring)."""
    if not gpus:
        return PodFigures(None, None, None, "allocation-only")
    source = gpus[0].source
    key = f"{pod.namespace}/{pod.name}"
    own = [g for g in gpus if key in g.pods]
    if own:
        how = own[0].attribution
        memory = max((g.memory_used_mib for g in own if g.memory_used_mib is not None), default=None)
        return PodFigures(gauge_mean(g.util_percent for g in own), how, memory, source)
    known = [g.util_percent for g in gpus if g.util_percent is not None]
    unattributed = all(not g.pods for g in gpus)
    if known and unattributed and max(known) < idle_below:
        return PodFigures(max(known), "node-max", None, source)
    return PodFigures(None, None, None, source)
