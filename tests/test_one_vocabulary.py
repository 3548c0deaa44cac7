"""One vocabulary (issue 39, item 2): allocatable, requested, free, idle and unavailable have one definition
each (docs/vocabulary.md), computed once in core, and every front end shows the core figure: `nodes -o json`,
`cost -o json`, `pools -o json`, `nodes NODE -o json`, the TUI's Overview rows and header, the fleet totals;
on the demo, the scenarios under tests/scenarios and generated clusters with cordoned and NotReady nodes."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.analyses.diagnose.workloads import workload_groups
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.tui import data
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.views import build_all
from kubectl_gpu.tui.widgets.header import HeaderState, _line_two
from tests.conftest import Result
from tests.helpers import cordon_some, load_script
from tests.tui.conftest import DEMO, ROOT

bench = load_script(ROOT / "bench" / "generate.py", "bench_generate")
Cli = Callable[..., Result]
SCENARIOS = ROOT / "tests" / "scenarios"

NOW = "2026-11-29T12:00:00Z"  # one instant for every front end (a bundle without a capture time)
#: (bundle, --now) per scenario; generated ones are made in tmp_path
CASES: dict[str, tuple[str, str]] = {
    "demo": (str(DEMO), "2026-11-28T09:00:00Z"),
    "cost-idle": (str(SCENARIOS / "cost" / "idle-gpu-nodes.yaml"), NOW),
    "cost-region": (str(SCENARIOS / "cost" / "pricing-region.yaml"), NOW),
    "pending-automode": (str(SCENARIOS / "pending" / "ours__automode-capacity.yaml"), NOW),
    "pending-karpenter": (str(SCENARIOS / "pending" / "ours__karpenter-gpu.yaml"), NOW),
    "lifecycle": (str(SCENARIOS / "lifecycle" / "ours__automode-lifecycle.yaml"), NOW),
    "usage": (str(SCENARIOS / "usage" / "ours__usage-window.json"), NOW),
    "generated-s": ("", NOW),
    "cordoned-m": ("", NOW),
}


def _bundle(name: str, tmp_path: Path) -> tuple[str, str]:
    path, now = CASES[name]
    if path:
        return path, now
    nodes, pods, seed = {"generated-s": (20, 200, 3), "cordoned-m": (60, 900, 5)}[name]
    out = tmp_path / f"{name}.json"
    bench.generate(nodes, pods, out, seed=seed)
    if name.startswith("cordoned"):
        cordon_some(out)
    return str(out), now


def _json(cli: Cli, *args: str) -> dict[str, Any]:
    result = cli(*args)
    assert result.code in (0, 1, 4), result.err
    loaded = json.loads(result.out)
    assert isinstance(loaded, dict)
    return loaded


def _n(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def _d(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _figures(parts: AcceleratorParts) -> dict[str, Any]:
    """The core figures as JSON writes them (to compare a CLI document with core)."""
    return json.loads(json.dumps(parts.to_dict()))


def _check_node(node: dict[str, Any], parts: AcceleratorParts) -> None:
    """A node's JSON is the core figure, and the figures keep their definitions."""
    acc, figures, name = node["accelerator"], node["figures"], node["name"]
    if acc is None:
        assert figures is None and parts == AcceleratorParts(), name
        return
    assert figures == _figures(parts), name
    assert _d(figures["allocatable"]) == _d(acc["allocatable"]), name
    if not parts.known:
        assert figures["free"] is None and node["idleAccelerators"] is None, name
        return
    assert parts.requested + parts.free + parts.unavailable == parts.capacity, name
    assert parts.free + parts.unavailable == parts.idle, name
    assert _d(node["idleAccelerators"]) == parts.idle, name  # -o wide's IDLE
    assert parts.free <= _d(acc["free"]), name  # what a new pod could get, at most the resource's own
    if node["unschedulable"] or not node["ready"]:  # the cordoned-node rule: idle, never free
        assert parts.free == 0 and parts.unavailable == parts.idle, name


def _sum(pools: list[dict[str, Any]], key: str) -> Decimal:
    return sum((_d(p["accelerators"][key]) or Decimal(0) for p in pools), Decimal(0))


def _check_cost(cost: dict[str, Any], pools: dict[str, Any]) -> None:
    """`cost`'s ACCEL, REQ and IDLE per NodePool and in total are `pools`' capacity, requested and idle."""
    by_name = {p["name"]: p["accelerators"] for p in pools["nodePools"]}
    for pool in cost["nodePools"]:
        mine = by_name[pool["name"]]
        assert _d(pool["accelerators"]) == _d(mine["capacity"]), pool["name"]
        assert pool["unknownAllocationNodes"] == mine["unknownNodes"], pool["name"]
        if mine["requested"] is not None:
            assert _d(pool["allocated"]) == _d(mine["requested"]), pool["name"]
            assert _d(pool["idle"]) == _d(mine["idle"]), pool["name"]
    total = pools["total"]["accelerators"]
    assert _d(cost["totals"]["accelerators"]) == _d(total["capacity"])
    if total["requested"] is not None:
        assert _d(cost["totals"]["allocated"]) == _d(total["requested"])
        assert _d(cost["totals"]["idle"]) == _d(total["idle"])


