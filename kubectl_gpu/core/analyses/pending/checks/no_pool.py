"""NO_ACCELERATOR_NODEPOOL's fix: a NodePool that can launch the accelerator, as YAML to paste and as the object
it is verified with (verify/verifier.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kubectl_gpu.core.analyses.pending.checks.fixes import (
    nodepool_object,
    nodepool_yaml,
    pool_taint,
    toleration_fix,
)
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.scheduling.instances import capacity_of
from kubectl_gpu.core.scheduling.taints import Taint, untolerated

__all__ = ["NoPoolFix", "no_pool_fix"]

# (the fix as text, the NodePool it proposes (None: none would help), the taints the pod is told to tolerate)
NoPoolFix = tuple[str, dict[str, Any] | None, tuple[Taint, ...]]


def _free_name(state: ClusterState, resource: str) -> str:
    base = "neuron" if "neuron" in resource else ("amd-gpu" if resource.startswith("amd.com/") else "gpu")
    name, n = base, 2
    while name in state.nodepool_by_name:
        name, n = f"{base}-{n}", n + 1
    return name


def no_pool_fix(state: ClusterState, shape: PodShape, catalog: Catalog) -> NoPoolFix:
    resources = sorted(shape.accelerators)
    provider = cluster_provider(state)
    if any(r.startswith("nvidia.com/mig-") for r in resources):
        return (
            f"{', '.join(resources)} exist only on nodes whose GPUs the NVIDIA GPU operator has partitioned; "
            "no provisioner launches them: request nvidia.com/gpu, or partition a node with MIG",
            None,
            (),
        )
    resource = resources[0] if resources else "nvidia.com/gpu"
    count = shape.accelerators.get(resource, Decimal(1))
    families = sorted(
        {
            it.family
            for it in catalog.instance_types
            if capacity_of(it, resource) >= count and it.auto_mode_listed is not False
        }
    )[:4] or ["g6e"]
    taint = Taint(pool_taint(resource), "", "NoSchedule")
    tolerated = not untolerated(shape.tolerations, (taint,))
    fields: dict[str, Any] = {
        "name": _free_name(state, resource),
        "provider": provider,
        "resource": resource,
        "families": families,
        "node_class": "default",
        "count": count,
    }
    pool = nodepool_yaml(**fields)
    prefix = ""
    if not state.nodepools:
        prefix = (
            "no Karpenter NodePools in this cluster: add nodes with this accelerator (a node group with the "
            "device plugin), or use EKS Auto Mode / Karpenter with a NodePool such as:\n"
        )
    else:
        prefix = "create a NodePool that can launch it, e.g.:\n"
    suffix = "" if tolerated else "\nand let the pod tolerate the pool's taint:\n" + toleration_fix((taint,))
    return prefix + pool + suffix, nodepool_object(**fields), () if tolerated else (taint,)
