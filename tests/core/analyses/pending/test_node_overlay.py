"""NodeOverlay (Karpenter v1.x, `karpenter.sh/v1alpha1`): capacity and price overrides of instance types.

kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/controller.go `getOverlaidOfferings` (an overlay applies
when its requirements are compatible with the pool name, template labels and the type's requirements),
store.go `updateInstanceTypeCapacity` (highest weight first, a resource once set is kept),
pkg/cloudprovider/types.go `ApplyCapacityOverlay`, `AdjustedPrice` (cases from pkg/cloudprovider/suite_test.go
"AdjustedPrice"), pkg/apis/v1alpha1/nodeoverlay.go `OrderByWeight`.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending.targets.pools.fit import adjusted_price
from tests.core.analyses.pending._round_two import add_requirement, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import Obj, items, without


def overlay(name: str, capacity: dict[str, str] | None = None, weight: int | None = None, **spec: Any) -> Obj:
    body: dict[str, Any] = {
        "requirements": [{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6f"]}],
        **spec,
    }
    if capacity is not None:
        body["capacity"] = capacity
    if weight is not None:
        body["weight"] = weight
    return {
        "apiVersion": "karpenter.sh/v1alpha1",
        "kind": "NodeOverlay",
        "metadata": {"name": name},
        "spec": body,
    }


def g6f_cluster(*extra: Obj) -> list[Obj]:
    # Without the scenario's g6e node, so that only NodePools can offer a GPU.
    objects = without(items("automode-gpu"), "Node", "i-02315c7d7643cdee6")
    add_requirement(
        objects, "gpu", {"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6f"]}
    )
    return [*objects, *extra, gpu_pod()]


def test_g6f_without_an_overlay_offers_no_gpu() -> None:
    assert verdict(g6f_cluster()).verdict is V.NO_ACCELERATOR_NODEPOOL


def test_an_overlay_adding_nvidia_gpu_makes_g6f_offer_it() -> None:
    diag = verdict(g6f_cluster(overlay("fractional-gpu", {"nvidia.com/gpu": "1"})))
    assert diag.verdict is not V.NO_ACCELERATOR_NODEPOOL
    gpu = next(e for e in diag.evaluations if e.target.name == "gpu")
    assert gpu.offers and gpu.fitting_types and all(t.startswith("g6f.") for t in gpu.fitting_types)


def test_an_overlay_for_another_pool_does_not_apply() -> None:
    scoped = overlay("fractional-gpu", {"nvidia.com/gpu": "1"})
    scoped["spec"]["requirements"].append(
        {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["other"]}
    )
    assert verdict(g6f_cluster(scoped)).verdict is V.NO_ACCELERATOR_NODEPOOL


def test_the_heavier_overlay_sets_the_capacity() -> None:
    # store.go: overlays are applied heaviest first; a lighter one does not change a resource already set.
    light = overlay("a-light", {"nvidia.com/gpu": "4"}, weight=1)
    heavy = overlay("b-heavy", {"nvidia.com/gpu": "1"}, weight=10)
    objects = g6f_cluster(light, heavy)
    objects[-1] = gpu_pod(requests={"nvidia.com/gpu": "2"})
    assert verdict(objects).verdict is V.NO_INSTANCE_TYPE_FITS


@pytest.mark.parametrize(
    ("change", "base", "expected"),
    [
        ("-10%", 10.0, 9.0),
        ("+10%", 10.0, 11.0),
        ("-50%", 10.0, 5.0),
        ("+100%", 10.0, 20.0),
        ("-100%", 10.0, 0.0),
        ("-200%", 10.0, 0.0),
        ("-25%", 1.5, 1.125),
        ("+0", 10.0, 10.0),
        ("+5", 10.0, 15.0),
        ("-2.5", 10.0, 7.5),
        ("-10", 10.0, 0.0),
        ("-15", 10.0, 0.0),
        ("+0.75", 1.25, 2.0),
        ("+100", 0.001, 100.001),
        ("+0.0001", 0.0001, 0.0002),
        ("80.0", 82781.0, 80.0),
        ("", 82781.0, 82781.0),
    ],
)
def test_adjusted_price(change: str, base: float, expected: float) -> None:
    assert adjusted_price(base, change) == pytest.approx(expected)


def test_an_overlay_price_reaches_the_instance_type() -> None:
    from kubectl_gpu.core.analyses.pending.analysis import _Analyser
    from tests.core.analyses.pending._scenarios import NOW, catalog, state_of

    state = state_of(g6f_cluster(overlay("cheap", {"nvidia.com/gpu": "1"}, priceAdjustment="-50%")))
    pool = next(p for p in _Analyser(state, catalog(), NOW).pools if p.pool.name == "gpu")
    entry = next(e for e in pool.types if e.it.name == "g6f.xlarge")
    assert pool.fit.overlay_names(entry) == ("cheap",)
    assert pool.fit.price(entry) == pytest.approx(entry.it.price_usd_per_hour / 2)