def _check_tui(snapshot: data.Refresh, pools: dict[str, Any]) -> None:
    """The TUI draws the pools report: its document is the CLI's, its rows and header say its figures."""
    document = snapshot.pools.to_dict()
    assert document["nodePools"] == pools["nodePools"] and document["total"] == pools["total"]
    grid = build_all(snapshot)["overview"].sections[0].table
    rows = grid.rows
    assert [r.key for r in rows] == [*(p.name for p in snapshot.pools.pools), "ALL"]
    for index, (row, summary) in enumerate(zip(rows, snapshot.pools.rows, strict=True)):
        parts = summary.parts
        shown = "?/?/?" if not parts.known else f"{_n(parts.requested)}/{_n(parts.free)}/{_n(parts.idle)}"
        text = " ".join(getattr(cell, "plain", cell) for cell in grid.shown(index))  # as drawn: the bar too
        assert shown in text, (row.key, shown, text)
    config = TuiConfig(SourceOptions(snapshot=()), refresh=None)
    header = _line_two(HeaderState(config, snapshot=snapshot)).plain
    total = snapshot.pools.total.parts
    if total.known:
        assert f"free {_n(total.free)}" in header, header
        assert (f"({_n(total.idle)} idle)" in header) == (total.idle > 0), header


@pytest.mark.parametrize("name", list(CASES))
def test_every_front_end_shows_the_core_figure(name: str, tmp_path: Path, cli: Cli) -> None:
    bundle, now = _bundle(name, tmp_path)
    flags = ["--snapshot", bundle, "--now", now, "-o", "json"]
    nodes = _json(cli, "nodes", *flags)["nodes"]
    pools = _json(cli, "pools", *flags)
    cost = _json(cli, "cost", *flags)
    instant = datetime.fromisoformat(now.replace("Z", "+00:00"))
    snapshot = data.load(open_source(SourceOptions(snapshot=(bundle,))), now=instant)
    rows = {r.name: r for r in snapshot.nodes.rows}
    assert set(rows) == {n["name"] for n in nodes}
    for node in nodes:
        _check_node(node, rows[node["name"]].parts)
    # the pools sum the nodes; the total sums the pools; cost says the same
    for key in ("capacity", "allocatable"):
        assert _sum(pools["nodePools"], key) == _d(pools["total"]["accelerators"][key])
        assert _sum([{"accelerators": n["figures"]} for n in nodes if n["figures"]], key) == _d(
            pools["total"]["accelerators"][key]
        )
    assert pools["total"]["nodes"] == len(nodes) == sum(p["nodes"] for p in pools["nodePools"])
    _check_cost(cost, pools)
    _check_tui(snapshot, pools)
    if name.startswith("cordoned"):  # the case is there: unused GPUs on cordoned or NotReady nodes
        assert snapshot.pools.total.parts.unavailable > 0
    first = next((n for n in nodes if n["accelerator"] is not None), None)
    if first is not None:  # one node: its figures are the list's
        detail = _json(cli, "nodes", first["name"], *flags)
        assert detail["node"]["figures"] == first["figures"]


def test_on_the_demo_the_figures_agree_as_the_issue_asked(cli: Cli) -> None:
    """The disagreements reported in issue 39, now one answer: gpu-inference requested 5 (cost's), the
    cluster 13, the cordoned node's unused GPU idle 1 and free 0 everywhere."""
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))
    inference = next(p for p in snapshot.pools.pools if p.name == "gpu-inference").parts
    assert (inference.capacity, inference.allocatable, inference.requested) == (6, 5, 5)
    assert (inference.free, inference.idle, inference.unavailable) == (0, 1, 1)
    assert snapshot.pools.total.parts.requested == 13
    cordoned = next(r for r in snapshot.nodes.rows if r.unschedulable).parts
    assert (cordoned.idle, cordoned.free, cordoned.unavailable) == (1, 0, 1)
    table = cli("pools", "--snapshot", str(DEMO)).out.splitlines()
    assert table[0].split()[2:8] == ["ACCEL", "ALLOCATABLE", "REQ", "FREE", "IDLE", "UNAVAILABLE"]
    cost = cli("cost", "--snapshot", str(DEMO)).out
    nodes = cli("nodes", "--snapshot", str(DEMO)).out
    assert " ALLOC " not in cost and " REQ " in cost and "ALLOCATABLE/REQ/FREE" in nodes


def test_the_pending_views_workload_groups_are_cores() -> None:
    """The TUI's Pending rows are core's workload groups (`core.analyses.diagnose.workloads`): a group of
    several pods is one row, a group of one its pod's row, in the pending report's order."""
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))
    groups = workload_groups(snapshot.pending.pods, snapshot.state)
    assert sum(len(g.pods) for g in groups) == len(snapshot.pending.pods)
    rows = build_all(snapshot)["pending"].sections[0].table.rows
    assert [r.key for r in rows] == [g.key if len(g.pods) > 1 else g.pods[0] for g in groups]
    lws = next(g for g in groups if g.key == "group:StatefulSet serving/vllm-l40s")
    assert lws.pods == ("serving/vllm-l40s-1", "serving/vllm-l40s-2") and sum(lws.verdicts.values()) == 2
