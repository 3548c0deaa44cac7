"""What to do about idle GPUs: scale down, right-size to a smaller instance that fits the model's memory,
or share the GPU (MIG where the GPU supports it, else time-slicing). Pure."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.analyses.usage.report import PodUsage, Workload
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.instance_types import InstanceType
from kubectl_gpu.core.catalog.loader import gpu_compute_capabilities

__all__ = ["compute_capability", "idle_fix", "smaller_instance", "supports_mig"]

# GPUs with Multi-Instance GPU (NVIDIA's MIG user guide, "Supported GPUs").
_MIG_GPUS = ("A100", "A30", "H100", "H200", "H20", "B200", "B300", "GB200", "RTX PRO 6000")
_HEADROOM = 1.2  # memory the model used, with room for its KV cache to breathe


def supports_mig(model: str | None) -> bool:
    text = (model or "").upper()
    return any(name in text for name in _MIG_GPUS)


def _scale(workload: Workload) -> str:
    if workload.kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        return (
            f"scale {workload.kind.lower()}/{workload.name} down "
            f"(kubectl scale {workload.kind.lower()} {workload.name} -n {workload.namespace} --replicas=N)"
        )
    if workload.kind == "Pod":
        return f"delete the idle pod (kubectl delete pod {workload.name} -n {workload.namespace})"
    return f"stop {workload.kind.lower()}/{workload.name} when its work is done"


def compute_capability(it: InstanceType | None) -> tuple[int, int] | None:
    """The CUDA compute capability of the instance type's GPU (None: not an NVIDIA GPU the table knows)."""
    if it is None or it.accelerator_manufacturer != "nvidia" or not it.accelerator_name:
        return None
    return gpu_compute_capabilities().get(it.accelerator_name)


def smaller_instance(
    catalog: Catalog,
    gpus: int,
    memory_used_mib: float | None,
    now_per_hour: Decimal | None,
    current: InstanceType,
) -> InstanceType | None:
    """The cheapest NVIDIA instance of `current`'s architecture with `gpus` GPUs or more, each with the memory
    the pod used (plus headroom) and a compute capability at least `current`'s GPU's (an L40S workload is
    never sent to a T4: CUDA code runs on its own compute capability or a higher one), that costs less than
    what the pod's GPUs cost now; None when there is none or too little is known."""
    floor = compute_capability(current)
    if memory_used_mib is None or now_per_hour is None or gpus < 1 or floor is None:
        return None
    needed = memory_used_mib * _HEADROOM
    best: InstanceType | None = None
    for family in catalog.families():
        for it in catalog.by_family(family):
            capability = compute_capability(it)
            if (
                capability is None
                or capability < floor
                or (current.arch is not None and it.arch != current.arch)
                or it.accelerator_count < gpus
                or it.gpu_memory_mib is None
                or it.gpu_memory_mib < needed
                or it.price_usd_per_hour is None
                or Decimal(str(it.price_usd_per_hour)) >= now_per_hour
            ):
                continue
            if best is None or (it.price_usd_per_hour, it.name) < (best.price_usd_per_hour or 0, best.name):
                best = it
    return best


def _capability_text(it: InstanceType) -> str:
    major, minor = compute_capability(it) or (0, 0)
    return f"{major}.{minor}"


def idle_fix(pod: PodUsage, model: str | None, instance_type: str | None, catalog: Catalog) -> str:
    """The fix of a USAGE_IDLE_GPUS finding: each way out that applies, best first."""
    parts = [_scale(pod.workload)]
    held = int(pod.held) if pod.held == pod.held.to_integral_value() else 0
    current = catalog.by_name(instance_type) if instance_type else None
    smaller = (
        smaller_instance(catalog, max(held, 1), pod.memory_used_mib, pod.held_cost_per_hour, current)
        if current is not None
        else None
    )
    if smaller is not None and current is not None:
        parts.append(
            f"or right-size to {smaller.name} ({smaller.accelerator_count} x {smaller.accelerator_name or 'GPU'}, "
            f"{(smaller.gpu_memory_mib or 0) // 1024} GiB each, ${smaller.price_usd_per_hour:.2f}/h list): "
            f"the pod used {pod.memory_used_mib:.0f} MiB per GPU; it keeps compute capability "
            f"{_capability_text(smaller)} >= {_capability_text(current)} ({current.accelerator_name}'s) and the "
            f"{current.arch or 'same'} CPU architecture"
        )
    if supports_mig(model):
        parts.append("or share the GPU with MIG (it supports it) so several small workloads fit on it")
    else:
        parts.append("or share the GPU with time-slicing (the device plugin's sharing.timeSlicing)")
    return "; ".join(parts)
