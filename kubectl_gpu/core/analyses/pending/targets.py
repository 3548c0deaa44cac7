"""Evaluate one pod shape against one target (a NodePool, or an existing node), the way the provisioner
and kube-scheduler would, and say what blocks it."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.evaluation import Check, TargetEvaluation
from kubectl_gpu.core.analyses.pending.node_target import NodeTarget
from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget

__all__ = ["Check", "NodeTarget", "PoolTarget", "TargetEvaluation"]
