"""A pod's scheduling shape: everything the target evaluation depends on, hashable.

Thousands of Pending pods usually share a handful of shapes (one Deployment, one shape), so each shape is
evaluated against each target once.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.resources import EFA_RESOURCE, accelerator_requests
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.placement import NO_PLACEMENT, Placement
from kubectl_gpu.core.scheduling.affinity import (
    NodeAffinity,
    PodSchedulingRequirements,
    scheduling_requirements,
)
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import Toleration

__all__ = ["PodShape", "shape_key_of", "shape_of"]


class PodShape(msgspec.Struct, frozen=True):
    key: tuple[Any, ...]
    requests: dict[str, Decimal]  # accelerators, EFA, cpu, memory
    accelerators: dict[str, Decimal]
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    node_affinity: NodeAffinity
    requirements: PodSchedulingRequirements | None
    requirement_error: str | None
    # What only some pods have (host ports, spread, pod affinity, claims): with it, the pod's namespace and
    # labels decide too (who it selects, who selects it), and they are part of the key; without it, they
    # matter only where a placed pod's anti-affinity may select it (see `_Analyser.evaluate`).
    placement: Placement = NO_PLACEMENT
    namespace: str = ""
    labels: tuple[tuple[str, str], ...] = ()
    ephemeral_storage: Decimal = Decimal(
        0
    )  # requests.ephemeral-storage, not in `requests` (see targets/pools/fit.py)
    # Every other resource the pod requests but accelerators (extended resources such as EFA, hugepages-*):
    # kube-scheduler's NodeResourcesFit checks each against an existing node (targets/nodes/checks.py).
    scalars: tuple[tuple[str, Decimal], ...] = ()
    # The pod has DRA ResourceClaims: a node offers when it publishes accelerator devices in ResourceSlices
    # (the NVIDIA DRA driver's gpu.nvidia.com, ...), whether or not it advertises nvidia.com/gpu (issue 37).
    claims: bool = False

    @property
    def wants_accelerator(self) -> bool:
        return bool(self.accelerators)


_RELEVANT = ("cpu", "memory", EFA_RESOURCE)
_NOT_SCALAR = frozenset({"cpu", "memory", "ephemeral-storage", "storage", "pods"})


def _scalars(pod: Pod, accelerators: dict[str, Decimal]) -> tuple[tuple[str, Decimal], ...]:
    """noderesources `fitsRequest`'s scalar resources of the pod (non-zero), accelerators left out."""
    return tuple(
        sorted(
            (name, value)
            for name, value in pod.requests.items()
            if value > 0 and name not in _NOT_SCALAR and name not in accelerators
        )
    )


def _requests(pod: Pod) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    accelerators = accelerator_requests(pod.requests)
    requests = dict(accelerators)
    for name in _RELEVANT:
        if pod.requests.get(name):
            requests[name] = pod.requests[name]
    return requests, accelerators


def _key(pod: Pod, requests: dict[str, Decimal], accelerators: dict[str, Decimal]) -> tuple[Any, ...]:
    placement = pod.placement
    return (
        tuple(sorted(requests.items())),
        pod.tolerations,
        tuple(sorted(pod.node_selector.items())),
        pod.node_affinity,
        placement,
        (pod.namespace, tuple(sorted(pod.meta.labels.items()))) if placement else None,
        pod.requests.get("ephemeral-storage", Decimal(0)),
        _scalars(pod, accelerators),
        bool(pod.resource_claims),  # DRA claims: the nodes that publish devices are the ones that offer
    )


def shape_key_of(pod: Pod) -> tuple[Any, ...]:
    """`shape_of(pod).key`, without reading the requirements (a pod's key is asked for per pod)."""
    return _key(pod, *_requests(pod))


def shape_of(pod: Pod) -> PodShape:
    requests, accelerators = _requests(pod)
    placement = pod.placement
    key = _key(pod, requests, accelerators)
    try:
        reqs: PodSchedulingRequirements | None = scheduling_requirements(pod.node_selector, pod.node_affinity)
        error = None
    except RequirementError as exc:
        reqs, error = None, str(exc)
    return PodShape(
        key,
        requests,
        accelerators,
        pod.tolerations,
        pod.node_selector,
        pod.node_affinity,
        reqs,
        error,
        placement,
        pod.namespace,
        tuple(sorted(pod.meta.labels.items())),
        pod.requests.get("ephemeral-storage", Decimal(0)),
        key[7],
        key[8],
    )
