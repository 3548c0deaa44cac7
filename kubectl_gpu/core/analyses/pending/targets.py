"""Evaluate one pod shape against one target (a NodePool, or an existing node), the way the provisioner
and kube-scheduler would, say what blocks it, and rank the targets (`nearness`)."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.evaluation import Check, TargetEvaluation
from kubectl_gpu.core.analyses.pending.node_target import NodeTarget
from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget
from kubectl_gpu.core.analyses.pending.verdicts import POD_SELECTOR_VERDICTS

__all__ = [
    "POD_SELECTOR_VERDICTS",
    "Check",
    "NodeTarget",
    "PoolTarget",
    "TargetEvaluation",
    "excluded_by_pod",
    "nearness",
]


def excluded_by_pod(evaluation: TargetEvaluation) -> bool:
    """The pod's own selector or affinity rules this target out (a blocker of `POD_SELECTOR_VERDICTS`, or
    no instance type satisfying both the pool and the pod's selectors)."""
    return any(
        b.code in POD_SELECTOR_VERDICTS or b.detail.get("podSelector") is True for b in evaluation.blockers
    )


def nearness(evaluation: TargetEvaluation) -> tuple[bool, bool, int, int, int, int, str]:
    """Sort key, nearest first: targets that can offer the accelerator; then targets the pod's selectors
    admit before those they exclude (Karpenter only tries a NodePool whose requirements the pod is
    compatible with: `scheduler.go` `NewNodeClaim(...).Add` fails the others first); then fewest spec
    blockers, fewest capacity blockers, fewest relaxations of the pod before it fits (`Preferences.Relax`
    tries each attempt on every pool before the next), highest weight (Karpenter's NodePool order), name."""
    return (
        not evaluation.offers,
        excluded_by_pod(evaluation),
        evaluation.spec_blockers,
        evaluation.capacity_blockers,
        evaluation.relaxed,
        -evaluation.weight,
        evaluation.target.name,
    )
