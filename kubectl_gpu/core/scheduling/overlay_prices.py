"""A node's hourly price: the price book's (a --price-file entry, else the catalog's list price), unless a
Karpenter NodeOverlay prices the node's instance type. Pure.

Karpenter's `karpenter.sh/v1alpha1` NodeOverlay (`pkg/apis/v1alpha1/nodeoverlay.go`): `price` is an absolute
price (`^\\d+(\\.\\d+)?$`, USD per hour) that replaces the offering's; `priceAdjustment` changes it, either by an
amount (`+0.5`, `-1.2`) or by a percentage (`+10%`, `-15%`, at most `-100%`). The overlays whose requirements
the node's labels satisfy are taken heaviest first (equal weights: the later name first, as
`core.scheduling.overlays`), and the first with a price or an adjustment decides (`AdjustedPrice` in
Karpenter's `pkg/cloudprovider/types.go`). A price below zero is zero. Only nodes Karpenter launched (`karpenter.sh/nodepool` label) are priced by overlays (Karpenter applies
them to its own offerings); an overlay whose validation failed (`ValidationSucceeded=False`), whose
requirements do not parse, or whose price does not parse is skipped. A type listed in --price-file keeps the
file's price: the user's own prices win over the cluster's declared ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Final

from kubectl_gpu.core.catalog.pricing import SOURCE_LIST, Price, PriceBook
from kubectl_gpu.core.k8s.models import NodeOverlay
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements

__all__ = ["SOURCE_OVERLAY", "adjusted_price", "node_price", "overlay_notes"]

SOURCE_OVERLAY: Final = "nodeoverlay"
NODEPOOL_LABEL: Final = "karpenter.sh/nodepool"
INSTANCE_TYPE_LABEL: Final = "node.kubernetes.io/instance-type"

_ZERO = Decimal(0)


def adjusted_price(base: Decimal | None, price: str | None, adjustment: str | None) -> Decimal | None:
    """What an overlay makes of `base`, as Karpenter's `cloudprovider.AdjustedPrice`: `price` (or an
    adjustment that is a plain number) replaces it, `+x`/`-x` adds, `+x%`/`-x%` scales; never below zero.
    None when the text is not a number or there is no base to adjust."""
    change = (price if price is not None else adjustment or "").strip()
    if not change:
        return base
    try:
        if not change.startswith(("+", "-")):
            return max(Decimal(change), _ZERO)
        if base is None:
            return None
        percent = change.endswith("%")
        changed = base * (1 + Decimal(change[:-1]) / 100) if percent else base + Decimal(change)
    except InvalidOperation:
        return None
    return max(changed, _ZERO) if changed.is_finite() else None


def _valid(overlay: NodeOverlay) -> bool:
    return not any(c.type == "ValidationSucceeded" and c.status == "False" for c in overlay.conditions)


def _selects(overlay: NodeOverlay, labels: Requirements) -> bool:
    try:
        wanted = Requirements.of(*overlay.requirements)
    except RequirementError:
        return False
    return not labels.compatible(wanted, allow_undefined=frozenset())


def node_price(
    instance_type: str | None, labels: Mapping[str, str], book: PriceBook, overlays: Iterable[NodeOverlay]
) -> Price | None:
    """The hourly price of a node of `instance_type` with these labels; `Price.source` is "nodeoverlay"
    (and `Price.overlay` its name) when an overlay set it."""
    base = book.price(instance_type)
    if NODEPOOL_LABEL not in labels or (base is not None and base.source != SOURCE_LIST):
        return base
    pricing = [o for o in overlays if (o.price is not None or o.price_adjustment is not None) and _valid(o)]
    if not pricing:  # the usual cluster: no node's labels need reading (asked three times per node)
        return base
    own = Requirements.from_labels({INSTANCE_TYPE_LABEL: instance_type or "", **labels})
    for overlay in sorted(pricing, key=lambda o: (o.weight, o.name), reverse=True):
        if not _selects(overlay, own):
            continue
        value = adjusted_price(base.usd_per_hour if base else None, overlay.price, overlay.price_adjustment)
        if value is not None:
            return Price(value, SOURCE_OVERLAY, overlay.name)
    return base


def overlay_notes(priced: Iterable[tuple[str, Price | None]]) -> list[str]:
    """One note per NodeOverlay that priced nodes: which, and how many (`priced`: node name, its price)."""
    by_overlay: dict[str, list[str]] = {}
    for name, price in priced:
        if price is not None and price.source == SOURCE_OVERLAY and price.overlay:
            by_overlay.setdefault(price.overlay, []).append(name)
    return [
        f"{len(nodes)} node(s) priced by NodeOverlay {overlay} ({', '.join(sorted(nodes)[:3])}"
        f"{', ...' if len(nodes) > 3 else ''}) instead of the list price (priceSource nodeoverlay)"
        for overlay, nodes in sorted(by_overlay.items())
    ]
