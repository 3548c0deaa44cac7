"""Which Kubernetes resources, labels and DRA drivers mean "an accelerator", and how to name its model."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Generic, TypeVar

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "ACCELERATOR_RESOURCES",
    "PerRequests",
    "accelerator_requests",
    "is_accelerator_dra_driver",
    "is_accelerator_resource",
    "model_from_labels",
    "short_gpu_name",
]

# Device-plugin resources that stand for an accelerator. MIG profiles (nvidia.com/mig-1g.10gb) are
# matched by prefix. EFA is not an accelerator by itself: it only matters alongside one of these.
ACCELERATOR_RESOURCES = frozenset(
    {
        "nvidia.com/gpu",
        "nvidia.com/gpu.shared",
        "aws.amazon.com/neuron",
        "aws.amazon.com/neuroncore",
        "aws.amazon.com/neurondevice",
        "amd.com/gpu",
        "habana.ai/gaudi",
    }
)
EFA_RESOURCE = "vpc.amazonaws.com/efa"

# Preference when a node exposes several accelerator resources (Neuron nodes expose devices and cores).
_PRIMARY_ORDER = (
    "nvidia.com/gpu",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neurondevice",
    "amd.com/gpu",
    "habana.ai/gaudi",
    "nvidia.com/gpu.shared",
    "aws.amazon.com/neuroncore",
)


def is_accelerator_resource(name: str) -> bool:
    return name in ACCELERATOR_RESOURCES or name.startswith("nvidia.com/mig-")


def accelerator_requests(resources: Mapping[str, Decimal]) -> dict[str, Decimal]:
    """The accelerator part of a ResourceList (zero entries dropped)."""
    return {k: v for k, v in resources.items() if v > 0 and is_accelerator_resource(k)}


_T = TypeVar("_T")


class PerRequests(Generic[_T]):
    """`read(requests)`, once per requests object: the replicas of a template share theirs
    (`parse/pods_fast.py`; 20,400 pods hold 24 on bench's `small`), so a question asked of every pod of a
    fleet is answered a few dozen times. Each object is kept with its answer: its id is not reused while the
    answer may be read."""

    __slots__ = ("_found", "_read")

    def __init__(self, read: Callable[[Mapping[str, Decimal]], _T]) -> None:
        self._read = read
        self._found: dict[int, tuple[Mapping[str, Decimal], _T]] = {}

    def __call__(self, requests: Mapping[str, Decimal]) -> _T:
        found = self._found.get(id(requests))
        if found is None or found[0] is not requests:
            found = self._found[id(requests)] = (requests, self._read(requests))
        return found[1]


def primary_resource(resources: Mapping[str, Decimal]) -> str | None:
    """The resource that best stands for a node's accelerators: a whole-GPU resource before MIG slices."""
    present = [k for k, v in resources.items() if v > 0 and is_accelerator_resource(k)]
    if not present:
        return None
    for name in _PRIMARY_ORDER:
        if name in present:
            return name
    return max(sorted(present), key=lambda k: resources[k])


def is_accelerator_dra_driver(driver: str) -> bool:
    """DRA drivers that publish accelerators (gpu.nvidia.com, gpu.amd.com, neuron drivers, ...)."""
    lowered = driver.lower()
    return "gpu" in lowered or "neuron" in lowered or "gaudi" in lowered


_PRODUCT_PREFIXES = ("nvidia-", "tesla-", "nvidia ", "tesla ")
_NAME_TOKEN = lazy_pattern(r"[a-z]+[0-9]+[a-z]*|[a-z]+")


def short_gpu_name(product: str) -> str:
    """Short lower-case model name from a product string, as the instance labels spell it.

    "NVIDIA-H100-80GB-HBM3" -> "h100", "Tesla-T4" -> "t4", "NVIDIA L40S" -> "l40s", "A100-SXM4-40GB" -> "a100".
    """
    lowered = product.strip().lower()
    for prefix in _PRODUCT_PREFIXES:
        if lowered.startswith(prefix):
            lowered = lowered[len(prefix) :]
            break
    first = re.split(r"[-\s_]", lowered, maxsplit=1)[0]
    return first or lowered


# Instance labels that carry the accelerator model, most specific first.
_MODEL_LABELS = (
    "eks.amazonaws.com/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-name",
    "eks.amazonaws.com/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-name",
)


def model_from_labels(labels: Mapping[str, str]) -> str | None:
    for key in _MODEL_LABELS:
        value = labels.get(key)
        if value:
            return value
    product = labels.get("nvidia.com/gpu.product")
    return short_gpu_name(product) if product else None
