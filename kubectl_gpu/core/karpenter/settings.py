"""The NodePool/NodeClaim fields that bound a node's life (expireAfter, terminationGracePeriod) and govern
its consolidation (consolidationPolicy, consolidateAfter): the value that applies to a node, and where it came
from: the NodeClaim, the pool, or a documented default."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec

from kubectl_gpu.core.k8s.models import NodeClaim, NodePool
from kubectl_gpu.core.k8s.times import TimeError, parse_duration

__all__ = [
    "AUTO_MODE_BUILTIN_EXPIRE_AFTER",
    "AUTO_MODE_BUILTIN_POOLS",
    "AUTO_MODE_BUILTIN_TGP",
    "AUTO_MODE_MAX_LIFETIME",
    "DEFAULT_CONSOLIDATE_AFTER",
    "DEFAULT_POLICY",
    "KARPENTER_DEFAULT_EXPIRE_AFTER",
    "Setting",
    "consolidate_after_of",
    "consolidation_disabled",
    "consolidation_policy_of",
    "expire_after_of",
    "is_builtin_pool",
    "is_static",
    "never_consolidated",
    "setting_duration",
    "termination_grace_of",
]

AUTO_MODE_MAX_LIFETIME = timedelta(days=21)
KARPENTER_DEFAULT_EXPIRE_AFTER = "720h"
AUTO_MODE_BUILTIN_EXPIRE_AFTER = "336h"
AUTO_MODE_BUILTIN_TGP = "24h0m0s"
AUTO_MODE_BUILTIN_POOLS = ("general-purpose", "system")
DEFAULT_POLICY = "WhenEmptyOrUnderutilized"
DEFAULT_CONSOLIDATE_AFTER = "0s"


class Setting(msgspec.Struct, frozen=True):
    """A NodePool/NodeClaim field as it applies to a node, and where the value came from."""

    value: str | None
    # nodeclaim | nodepool | karpenter-default | automode-builtin-default | unset | unknown, and for the
    # consolidation settings of a static pool `static-nodepool`: the value is there, and ignored.
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}


def is_builtin_pool(pool: NodePool) -> bool:
    """Auto Mode's own `general-purpose` / `system` pools (managed by EKS, not editable)."""
    if pool.name not in AUTO_MODE_BUILTIN_POOLS:
        return False
    ref = pool.node_class_ref
    return pool.meta.labels.get("app.kubernetes.io/managed-by") == "eks" or (
        ref is not None and ref.group == "eks.amazonaws.com"
    )


def expire_after_of(claim: NodeClaim | None, pool: NodePool | None) -> Setting:
    """The NodeClaim's value wins (it is what the expiration controller reads); else the pool's, else the
    documented default: 336h for the Auto Mode built-in pools, the CRD's 720h for every other pool."""
    if claim is not None and claim.expire_after:
        return Setting(claim.expire_after, "nodeclaim")
    if pool is not None and pool.expire_after:
        return Setting(pool.expire_after, "nodepool")
    if pool is not None and is_builtin_pool(pool):
        return Setting(AUTO_MODE_BUILTIN_EXPIRE_AFTER, "automode-builtin-default")
    if pool is not None or claim is not None:
        return Setting(KARPENTER_DEFAULT_EXPIRE_AFTER, "karpenter-default")
    return Setting(None, "unknown")


def termination_grace_of(claim: NodeClaim | None, pool: NodePool | None) -> Setting:
    if claim is not None and claim.termination_grace_period:
        return Setting(claim.termination_grace_period, "nodeclaim")
    if pool is not None and pool.termination_grace_period:
        return Setting(pool.termination_grace_period, "nodepool")
    if pool is not None and is_builtin_pool(pool):
        return Setting(AUTO_MODE_BUILTIN_TGP, "automode-builtin-default")
    if pool is not None or claim is not None:
        return Setting(None, "unset")
    return Setting(None, "unknown")


def consolidation_policy_of(pool: NodePool | None) -> Setting:
    """The pool's consolidationPolicy, or the CRD default (WhenEmptyOrUnderutilized)."""
    if pool is None:
        return Setting(None, "unknown")
    if is_static(pool):  # ignored: a static pool is never consolidated
        return Setting(pool.consolidation_policy or DEFAULT_POLICY, "static-nodepool")
    if pool.consolidation_policy:
        return Setting(pool.consolidation_policy, "nodepool")
    return Setting(DEFAULT_POLICY, "karpenter-default")


def consolidate_after_of(pool: NodePool | None) -> Setting:
    """The pool's consolidateAfter, or the CRD default (0s)."""
    if pool is None:
        return Setting(None, "unknown")
    if is_static(pool):  # ignored: a static pool is never consolidated
        return Setting(pool.consolidate_after or DEFAULT_CONSOLIDATE_AFTER, "static-nodepool")
    if pool.consolidate_after:
        return Setting(pool.consolidate_after, "nodepool")
    return Setting(DEFAULT_CONSOLIDATE_AFTER, "karpenter-default")


def consolidation_disabled(pool: NodePool) -> bool:
    """`consolidateAfter: Never`: Karpenter never consolidates the pool's nodes."""
    return pool.consolidate_after == "Never"


def is_static(pool: NodePool) -> bool:
    """A static-capacity NodePool (`spec.replicas` set: Karpenter's static capacity, EKS Auto Mode's too).

    Karpenter keeps `replicas` nodes whatever the pods ask, and never consolidates them: its disruption
    controller skips a candidate `OwnedByStaticNodePool()` for consolidation and for emptiness
    (kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go and emptiness.go, `ShouldDisrupt`),
    the NodeClaim disruption controller never marks its claims Consolidatable
    (pkg/controllers/nodeclaim/disruption/controller.go), and the NodePool API says `consolidationPolicy`
    and `consolidateAfter` are ignored when replicas is set (pkg/apis/v1/nodepool.go). Drift still replaces
    its nodes (pkg/controllers/disruption/staticdrift.go), and expiry still applies."""
    return pool.replicas is not None


def never_consolidated(pool: NodePool) -> bool:
    """Karpenter never consolidates the pool's nodes: `consolidateAfter: Never`, or a static pool."""
    return consolidation_disabled(pool) or is_static(pool)


def setting_duration(setting: Setting) -> timedelta | None:
    if setting.value is None or setting.value == "Never":
        return None
    try:
        return parse_duration(setting.value)
    except TimeError:
        return None
