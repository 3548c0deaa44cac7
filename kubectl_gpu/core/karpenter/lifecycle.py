"""Where a node stands in Karpenter's lifecycle, as seen from its objects.

Rule mirrored from `kubernetes-sigs/karpenter` (read at `pkg/controllers/state/statenode.go` @2266468,
`StateNode.MarkedForDeletion` and `StateNode.Deleted`): a node is deleting when

* the disruption controller marked it (`markedForDeletion`, in Karpenter's memory: it taints the node
  `karpenter.sh/disrupted:NoSchedule` first, `pkg/apis/v1/taints.go`, so the taint is what a snapshot
  shows of it),
* or it has a NodeClaim that has a deletionTimestamp or the `InstanceTerminating` condition,
* or it has no NodeClaim and the Node has a deletionTimestamp.

One difference, on purpose: a Node with a deletionTimestamp counts even when its NodeClaim has none yet.
Karpenter's node termination finalizer deletes the NodeClaim next, so the rule is a moment from agreeing,
and both `lifecycle` and `cost` have always read a deleting Node as deleting.
"""

from __future__ import annotations

from kubectl_gpu.core.k8s.models import Node, NodeClaim

__all__ = ["DISRUPTED_TAINT_KEY", "INSTANCE_TERMINATING", "instance_terminating", "is_deleting"]

DISRUPTED_TAINT_KEY = "karpenter.sh/disrupted"
INSTANCE_TERMINATING = "InstanceTerminating"


def instance_terminating(claim: NodeClaim | None) -> bool:
    """The NodeClaim's instance is being terminated (drained, and the cloud provider asked to delete it)."""
    cond = claim.condition(INSTANCE_TERMINATING) if claim is not None else None
    return cond is not None and cond.is_true


def is_deleting(node: Node, claim: NodeClaim | None) -> bool:
    """Karpenter counts this node as being deleted (see the module docstring for the rule and its source)."""
    if node.meta.deleting or any(t.key == DISRUPTED_TAINT_KEY for t in node.taints):
        return True
    return claim is not None and (claim.meta.deleting or instance_terminating(claim))
