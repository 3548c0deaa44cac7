"""Which provisioner a cluster or a NodePool answers to: EKS Auto Mode or self-managed Karpenter."""

from __future__ import annotations

from kubectl_gpu.core.catalog import Provider
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["cluster_provider"]


def cluster_provider(state: ClusterState) -> Provider:
    """Auto Mode when any node, NodePool or NodeClass says so; self-managed Karpenter otherwise."""
    if any(n.labels.get("eks.amazonaws.com/compute-type") == "auto" for n in state.nodes):
        return "auto"
    if any(c.kind == "NodeClass" for c in state.nodeclasses):
        return "auto"
    if any(p.node_class_ref and p.node_class_ref.group == "eks.amazonaws.com" for p in state.nodepools):
        return "auto"
    return "karpenter"
