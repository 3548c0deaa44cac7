"""The defaults the API server writes into a karpenter.sh/v1 NodePool (the CRD's structural defaults,
kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml; ../shared/reference
karpenter_crd_fields.json): a NodePool from a repository rarely spells them, and compared with the captured
one (defaulted) an absent `expireAfter` would read as a change, or worse, drift nothing where 720h does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["nodepool_defaults"]


def nodepool_defaults(obj: Mapping[str, Any]) -> dict[str, Any]:
    """`obj` as stored: `spec.disruption` {consolidateAfter: 0s, consolidationPolicy:
    WhenEmptyOrUnderutilized, budgets: [{nodes: 10%}]} and `spec.template.spec.expireAfter: 720h` where
    absent (a default applies where its parent object exists: structural schema defaulting)."""
    out = dict(obj)
    spec = out.get("spec")
    if not isinstance(spec, Mapping):
        return out
    spec = dict(spec)
    disruption = (
        dict(spec.get("disruption") or {}) if isinstance(spec.get("disruption"), Mapping | None) else None
    )
    if disruption is not None:
        disruption.setdefault("consolidateAfter", "0s")
        disruption.setdefault("consolidationPolicy", "WhenEmptyOrUnderutilized")
        disruption.setdefault("budgets", [{"nodes": "10%"}])
        budgets = disruption["budgets"]
        if isinstance(budgets, list):
            disruption["budgets"] = [{"nodes": "10%", **b} if isinstance(b, Mapping) else b for b in budgets]
        spec["disruption"] = disruption
    template = spec.get("template")
    if isinstance(template, Mapping) and isinstance(template.get("spec"), Mapping):
        tspec = dict(template["spec"])
        tspec.setdefault("expireAfter", "720h")
        spec["template"] = {**template, "spec": tspec}
    out["spec"] = spec
    return out
