"""Which NodeOverlays apply to an instance type of a NodePool, and what they set (Karpenter v1.x,
`pkg/controllers/nodeoverlay/controller.go` `getOverlaidOfferings`, `store.go` `updateInstanceTypeCapacity`).

An overlay applies when its requirements are compatible with the pool name, the pool's template labels and
the type's own labels (offering keys, capacity type and zone, left open); heaviest first (equal weights: the
name later in the alphabet first, `NodeOverlayList.OrderByWeight`), a resource once set is not set again by a
lighter overlay, and the first `price` / `priceAdjustment` wins. An overlay whose requirements do not parse,
or that asks about a label the catalog does not know for the type, makes the answer uncertain."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from kubectl_gpu.core.k8s.models import NodeOverlay, NodePool, Resources
from kubectl_gpu.core.scheduling.instances import IndexedType
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements

__all__ = ["Overlaid", "OverlayMatcher"]

_OFFERING_KEYS = frozenset(
    {"karpenter.sh/capacity-type", "topology.kubernetes.io/zone", "topology.k8s.aws/zone-id"}
)


class Overlaid(msgspec.Struct, frozen=True):
    capacity: Resources  # what the overlays set
    price: str | None  # `price` or `priceAdjustment` of the heaviest overlay that has one
    names: tuple[str, ...]
    uncertain: bool


class OverlayMatcher:
    """The overlays of a cluster, ordered and parsed once."""

    def __init__(self, overlays: Iterable[NodeOverlay]) -> None:
        self.parsed: list[tuple[NodeOverlay, Requirements | None]] = []
        for overlay in sorted(overlays, key=lambda o: (o.weight, o.name), reverse=True):
            try:
                self.parsed.append((overlay, Requirements.of(*overlay.requirements)))
            except RequirementError:
                self.parsed.append((overlay, None))

    def __bool__(self) -> bool:
        return bool(self.parsed)

    def overlaid(self, pool: NodePool, entry: IndexedType) -> Overlaid | None:
        """What the overlays set on `entry` in `pool`; None when none applies and none is uncertain."""
        labels = {**entry.labels, **pool.template_labels, "karpenter.sh/nodepool": pool.name}
        own = Requirements.from_labels(labels)
        capacity: Resources = {}
        price: str | None = None
        names: list[str] = []
        uncertain = False
        for overlay, wanted in self.parsed:
            if wanted is None or any(k in entry.unknown for k in wanted):
                uncertain = True
                continue
            if own.compatible(wanted, allow_undefined=_OFFERING_KEYS):
                continue
            names.append(overlay.name)
            for resource, value in overlay.capacity.items():
                capacity.setdefault(resource, value)
            if price is None:
                price = overlay.price or overlay.price_adjustment
        if names or uncertain:
            return Overlaid(capacity, price, tuple(names), uncertain)
        return None
