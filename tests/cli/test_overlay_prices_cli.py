"""`cost` and `usage` price a node the same way when a NodeOverlay prices its type: end to end on a bundle.

The bundle is tests/scenarios/usage/ours__usage-window.json with, made here: the empty g4dn.12xlarge node
launched by Karpenter (a `karpenter.sh/nodepool` label) and a NodeOverlay that takes 40% off g4dn."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from kubectl_gpu.core.catalog import load_catalog
from tests.conftest import Result

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "usage" / "ours__usage-window.json"
EMPTY_NODE = "i-0a11000000000002"
OVERLAY = {
    "apiVersion": "karpenter.sh/v1alpha1",
    "kind": "NodeOverlay",
    "metadata": {"name": "g4dn-discount"},
    "spec": {
        "requirements": [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g4dn.12xlarge"]}
        ],
        "priceAdjustment": "-40%",
        "weight": 10,
    },
}


def _bundle(tmp_path: Path) -> Path:
    bundle: dict[str, Any] = json.loads(SCENARIO.read_text(encoding="utf-8"))
    objects = copy.deepcopy(bundle["objects"])
    for obj in objects:
        if obj["kind"] == "Node" and obj["metadata"]["name"] == EMPTY_NODE:
            obj["metadata"].setdefault("labels", {})["karpenter.sh/nodepool"] = "gpu"
    bundle["objects"] = [*objects, OVERLAY]
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    return path


def _node(report: dict[str, Any]) -> dict[str, Any]:
    return next(n for n in report["nodes"] if n.get("name", n.get("node")) == EMPTY_NODE)


def test_cost_and_usage_agree_on_an_overlay_price(cli: Callable[..., Result], tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    listed = Decimal(str(load_catalog().by_name("g4dn.12xlarge").price_usd_per_hour))  # type: ignore[union-attr]
    expected = float((listed * Decimal("0.6")).quantize(Decimal("0.0001")))
    cost = cli("cost", "-o", "json", "--snapshot", str(bundle))
    usage = cli("usage", "-o", "json", "--snapshot", str(bundle))
    assert cost.code == 0 and usage.code == 0, (cost.err, usage.err)
    cost_node, usage_node = _node(json.loads(cost.out)), _node(json.loads(usage.out))
    assert usage_node["priceSource"] == "nodeoverlay" and usage_node["pricePerHour"] == expected
    assert usage_node["idleCostPerHour"] == expected  # the empty node's idle spend is the overlay's price
    assert any("NodeOverlay g4dn-discount" in n["message"] for n in json.loads(usage.out)["notes"])
    assert cost_node["priceSource"] == "nodeoverlay"
    assert cost_node["pricePerHour"] == usage_node["pricePerHour"]
    table = cli("usage", "--snapshot", str(bundle))
    assert f"{expected:.2f}+" in table.out  # the table marks the overlay's price


def test_nodes_prices_the_node_as_cost_does(cli: Callable[..., Result], tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    nodes = cli("nodes", "-o", "json", "--snapshot", str(bundle))
    cost = cli("cost", "-o", "json", "--snapshot", str(bundle))
    assert nodes.code in (0, 1) and cost.code == 0, (nodes.err, cost.err)
    node, priced = _node(json.loads(nodes.out)), _node(json.loads(cost.out))
    assert node["priceSource"] == "nodeoverlay"
    assert node["pricePerHour"] == priced["pricePerHour"]


def test_inventory_prices_the_instance_as_cost_does(cli: Callable[..., Result], tmp_path: Path) -> None:
    """One price per node everywhere: `inventory` read the list price where a NodeOverlay priced the type."""
    bundle = _bundle(tmp_path)
    inventory = cli("inventory", "--all", "-o", "json", "--snapshot", str(bundle))
    cost = cli("cost", "-o", "json", "--snapshot", str(bundle))
    assert inventory.code == 0 and cost.code == 0, (inventory.err, cost.err)
    instance = next(i for i in json.loads(inventory.out)["instances"] if i["node"] == EMPTY_NODE)
    priced = _node(json.loads(cost.out))
    assert instance["priceSource"] == "nodeoverlay"
    assert instance["pricePerHour"] == priced["pricePerHour"]
