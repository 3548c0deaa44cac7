"""Checks of a static-capacity NodePool (`spec.replicas`: Karpenter's static capacity, EKS Auto Mode's too).

kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go (the NodePool's CEL rules and field docs): a static pool
may set only `limits.nodes` ("only 'limits.nodes' is supported on static NodePools") and no `weight`
("'weight' is not supported on static NodePools"): the API server refuses either. Its
`disruption.consolidationPolicy` and `consolidateAfter` "are ignored": a static pool is never consolidated
(`karpenter.settings.is_static`), so a value there promises what Karpenter will not do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubectl_gpu.core.analyses.lint.facts import format_resource
from kubectl_gpu.core.report import Severity

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.lint.pools import PoolLint

__all__ = ["static_checks"]


def static_checks(lint: PoolLint) -> None:
    """The fields a static pool may not set (error) or sets for nothing (info)."""
    pool = lint.pool
    if pool.replicas is None:
        return
    refused = []
    others = {r: v for r, v in pool.limits.items() if r != "nodes"}
    if others:
        text = ", ".join(f"{r}={format_resource(v, r)}" for r, v in sorted(others.items()))
        refused.append(f"limits other than nodes ({text})")
    if pool.weight is not None:
        refused.append(f"weight ({pool.weight})")
    if refused:
        lint.add(
            "LINT_STATIC_POOL_FIELD",
            f"NodePool {pool.name} is static (replicas {pool.replicas}) and sets {' and '.join(refused)}: the "
            "karpenter.sh/v1 API refuses a static NodePool with them",
            "remove them; bound a static pool with limits: {nodes: N} only",
        )
    ignored = [
        f"{name}: {value}"
        for name, value in (
            ("consolidationPolicy", pool.consolidation_policy),
            ("consolidateAfter", pool.consolidate_after),
        )
        if value
    ]
    if ignored:
        lint.add(
            "LINT_STATIC_POOL_FIELD",
            f"NodePool {pool.name} is static (replicas {pool.replicas}): its {', '.join(ignored)} is ignored, "
            f"Karpenter never consolidates a static pool (it keeps {pool.replicas} nodes whatever the pods ask)",
            "remove it; lower spec.replicas to pay for fewer nodes",
            Severity.INFO,
        )
