"""`kubectl gpu cost`, `kubectl gpu inventory` and the price columns of `nodes -o wide`, end to end on the
scenario snapshots in tests/scenarios/cost/."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_gpu.cli.inventory import csv_table
from kubectl_gpu.core.analyses.cost.inventory import COLUMNS
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.render.draw import csv_text
from tests.conftest import Result

Cli = Callable[..., Result]

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios" / "cost"
IDLE = str(SCENARIOS / "idle-gpu-nodes.yaml")
REGION = str(SCENARIOS / "pricing-region.yaml")
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
NOW = ("--now", "2026-11-29T12:00:00Z")
CATALOG = load_catalog()


def _price(itype: str) -> float:
    spec = CATALOG.by_name(itype)
    assert spec is not None and spec.price_usd_per_hour is not None
    return spec.price_usd_per_hour


# --------------------------------------------------------------------------- cost


def test_cost_json_and_exit_code_zero_with_warnings(cli: Cli) -> None:
    result = cli("cost", "--snapshot", IDLE, *NOW, "-o", "json")
    assert result.code == 0, result.err  # findings are information
    data = json.loads(result.out)
    assert data["apiVersion"] == "kubectl-gpu/v1" and data["kind"] == "CostReport"
    assert {"nodePools", "namespaces", "idleNodes", "findings"} <= set(data)
    assert "notes" not in data  # us-east-1 cluster: list prices are its own
    assert any(f["severity"] == "warning" for f in data["findings"])
    batch = next(n for n in data["idleNodes"] if n["name"] == "i-0c05a000000000002")
    assert (batch["idleHours"], batch["keptBy"][0]["reason"]) == (5.5, "consolidation-disabled")


def test_cost_idle_time_comes_from_now(cli: Cli) -> None:
    data = json.loads(cli("cost", "--snapshot", IDLE, "--now", "2026-11-29T18:30:00Z", "-o", "json").out)
    batch = next(n for n in data["idleNodes"] if n["name"] == "i-0c05a000000000002")
    assert batch["idleHours"] == 12.0
    assert batch["idleCostSoFar"] == round(_price("g6e.2xlarge") * 12, 4)


def test_cost_table(cli: Cli) -> None:
    result = cli("cost", "--snapshot", IDLE, *NOW)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split()[:3] == ["NODEPOOL", "POLICY", "AFTER"]
    assert any(line.startswith("TOTAL") for line in lines)
    assert "IDLE_GPU_NODE" in result.out and "consolidation-disabled" in result.out
    assert f"{_price('p5.48xlarge'):.2f}*" in result.out  # list prices are marked
    assert lines[-1].startswith("* us-east-1 Linux on-demand list price")
    assert "\x1b[" not in result.out
    wide = cli("cost", "--snapshot", IDLE, *NOW, "-o", "wide")
    assert "default/web-7d9f8c6b5d-x2k4p" in wide.out and "NODECLAIM" in wide.out


def test_cost_min_idle_and_namespace(cli: Cli) -> None:
    data = json.loads(cli("cost", "--snapshot", IDLE, *NOW, "--min-idle", "0s", "-o", "json").out)
    assert "i-0c05a000000000005" in {f["object"]["name"] for f in data["findings"]}
    data = json.loads(cli("cost", "--snapshot", IDLE, *NOW, "-n", "research", "-o", "json").out)
    assert [n["name"] for n in data["namespaces"]] == ["research"]
    assert data["totals"]["allocated"] == 2  # node figures still count every namespace's pods
    result = cli("cost", "--snapshot", IDLE, "--min-idle", "soon")
    assert result.code == 2 and "--min-idle" in result.err and result.err.count("\n") == 1


def test_cost_foreign_region_notes_and_yaml(cli: Cli) -> None:
    result = cli("cost", "--snapshot", REGION, *NOW, "-o", "yaml")
    assert result.code == 0, result.err
    data = yaml.safe_load(result.out)
    messages = [n["message"] for n in data["notes"] if n["code"] == "PRICES"]
    assert any("us-west-2" in m for m in messages) and any("spot" in m for m in messages)
    table = cli("cost", "--snapshot", REGION, *NOW)
    assert "cluster is in us-west-2" in table.out  # the footnote, not a warning
    assert "cluster is in" not in table.err and "spot" in table.err


def test_cost_on_the_demo_bundle_has_a_finding(cli: Cli) -> None:
    result = cli("cost", "--snapshot", str(DEMO), "-o", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["findings"]


# --------------------------------------------------------------------------- price options


def test_price_file_changes_prices_and_sources(cli: Cli, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps({"region": "us-west-2", "prices": {"p5e.48xlarge": 70.5, "g6e.xlarge": 2.1}})
    )
    data = json.loads(cli("nodes", "--snapshot", REGION, "--price-file", str(prices), "-o", "json").out)
    rows = {n["name"]: n for n in data["nodes"]}
    assert (rows["i-0e11b000000000001"]["pricePerHour"], rows["i-0e11b000000000001"]["priceSource"]) == (
        70.5,
        "price-file",
    )
    assert rows["i-0e11b000000000002"]["priceSource"] == "list-us-east-1"
    assert any("trn1.32xlarge" in n["message"] for n in data["notes"])
    cost = json.loads(cli("cost", "--snapshot", REGION, *NOW, "--price-file", str(prices), "-o", "json").out)
    assert cost["pricing"]["priceFile"] == str(prices) and cost["pricing"]["region"] == "us-west-2"


def test_region_option(cli: Cli) -> None:
    data = json.loads(cli("nodes", "--snapshot", IDLE, "--region", "eu-west-1", "-o", "json").out)
    assert any("eu-west-1" in n["message"] for n in data["notes"])
    assert {n["priceSource"] for n in data["nodes"]} == {"list-us-east-1"}


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        ("g6e.xlarge: [1, 2\n", (), "not valid YAML or JSON at line"),
        ("g6e.xlarge: -3\n", (), "zero or more"),
        ('{"g6e.xlarge": "free"}', (), "must be a number"),
        ("- g6e.xlarge\n", (), "expected a mapping"),
        ("", (), "got nothing"),
        ("region: eu-west-1\ng6e.xlarge: 2\n", ("--region", "us-east-1"), "disagrees"),
        ("g6e.xlarge: 2\n", ("--region", "narnia"), "--region"),
    ],
)
def test_bad_price_input_is_one_line_exit_2(
    cli: Cli, tmp_path: Path, content: str, args: tuple[str, ...], needle: str
) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text(content)
    for command in ("nodes", "cost", "inventory"):
        result = cli(command, "--snapshot", IDLE, "--price-file", str(bad), *args)
        assert result.code == 2, (command, result.out)
        assert needle in result.err and result.err.startswith("error: ") and result.err.count("\n") == 1
        assert "Traceback" not in result.err


def test_missing_price_file(cli: Cli, tmp_path: Path) -> None:
    result = cli("cost", "--snapshot", IDLE, "--price-file", str(tmp_path / "nope.yaml"))
    assert result.code == 2 and "cannot read it" in result.err and result.err.count("\n") == 1


# --------------------------------------------------------------------------- nodes -o wide


def test_nodes_wide_adds_price_and_idle(cli: Cli) -> None:
    result = cli("nodes", "--snapshot", IDLE, "-o", "wide")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    header = lines[0].split()
    assert header[-2:] == ["$/H", "IDLE"]
    row = next(line for line in lines if line.startswith("i-0c05a000000000001")).split()
    assert row[-2:] == [f"{_price('g6e.12xlarge'):.2f}*", "2"]
    assert lines[-1].startswith("* us-east-1 Linux on-demand list price")
    plain = cli("nodes", "--snapshot", IDLE)
    assert "$/H" not in plain.out and "list price" not in plain.out + plain.err


def test_nodes_json_adds_price_keys(cli: Cli) -> None:
    data = json.loads(cli("nodes", "--snapshot", IDLE, "-o", "json").out)
    for node in data["nodes"]:
        assert node["pricePerHour"] == _price(node["instanceType"])
        assert node["priceSource"] == "list-us-east-1"
    idle = {n["name"]: n["idleAccelerators"] for n in data["nodes"]}
    assert idle["i-0c05a000000000001"] == 2 and idle["i-0c05a000000000003"] == 8
    dra = json.loads(cli("nodes", "--snapshot", REGION, "-o", "json").out)
    assert {n["name"]: n["idleAccelerators"] for n in dra["nodes"]}["i-0e11b000000000004"] is None


# --------------------------------------------------------------------------- inventory and -o csv


def test_inventory_csv_parses_back(cli: Cli) -> None:
    result = cli("inventory", "--snapshot", IDLE, "-o", "csv")
    assert result.code == 0, result.err
    assert result.out.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(result.out, newline="")))
    assert tuple(rows[0]) == COLUMNS
    records = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    assert len(records) == 8
    by_id = {r["instanceId"]: r for r in records}
    p5 = by_id["i-0c05a000000000003"]
    assert (p5["ami"], p5["launchTime"], p5["nodeClaim"], p5["computeType"]) == (
        "ami-0a1b2c3d4e5f60002",
        "2026-11-29T09:00:00Z",
        "gpu-training-cccc3",
        "auto",
    )
    assert float(p5["pricePerHour"]) == _price("p5.48xlarge")
    assert by_id["i-0c05a000000000009"]["node"] == ""  # null is an empty field
    assert [r["instanceId"] for r in records] == [
        r["instanceId"]
        for r in json.loads(cli("inventory", "--snapshot", IDLE, "-o", "json").out)["instances"]
    ]


def test_csv_quoting_is_rfc4180() -> None:
    records: list[dict[str, object]] = [{"a": 'say "hi", twice', "b": "line\nbreak", "c": None}]
    text = csv_text(*csv_table(("a", "b", "c"), records))
    assert text == 'a,b,c\r\n"say ""hi"", twice","line\nbreak",\r\n'
    assert list(csv.reader(io.StringIO(text, newline=""))) == [
        ["a", "b", "c"],
        ['say "hi", twice', "line\nbreak", ""],
    ]


def test_inventory_table_json_and_options(cli: Cli) -> None:
    table = cli("inventory", "--snapshot", IDLE)
    assert table.code == 0, table.err
    assert table.out.splitlines()[0].split()[:3] == ["INSTANCE-ID", "TYPE", "ZONE"]
    assert "ami-0a1b2c3d4e5f60002" in table.out and "$/H" not in table.out
    wide = cli("inventory", "--snapshot", IDLE, "-o", "wide")
    assert "(not registered)" in wide.out and "$/H" in wide.out
    data = json.loads(cli("inventory", "--snapshot", IDLE, "--all", "-o", "json").out)
    assert data["kind"] == "Inventory" and len(data["instances"]) == 9
    selected = json.loads(
        cli("inventory", "--snapshot", IDLE, "-l", "karpenter.sh/nodepool=gpu-training", "-o", "json").out
    )
    assert [i["instanceId"] for i in selected["instances"]] == ["i-0c05a000000000003"]
    before = cli("-o", "csv", "inventory", "--snapshot", IDLE)
    assert before.code == 0 and before.out.startswith(",".join(COLUMNS))


@pytest.mark.parametrize("command", ["nodes", "cost", "pending"])
def test_csv_is_refused_by_other_commands(cli: Cli, command: str) -> None:
    for args in ((command, "--snapshot", IDLE, "-o", "csv"), ("-o", "csv", command, "--snapshot", IDLE)):
        result = cli(*args)
        assert result.code == 2 and result.out == ""
        assert result.err.startswith("error: -o csv is not supported by") and result.err.count("\n") == 1
