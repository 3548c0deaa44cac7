"""A node's hourly price under Karpenter NodeOverlays (core.scheduling.overlay_prices), on plain data.

The adjustment cases are Karpenter's own (pkg/cloudprovider/suite_test.go "AdjustedPrice"), as in
tests/core/analyses/pending/test_node_overlay.py."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.catalog.pricing import SOURCE_FILE, SOURCE_LIST, PriceBook, PriceFile
from kubectl_gpu.core.k8s.models import NodeOverlay
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.scheduling.overlay_prices import (
    SOURCE_OVERLAY,
    adjusted_price,
    node_price,
    overlay_notes,
)

CATALOG = load_catalog()
LIST = Decimal(str(CATALOG.by_name("g5.xlarge").price_usd_per_hour))  # type: ignore[union-attr]
LABELS = {"karpenter.sh/nodepool": "gpu", "karpenter.sh/capacity-type": "on-demand"}


def overlay(
    name: str, weight: int | None = None, families: tuple[str, ...] = ("g5",), **spec: Any
) -> NodeOverlay:
    body: dict[str, Any] = {
        "requirements": [
            {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": list(families)}
        ],
        **spec,
    }
    if weight is not None:
        body["weight"] = weight
    obj = {
        "apiVersion": "karpenter.sh/v1alpha1",
        "kind": "NodeOverlay",
        "metadata": {"name": name},
        "spec": body,
    }
    (parsed,), _ = parse_objects([obj])
    assert isinstance(parsed, NodeOverlay)
    return parsed


def labels(**extra: str) -> dict[str, str]:
    return {**LABELS, "karpenter.k8s.aws/instance-family": "g5", **extra}


@pytest.mark.parametrize(
    ("change", "base", "expected"),
    [
        ("+10%", "10", "11"),
        ("-50%", "10", "5"),
        ("-100%", "10", "0"),
        ("-200%", "10", "0"),
        ("-25%", "1.5", "1.125"),
        ("+5", "10", "15"),
        ("-2.5", "10", "7.5"),
        ("-15", "10", "0"),
        ("+0.0001", "0.0001", "0.0002"),
        ("80.0", "82781", "80"),
        ("", "82781", "82781"),
    ],
)
def test_adjustment_as_karpenter_computes_it(change: str, base: str, expected: str) -> None:
    assert adjusted_price(Decimal(base), None, change) == Decimal(expected)


def test_price_replaces_and_garbage_is_none() -> None:
    assert adjusted_price(Decimal(10), "2.5", "+50%") == Decimal("2.5")  # price wins over the adjustment
    assert adjusted_price(Decimal(10), None, "+ten%") is None
    assert adjusted_price(None, None, "+10%") is None  # nothing to adjust


def test_heaviest_overlay_that_selects_the_node_prices_it() -> None:
    book = PriceBook(CATALOG)
    overlays = [
        overlay("light", weight=1, price="0.10"),
        overlay("heavy", weight=10, priceAdjustment="-50%"),
        overlay("other-family", weight=99, families=("p5",), price="9"),
    ]
    price = node_price("g5.xlarge", labels(), book, overlays)
    assert price is not None
    assert (price.source, price.overlay, price.usd_per_hour) == (SOURCE_OVERLAY, "heavy", LIST / 2)
    assert overlay_notes([("i-1", price), ("i-2", book.price("g5.xlarge"))]) == [
        "1 node(s) priced by NodeOverlay heavy (i-1) instead of the list price (priceSource nodeoverlay)"
    ]


def test_what_overlays_do_not_price() -> None:
    book = PriceBook(CATALOG)
    cheap = [overlay("cheap", price="0.10")]
    not_karpenter = {"karpenter.k8s.aws/instance-family": "g5"}  # a managed node group's node
    assert node_price("g5.xlarge", not_karpenter, book, cheap).source == SOURCE_LIST  # type: ignore[union-attr]
    failed = overlay("failed", weight=5, price="0.01")
    failed = NodeOverlay(failed.meta, failed.requirements, failed.price, None, {}, 5, (_false(),))
    assert node_price("g5.xlarge", labels(), book, [failed, *cheap]).overlay == "cheap"  # type: ignore[union-attr]
    filed = PriceBook(CATALOG, file=PriceFile(prices={"g5.xlarge": Decimal("0.7")}))
    own = node_price("g5.xlarge", labels(), filed, cheap)
    assert own is not None and (own.source, own.usd_per_hour) == (SOURCE_FILE, Decimal("0.7"))


def _false() -> Any:
    from kubectl_gpu.core.k8s.models import Condition

    return Condition("ValidationSucceeded", "False", "Conflict")
