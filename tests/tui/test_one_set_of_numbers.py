"""One set of numbers (issue 19, item 2; one vocabulary, issue 39): the TUI's requested / free / idle /
unavailable per node, per pool and in the header are the CLI's `nodes -o json` and `diagnose -o json`, on
the demo and on generated clusters; capacity on a cordoned or NotReady node, or on a device the plugin
withdrew, is never free. tests/test_one_vocabulary.py holds `cost` and `pools` to the same figures."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.render.model import Row
from kubectl_gpu.tui import data
from kubectl_gpu.tui.views import build_all
from kubectl_gpu.tui.widgets.grid_model import Grid
from tests.conftest import Result
from tests.helpers import cordon_some, load_script
from tests.tui.conftest import DEMO, ROOT

bench = load_script(ROOT / "bench" / "generate.py", "bench_generate")
Cli = Callable[..., Result]


def _drawn(grid: Grid[Any], row: Row[Any]) -> str:
    """The row as the grid draws it (the view's own columns, the bar, too)."""
    return " ".join(getattr(cell, "plain", cell) for cell in grid.shown(grid.index_of(row)))


def _bundle(name: str, tmp_path: Path) -> Path:
    if name == "demo":
        return DEMO
    nodes, pods, seed = {
        "generated-s": (20, 200, 3),
        "generated-m": (60, 900, 11),
        "cordoned-m": (60, 900, 5),
    }[name]
    out = tmp_path / f"{name}.json"
    bench.generate(nodes, pods, out, seed=seed)
    if name.startswith("cordoned"):
        cordon_some(out)
    return out


def _json(cli: Cli, *args: str) -> dict[str, object]:
    result = cli(*args)
    assert result.code in (0, 1), result.err
    loaded = json.loads(result.out)
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize("name", ["demo", "generated-s", "generated-m", "cordoned-m"])
def test_the_tui_figures_are_the_clis(name: str, tmp_path: Path, cli: Cli) -> None:
    bundle = _bundle(name, tmp_path)
    nodes = _json(cli, "nodes", "--snapshot", str(bundle), "-o", "json")["nodes"]
    findings = _json(cli, "diagnose", "--snapshot", str(bundle), "-o", "json")["findings"]
    assert isinstance(nodes, list) and isinstance(findings, list)
    withdrawn = {f["object"]["name"] for f in findings if f["code"] == "GPU_UNHEALTHY_DEVICES"}
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(bundle),))))
    rows = {r.name: r for r in snapshot.nodes.rows}
    assert set(rows) == {n["name"] for n in nodes}
    free_total = Decimal(0)
    for node in nodes:
        acc = node["accelerator"]
        parts = snapshot.parts_of(rows[node["name"]])
        if acc is None:
            assert parts.bar == (0, 0, 0)
            continue
        paid = Decimal(str(acc["capacity"] or acc["allocatable"]))
        assert parts.capacity == paid and sum(parts.bar) == paid, node["name"]
        # free: what a new pod could get, at most the primary resource's own free (the JSON's)
        assert parts.free <= Decimal(str(acc["free"])), node["name"]
        if node["unschedulable"] or not node["ready"]:
            assert acc["free"] == 0 and parts.free == 0 and parts.unavailable == parts.idle
        # withdrawn devices (capacity above allocatable) are the ones diagnose reports
        if acc["source"] == "device-plugin":
            lost = Decimal(str(acc["capacity"])) > Decimal(str(acc["allocatable"]))
            assert lost == (node["name"] in withdrawn), node["name"]
        free_total += parts.free
    if name.startswith("cordoned"):  # the case is there: unused GPUs on cordoned or NotReady nodes
        assert snapshot.parts.unavailable > 0
    # the header's free and the Overview's ALL row are the pools report's total
    assert snapshot.free_accelerators == free_total
    overview = build_all(snapshot)["overview"].sections[0].table
    total = overview.rows[-1]
    parts = snapshot.parts
    numbers = f"{int(parts.requested)}/{int(parts.free)}/{int(parts.idle)}"
    text = _drawn(overview, total)
    assert total.key == "ALL" and numbers in text, (numbers, text)


def test_on_the_demo_the_cordoned_gpu_is_idle_and_unavailable() -> None:
    """The pods on the XID node still request its 4 GPUs (3 allocatable): requested 4, as `cost` counts;
    the cordoned node's GPU is idle (billed, unused) and unavailable, never free."""
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))
    parts = snapshot.parts
    assert (parts.requested, parts.free, parts.idle, parts.unavailable) == (13, 0, 1, 1)
    overview = build_all(snapshot)["overview"].sections[0].table
    inference = _drawn(overview, next(r for r in overview.rows if r.key == "gpu-inference"))
    assert "×" in inference and "5/0/1" in inference
