"""Cost analysis and prices on the scenario snapshots in tests/scenarios/cost/ (evaluated at a fixed `now`)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
import yaml

from kubectl_gpu.core.analyses.cost.analysis import (
    FINDING_CODES,
    KEPT_BY_REASONS,
    CostReport,
    analyse_cost,
)
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.catalog.pricing import (
    SOURCE_FILE,
    SOURCE_LIST,
    PriceBook,
    PriceFileError,
    cluster_regions,
    parse_price_file,
    price_book,
)
from kubectl_gpu.core.k8s.models import Budget
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.budgets import BudgetSpec
from tests.helpers import SCENARIOS as ALL_SCENARIOS

SCENARIOS = ALL_SCENARIOS / "cost"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
CATALOG = load_catalog()


def items(name: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((SCENARIOS / name).read_text())
    return copy.deepcopy(data["items"])


def state_of(objs: list[dict[str, Any]]) -> ClusterState:
    models, _ = parse_objects(objs)
    state = ClusterState.of(models)
    return state


def list_price(itype: str) -> Decimal:
    spec = CATALOG.by_name(itype)
    assert spec is not None and spec.price_usd_per_hour is not None
    return Decimal(str(spec.price_usd_per_hour))


def report_of(
    name: str = "idle-gpu-nodes.yaml", prices: PriceBook | None = None, **kw: Any
) -> tuple[CostReport, dict[str, Any]]:
    state = state_of(items(name))
    book = prices or price_book(CATALOG, detected=cluster_regions(n.labels for n in state.nodes))
    report = analyse_cost(state, CATALOG, book, NOW, **kw)
    return report, report.to_dict()


def money(value: Decimal) -> float:
    return float(value.quantize(Decimal("0.0001")))


# --------------------------------------------------------------------------- idle GPU nodes


def test_idle_nodes_since_when_and_what_keeps_them() -> None:
    _, data = report_of()
    idle = {n["name"]: n for n in data["idleNodes"]}
    assert set(idle) == {
        "i-0c05a000000000002",
        "i-0c05a000000000003",
        "i-0c05a000000000004",
        "i-0c05a000000000005",
        "i-0c05a000000000006",
        "ip-10-0-1-7.ec2.internal",
    }  # the g6e.12xlarge runs GPU pods; the m6i.large is not a GPU node
    expect = {
        # name: (idleSince, source, last GPU pod, hours, kept-by reasons)
        "i-0c05a000000000002": (
            "2026-11-29T06:30:00Z",
            "pod-finished",
            "batch/embed-b",
            5.5,
            ["consolidation-disabled"],
        ),
        "i-0c05a000000000003": ("2026-11-29T09:00:00Z", "node-created", None, 3.0, ["budget-zero"]),
        "i-0c05a000000000004": (
            "2026-11-29T11:00:00Z",
            "pod-started",
            "research/dev-shell",
            1.0,
            ["do-not-disrupt-node"],
        ),
        "i-0c05a000000000005": (
            "2026-11-29T11:50:00Z",
            "pod-finished",
            "serving/rerank-job",
            0.1667,
            ["non-gpu-pods", "do-not-disrupt-pod"],
        ),
        "i-0c05a000000000006": (
            "2026-11-29T11:20:00Z",
            "pod-finished",
            "batch/summarize-job",
            0.6667,
            ["waiting"],
        ),
        "ip-10-0-1-7.ec2.internal": ("2026-11-28T12:00:00Z", "node-created", None, 24.0, ["not-karpenter"]),
    }
    for name, (since, source, last, hours, reasons) in expect.items():
        node = idle[name]
        assert node["idleSince"] == since, name
        assert node["idleSinceSource"] == source, name
        assert node["lastGpuPod"] == last, name
        assert node["idleHours"] == hours, name
        assert [k["reason"] for k in node["keptBy"]] == reasons, name
        assert all(k["reason"] in KEPT_BY_REASONS for k in node["keptBy"])
    # The DaemonSet pod on the p5 does not make it non-empty; the web pod on the g5 does.
    assert idle["i-0c05a000000000003"]["otherPods"] == []
    assert idle["i-0c05a000000000005"]["otherPods"] == ["default/web-7d9f8c6b5d-x2k4p"]
    assert idle["i-0c05a000000000003"]["lastPodEventTime"] == "2026-11-29T09:01:00Z"
    assert idle["i-0c05a000000000002"]["consolidateAfter"] == "Never"
    assert idle["i-0c05a000000000002"]["consolidationPolicy"] == "WhenEmpty"
    assert idle["ip-10-0-1-7.ec2.internal"]["consolidationPolicy"] is None
    # Spend since idle = the whole node's price x idle hours.
    assert idle["i-0c05a000000000003"]["idleCostSoFar"] == money(list_price("p5.48xlarge") * 3)
    assert idle["i-0c05a000000000002"]["idleCostSoFar"] == money(list_price("g6e.2xlarge") * Decimal("5.5"))


def test_idle_hours_follow_now() -> None:
    state = state_of(items("idle-gpu-nodes.yaml"))
    book = PriceBook(CATALOG)
    later = analyse_cost(state, CATALOG, book, NOW + timedelta(hours=2))
    node = next(n for n in later.idle_nodes if n.name == "i-0c05a000000000002")
    assert node.idle_hours == Decimal("7.5")
    # At 12:25 the g6.2xlarge's consolidateAfter (1h after 11:20) has passed: nothing is found to keep it.
    later = analyse_cost(state, CATALOG, book, datetime(2026, 11, 29, 12, 25, tzinfo=UTC))
    node = next(n for n in later.idle_nodes if n.name == "i-0c05a000000000006")
    assert node.kept_by == ()
    finding = next(f for f in later.findings if f.object.name == "i-0c05a000000000006")
    assert finding.severity == "warning" and "nothing in the data keeps it" in finding.message


def test_findings_codes_severities_and_min_idle() -> None:
    report, data = report_of()
    got = sorted((f["code"], f["object"]["name"], f["severity"]) for f in data["findings"])
    assert got == [
        ("IDLE_ACCELERATORS", "i-0c05a000000000001", "info"),
        ("IDLE_GPU_NODE", "i-0c05a000000000002", "warning"),
        ("IDLE_GPU_NODE", "i-0c05a000000000003", "warning"),
        ("IDLE_GPU_NODE", "i-0c05a000000000004", "warning"),
        ("IDLE_GPU_NODE", "i-0c05a000000000006", "info"),  # only waiting for consolidateAfter
        ("IDLE_GPU_NODE", "ip-10-0-1-7.ec2.internal", "warning"),
    ]  # the g5 has been idle 10 minutes: under the default --min-idle of 15m
    assert all(f["code"] in FINDING_CODES and f["source"] == "cost" for f in data["findings"])
    assert data["findings"][0]["severity"] == "warning"  # worst first
    batch = next(f for f in report.findings if f.object.name == "i-0c05a000000000002")
    assert "consolidateAfter: Never" in batch.message and "5h30m" in batch.message
    assert batch.fix and "consolidateAfter" in batch.fix
    _, data = report_of(min_idle=timedelta(0))
    assert ("IDLE_GPU_NODE", "i-0c05a000000000005") in {
        (f["code"], f["object"]["name"]) for f in data["findings"]
    }


def test_partially_used_node_and_prices_from_the_catalog() -> None:
    _, data = report_of()
    nodes = {n["name"]: n for n in data["nodes"]}
    l40s = nodes["i-0c05a000000000001"]
    assert (l40s["capacity"], l40s["allocated"], l40s["idle"], l40s["gpuPods"]) == (4, 2, 2, 2)
    assert l40s["pricePerHour"] == CATALOG.by_name("g6e.12xlarge").price_usd_per_hour  # type: ignore[union-attr]
    assert l40s["priceSource"] == SOURCE_LIST
    assert l40s["idleCostPerHour"] == money(list_price("g6e.12xlarge") * 2 / 4)
    for node in data["nodes"]:
        spec = CATALOG.by_name(node["instanceType"])
        assert spec is not None and node["pricePerHour"] == spec.price_usd_per_hour
    assert "i-0c05a000000000008" not in nodes  # CPU-only


def test_pools_namespaces_and_totals() -> None:
    _, data = report_of()
    pools = {p["name"]: p for p in data["nodePools"]}
    assert [p["name"] for p in data["nodePools"]] == [
        "gpu-training",
        "gpu-inference",
        "gpu-batch",
        "gpu-dev",
        None,
    ]  # most idle spend first, nodes without a NodePool last
    inference = pools["gpu-inference"]
    assert (inference["nodes"], inference["idleNodes"]) == (3, 2)
    assert (inference["accelerators"], inference["allocated"], inference["idle"]) == (6, 2, 4)
    prices = [list_price(t) for t in ("g6e.12xlarge", "g5.xlarge", "g6.2xlarge")]
    assert inference["pricePerHour"] == money(sum(prices, Decimal(0)))
    assert inference["idleCostPerHour"] == money(prices[0] / 2 + prices[1] + prices[2])
    assert inference["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    totals = data["totals"]
    assert (totals["nodes"], totals["idleNodes"], totals["accelerators"], totals["allocated"]) == (
        7,
        6,
        17,
        2,
    )
    all_prices = sum(
        (
            list_price(t)
            for t in (
                "g6e.12xlarge",
                "g6e.2xlarge",
                "p5.48xlarge",
                "g6.xlarge",
                "g5.xlarge",
                "g6.2xlarge",
                "g4dn.xlarge",
            )
        ),
        Decimal(0),
    )
    assert totals["pricePerHour"] == money(all_prices)
    assert totals["idleCostPerHour"] == money(all_prices - prices[0] / 2)
    assert totals["idleUnattributed"] == money(all_prices - prices[0])
    namespaces = {n["name"]: n for n in data["namespaces"]}
    assert set(namespaces) == {"serving", "research"}  # finished jobs are not charged
    for ns in namespaces.values():
        assert (ns["gpuPods"], ns["allocated"], ns["idleShare"]) == (1, 1, 1)
        assert ns["costPerHour"] == ns["idleShareCostPerHour"] == money(prices[0] / 4)
    _, only = report_of(namespace="research")
    assert [n["name"] for n in only["namespaces"]] == ["research"]
    assert only["totals"] == data["totals"]


def test_json_shape() -> None:
    _, data = report_of()
    assert data["apiVersion"] == "kubectl-gpu/v1" and data["kind"] == "CostReport"
    for key in ("nodePools", "namespaces", "idleNodes", "findings", "nodes", "totals", "pricing"):
        assert key in data
    assert data["pricing"] == {
        "currency": "USD",
        "basis": "on-demand, per hour",
        "region": "us-east-1",
        "listPriceRegion": "us-east-1",
        "priceFile": None,
    }
    assert set(data["idleNodes"][0]) >= {
        "name",
        "idleSince",
        "idleSinceSource",
        "idleHours",
        "idleCostSoFar",
        "keptBy",
        "pricePerHour",
        "priceSource",
    }


# --------------------------------------------------------------------------- what keeps a node: variants


def _pool(objs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(o for o in objs if o["kind"] == "NodePool" and o["metadata"]["name"] == name)


def _kept(objs: list[dict[str, Any]], node: str, now: datetime = NOW) -> list[str]:
    report = analyse_cost(state_of(objs), CATALOG, PriceBook(CATALOG), now)
    return [k.reason for k in next(n for n in report.idle_nodes if n.name == node).kept_by]


def test_when_empty_with_other_pods_is_not_empty() -> None:
    objs = items("idle-gpu-nodes.yaml")
    _pool(objs, "gpu-inference")["spec"]["disruption"]["consolidationPolicy"] = "WhenEmpty"
    assert _kept(objs, "i-0c05a000000000005") == ["not-empty", "do-not-disrupt-pod"]


def test_scheduled_zero_budget_blocks_only_inside_its_window() -> None:
    objs = items("idle-gpu-nodes.yaml")
    budgets = _pool(objs, "gpu-batch")["spec"]["disruption"]
    budgets["consolidateAfter"] = "10m"
    budgets["budgets"] = [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}]
    monday_10 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    assert _kept(objs, "i-0c05a000000000002", monday_10) == ["budget-zero"]
    assert _kept(objs, "i-0c05a000000000002", datetime(2026, 11, 30, 17, 0, tzinfo=UTC)) == []
    assert _kept(objs, "i-0c05a000000000002", NOW) == []  # Sunday


def test_unreadable_budget_fails_closed() -> None:
    objs = items("idle-gpu-nodes.yaml")
    disruption = _pool(objs, "gpu-batch")["spec"]["disruption"]
    disruption["consolidateAfter"] = "10m"
    disruption["budgets"] = [{"nodes": "10%", "schedule": "0 9 * * 7", "duration": "8h"}]
    assert _kept(objs, "i-0c05a000000000002") == ["budget-zero"]


def test_static_nodepool_missing_nodepool_and_deleting_node() -> None:
    objs = items("idle-gpu-nodes.yaml")
    _pool(objs, "gpu-dev")["spec"]["replicas"] = 1
    assert _kept(objs, "i-0c05a000000000004")[0] == "static-nodepool"
    objs = [o for o in items("idle-gpu-nodes.yaml") if o["kind"] != "NodePool"]
    assert _kept(objs, "i-0c05a000000000003") == ["nodepool-unknown"]
    objs = items("idle-gpu-nodes.yaml")
    node = next(o for o in objs if o["metadata"]["name"] == "i-0c05a000000000003")
    node["metadata"]["deletionTimestamp"] = "2026-11-29T11:59:00Z"
    assert _kept(objs, "i-0c05a000000000003")[0] == "being-deleted"


def test_nodeclaim_do_not_disrupt() -> None:
    objs = items("idle-gpu-nodes.yaml")
    claim = next(o for o in objs if o["metadata"]["name"] == "gpu-training-cccc3")
    claim["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    assert _kept(objs, "i-0c05a000000000003") == ["do-not-disrupt-node", "budget-zero"]


# --------------------------------------------------------------------------- odd accelerators, prices, regions


def test_neuron_cores_dra_unpriced_and_spot() -> None:
    report, data = report_of("pricing-region.yaml")
    nodes = {n["name"]: n for n in data["nodes"]}
    trn = nodes["i-0e11b000000000002"]  # 8 of 32 cores = 4 of 16 devices
    assert (trn["resource"], trn["capacity"], trn["allocated"], trn["idle"]) == (
        "aws.amazon.com/neuron",
        16,
        4,
        12,
    )
    assert trn["idleCostPerHour"] == money(list_price("trn1.32xlarge") * 12 / 16)
    dra = nodes["i-0e11b000000000004"]
    assert (dra["capacity"], dra["allocated"], dra["idle"], dra["gpuPods"]) == (1, None, None, 1)
    assert data["totals"]["unknownAllocationNodes"] == 1
    p5e = nodes["i-0e11b000000000001"]
    assert p5e["pricePerHour"] is None and p5e["priceSource"] is None
    assert data["totals"]["unpricedNodes"] == 1
    codes = {(f["code"], f["object"]["name"]) for f in data["findings"]}
    assert codes == {
        ("PRICE_UNKNOWN", "i-0e11b000000000001"),
        ("IDLE_ACCELERATORS", "i-0e11b000000000002"),
    }
    ml = next(n for n in data["namespaces"] if n["name"] == "ml")
    assert ml["costPerHour"] is None and ml["unpricedPods"] == 1
    assert data["pricing"]["region"] == "us-west-2"
    notes = " ".join(report.price_notes)
    assert "us-west-2" in notes and "spot" in notes


def test_price_file_overrides_and_falls_back_marked() -> None:
    pf = parse_price_file(
        {"region": "us-west-2", "prices": {"p5e.48xlarge": 70.5, "g6e.xlarge": "2.10"}}, "prices.yaml"
    )
    report, data = report_of("pricing-region.yaml", prices=price_book(CATALOG, price_file=pf))
    nodes = {n["name"]: n for n in data["nodes"]}
    assert (nodes["i-0e11b000000000001"]["pricePerHour"], nodes["i-0e11b000000000001"]["priceSource"]) == (
        70.5,
        SOURCE_FILE,
    )
    assert nodes["i-0e11b000000000003"]["pricePerHour"] == 2.1
    assert nodes["i-0e11b000000000002"]["priceSource"] == SOURCE_LIST  # not in the file
    assert "PRICE_UNKNOWN" not in {f["code"] for f in data["findings"]}
    notes = " ".join(report.price_notes)
    assert "trn1.32xlarge" in notes and "prices.yaml" in notes
    assert "spot" not in notes  # the spot node's price came from the file


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (None, "got nothing"),
        (["g6e.xlarge", 1], "expected a mapping"),
        ({}, "no prices"),
        ({"g6e.xlarge": -1}, "zero or more"),
        ({"g6e.xlarge": True}, "must be a number"),
        ({"g6e.xlarge": "cheap"}, "must be a number"),
        ({"g6e.xlarge": float("nan")}, "finite"),
        ({"g6e.xlarge": None}, "must be a number"),
        ({"G6E XLARGE": 1}, "not an instance type"),
        ({"prices": {"g6e.xlarge": 1}, "regoin": "x"}, "unknown key 'regoin'"),
        ({"prices": ["g6e.xlarge"]}, "'prices' must be a mapping"),
        ({"region": "Oregon", "g6e.xlarge": 1}, "region must be an AWS region"),
        ({"currency": "EUR", "g6e.xlarge": 1}, "currency must be USD"),
    ],
)
def test_bad_price_files(data: object, needle: str) -> None:
    with pytest.raises(PriceFileError) as info:
        parse_price_file(data, "p.yaml")
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert str(info.value).startswith("p.yaml")


def test_price_file_forms() -> None:
    flat = parse_price_file({"g6e.xlarge": 1.5, "region": "eu-west-1"})
    nested = parse_price_file({"region": "eu-west-1", "currency": "USD", "prices": {"g6e.xlarge": 1.5}})
    assert flat.prices == nested.prices == {"g6e.xlarge": Decimal("1.5")}
    assert flat.region == nested.region == "eu-west-1"


def test_pricing_region_rules() -> None:
    pf = parse_price_file({"region": "eu-west-1", "g6e.xlarge": 1})
    with pytest.raises(PriceFileError, match="disagrees"):
        price_book(CATALOG, price_file=pf, region="us-west-2")
    with pytest.raises(PriceFileError, match="--region"):
        price_book(CATALOG, region="mars-1")
    assert price_book(CATALOG, price_file=pf).region == "eu-west-1"
    assert price_book(CATALOG, region="ap-south-1", detected=["us-west-2"]).region == "ap-south-1"
    assert price_book(CATALOG, detected=["us-west-2"]).region == "us-west-2"
    assert price_book(CATALOG, detected=["us-west-2", "us-east-1"]).region is None
    assert cluster_regions([], "arn:aws:eks:eu-central-1:111122223333:cluster/x") == ["eu-central-1"]
    assert cluster_regions(
        [{"topology.kubernetes.io/region": "us-east-2"}], "arn:aws:eks:eu-central-1:1:c"
    ) == ["us-east-2"]
    east = price_book(CATALOG, region="us-east-1")
    assert east.notes(["g6e.xlarge"]) == []  # list prices are the region's own
    west = price_book(CATALOG, region="us-west-2")
    assert "us-west-2" in west.notes(["g6e.xlarge"])[0]


# --------------------------------------------------------------------------- cron


def test_budget_window_is_half_open() -> None:
    """Cost uses core.budgets for windows (cron edge cases are tested in tests/core/karpenter/test_budgets.py)."""
    budget = Budget(nodes="0", schedule="0 9 * * mon-fri", duration="8h", reasons=())
    monday = datetime(2026, 11, 30, tzinfo=UTC)
    spec = BudgetSpec.of(budget, 0)
    assert spec.active(monday.replace(hour=9)) is True
    assert spec.active(monday.replace(hour=16, minute=59)) is True
    assert spec.active(monday.replace(hour=17)) is False
    assert spec.active(monday.replace(hour=8, minute=59)) is False
    assert BudgetSpec.of(Budget("0", None, None, ()), 0).active(NOW) is True
    assert BudgetSpec.of(Budget("0", "0 9 * * *", None, ()), 0).error is not None
    assert BudgetSpec.of(Budget("0", None, "8h", ()), 0).error is not None


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("true", ["non-gpu-pods", "do-not-disrupt-pod"]),
        ("8h", ["non-gpu-pods", "do-not-disrupt-pod"]),  # started 07:10: protected until 15:10
        ("2h", ["non-gpu-pods"]),  # ran out at 09:10
        ("True", ["non-gpu-pods"]),  # Karpenter ignores anything but "true" and a duration
    ],
)
def test_pod_do_not_disrupt_as_karpenter_reads_it(value: str, kept: list[str]) -> None:
    objs = items("idle-gpu-nodes.yaml")
    web = next(o for o in objs if o["metadata"]["name"] == "web-7d9f8c6b5d-x2k4p")
    web["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] = value
    assert _kept(objs, "i-0c05a000000000005") == kept
