"""Accelerator instance inventory on the scenario snapshots in tests/scenarios/cost/."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_gpu.core.analyses.cost.inventory import COLUMNS, build_inventory, parse_provider_id
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.catalog.pricing import SOURCE_FILE, SOURCE_LIST, PriceBook, parse_price_file
from tests.core.analyses.cost.test_cost import items, state_of

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
CATALOG = load_catalog()


def inventory(name: str = "idle-gpu-nodes.yaml", **kw: Any) -> dict[str, dict[str, Any]]:
    prices = kw.pop("prices", PriceBook(CATALOG))
    result = build_inventory(state_of(items(name)), CATALOG, prices, NOW, **kw).to_dict()
    assert result["apiVersion"] == "kubectl-gpu/v1" and result["kind"] == "Inventory"
    assert result["columns"] == list(COLUMNS)
    for record in result["instances"]:
        assert list(record) == list(COLUMNS)  # stable key order = CSV column order
    return {r["instanceId"]: r for r in result["instances"]}


def test_every_accelerator_instance_with_ids_ami_and_launch_time() -> None:
    got = inventory()
    assert set(got) == {f"i-0c05a00000000000{i}" for i in (1, 2, 3, 4, 5, 6, 7, 9)}  # not the m6i (8)
    p5 = got["i-0c05a000000000003"]
    assert p5 == {
        "instanceId": "i-0c05a000000000003",
        "instanceType": "p5.48xlarge",
        "zone": "us-east-1c",
        "region": "us-east-1",
        "nodePool": "gpu-training",
        "nodeClaim": "gpu-training-cccc3",
        "node": "i-0c05a000000000003",
        "ami": "ami-0a1b2c3d4e5f60002",
        "launchTime": "2026-11-29T09:00:00Z",
        "launchTimeSource": "node-created",
        "computeType": "auto",
        "capacityType": "on-demand",
        "accelerator": "h100",
        "acceleratorCount": 8,
        "pricePerHour": CATALOG.by_name("p5.48xlarge").price_usd_per_hour,  # type: ignore[union-attr]
        "priceSource": SOURCE_LIST,
    }
    # A managed node group node: no NodePool, no NodeClaim, no AMI from the cluster.
    ng = got["i-0c05a000000000007"]
    assert (ng["node"], ng["nodePool"], ng["nodeClaim"], ng["ami"], ng["computeType"]) == (
        "ip-10-0-1-7.ec2.internal",
        None,
        None,
        None,
        "other",
    )
    assert ng["capacityType"] == "ON_DEMAND"
    # Launched, not registered yet: known from its NodeClaim only.
    pending = got["i-0c05a000000000009"]
    assert pending["node"] is None and pending["nodeClaim"] == "gpu-inference-launch1"
    assert (pending["launchTime"], pending["launchTimeSource"]) == (
        "2026-11-29T11:58:40Z",
        "nodeclaim-launched",
    )
    assert (pending["instanceType"], pending["accelerator"], pending["acceleratorCount"]) == (
        "g6e.xlarge",
        "l40s",
        1,
    )
    assert (pending["zone"], pending["computeType"], pending["ami"]) == (
        "us-east-1b",
        "auto",
        "ami-0a1b2c3d4e5f60002",
    )
    for record in got.values():
        spec = CATALOG.by_name(record["instanceType"])
        assert spec is not None and record["pricePerHour"] == spec.price_usd_per_hour


def test_all_includes_cpu_instances_and_order_is_stable() -> None:
    everything = inventory(include_all=True)
    assert "i-0c05a000000000008" in everything and everything["i-0c05a000000000008"]["accelerator"] is None
    first = list(inventory())
    assert first == list(inventory())
    assert first[-1] == "i-0c05a000000000007"  # no NodePool sorts last


def test_launch_time_falls_back_to_the_nodeclaim() -> None:
    objs = items("idle-gpu-nodes.yaml")
    node = next(o for o in objs if o["metadata"]["name"] == "i-0c05a000000000002")
    del node["metadata"]["creationTimestamp"]
    claim = next(o for o in objs if o["metadata"]["name"] == "gpu-batch-bbbb2")
    state = state_of(objs)
    record = build_inventory(state, CATALOG, PriceBook(CATALOG), NOW).to_dict()["instances"]
    batch = next(r for r in record if r["instanceId"] == "i-0c05a000000000002")
    assert (batch["launchTime"], batch["launchTimeSource"]) == ("2026-11-29T01:59:22Z", "nodeclaim-launched")
    claim["status"]["conditions"] = []
    record = build_inventory(state_of(objs), CATALOG, PriceBook(CATALOG), NOW).to_dict()["instances"]
    batch = next(r for r in record if r["instanceId"] == "i-0c05a000000000002")
    assert (batch["launchTime"], batch["launchTimeSource"]) == ("2026-11-29T01:59:20Z", "nodeclaim-created")


def test_prices_from_a_price_file_and_unpriced_types() -> None:
    prices = PriceBook(CATALOG, parse_price_file({"p5e.48xlarge": 70.5}), region="us-west-2")
    got = inventory("pricing-region.yaml", prices=prices)
    p5e = got["i-0e11b000000000001"]
    assert (p5e["pricePerHour"], p5e["priceSource"], p5e["computeType"]) == (70.5, SOURCE_FILE, "karpenter")
    got = inventory("pricing-region.yaml")
    assert got["i-0e11b000000000001"]["pricePerHour"] is None
    assert got["i-0e11b000000000002"]["accelerator"] == "trainium"
    assert got["i-0e11b000000000004"]["acceleratorCount"] == 1  # DRA devices


@pytest.mark.parametrize(
    ("provider_id", "expected"),
    [
        ("aws:///us-west-2a/i-0123456789abcdef0", ("us-west-2a", "i-0123456789abcdef0")),
        ("aws:///us-west-2-lax-1a/i-0abc", ("us-west-2-lax-1a", "i-0abc")),
        ("aws:///i-0abc", (None, "i-0abc")),
        ("aws:///us-west-2a/fargate-ip-10-0-0-1", ("us-west-2a", None)),
        ("kind://docker/kind/kind-control-plane", (None, None)),
        ("", (None, None)),
        (None, (None, None)),
    ],
)
def test_parse_provider_id(provider_id: str | None, expected: tuple[str | None, str | None]) -> None:
    assert parse_provider_id(provider_id) == expected
