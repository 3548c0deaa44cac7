"""What a node tells us before a debug pod goes on it: its accelerator, and what would stop the pod."""

from __future__ import annotations

from kubectl_gpu.core.debugpod.kinds import Accelerator
from kubectl_gpu.core.k8s.models import Node

__all__ = ["accelerator_of", "is_gke_autopilot", "node_blockers"]

_NEURON_FAMILIES = ("inf1", "inf2", "trn1", "trn2", "trn3")


def accelerator_of(node: Node) -> Accelerator:
    """Neuron when the node advertises Neuron devices or is an Inferentia/Trainium instance; else NVIDIA."""
    resources = {*node.capacity, *node.allocatable}
    if any(r.startswith("aws.amazon.com/neuron") for r in resources):
        return Accelerator.NEURON
    itype = node.labels.get("node.kubernetes.io/instance-type") or node.labels.get(
        "beta.kubernetes.io/instance-type", ""
    )
    if itype.split(".", 1)[0].startswith(_NEURON_FAMILIES):
        return Accelerator.NEURON
    return Accelerator.NVIDIA


def is_gke_autopilot(node: Node) -> bool:
    """GKE Autopilot nodes are called `gk3-...` and carry GKE labels; Autopilot refuses privileged pods."""
    return node.name.startswith("gk3-") and any(k.startswith("cloud.google.com/gke-") for k in node.labels)


def node_blockers(node: Node) -> tuple[list[str], list[str]]:
    """(errors, warnings) known before creating anything on this node."""
    errors: list[str] = []
    warnings: list[str] = []
    ready = node.condition("Ready")
    if ready is None:
        warnings.append(f"node {node.name} reports no Ready condition; its kubelet may not start the pod")
    elif not ready.is_true:
        state = "NotReady" if ready.status == "False" else f"Ready={ready.status}"
        why = f" ({ready.reason})" if ready.reason else ""
        errors.append(f"node {node.name} is {state}{why}: its kubelet would not start the debug pod")
    if node.unschedulable:
        warnings.append(
            f"node {node.name} is cordoned; the debug pod runs anyway (nodeName bypasses the scheduler)"
        )
    return errors, warnings
