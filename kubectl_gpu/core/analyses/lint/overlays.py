"""The capacity NodeOverlays add to a pool's instance types, for lint (`overlay=` of `lint()`).

The same matching as pending's fit (Karpenter's `getOverlaidOfferings`): an overlay applies to an instance
type when its requirements are compatible with the type's labels, the pool's template labels and
`karpenter.sh/nodepool`; offering keys (capacity type, zone) are left open; a resource set by a heavier
overlay (then the name later in the alphabet) is not set again. An overlay whose requirements do not
parse applies to nothing."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.k8s.models import NodeOverlay, NodePool
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements

__all__ = ["pool_overlay_capacity"]

_OFFERING_KEYS = frozenset(
    {"karpenter.sh/capacity-type", "topology.kubernetes.io/zone", "topology.k8s.aws/zone-id"}
)


def pool_overlay_capacity(
    pool: NodePool, index: InstanceIndex, overlays: tuple[NodeOverlay, ...]
) -> dict[str, dict[str, Decimal]]:
    """Instance type name -> the capacity overlays add to it in `pool` (types no overlay touches: absent)."""
    parsed = []
    for overlay in sorted(overlays, key=lambda o: (o.weight, o.name), reverse=True):
        try:
            parsed.append((overlay, Requirements.of(*overlay.requirements)))
        except RequirementError:
            continue
    out: dict[str, dict[str, Decimal]] = {}
    if not parsed:
        return out
    for entry in index.types:
        labels = {**entry.labels, **pool.template_labels, "karpenter.sh/nodepool": pool.name}
        own = Requirements.from_labels(labels)
        capacity: dict[str, Decimal] = {}
        for overlay, wanted in parsed:
            if any(k in entry.unknown for k in wanted) or own.compatible(
                wanted, allow_undefined=_OFFERING_KEYS
            ):
                continue
            for resource, value in overlay.capacity.items():
                capacity.setdefault(resource, Decimal(value))
        if capacity:
            out[entry.it.name] = capacity
    return out
