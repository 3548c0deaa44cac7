"""The TUI's pure parts, without an app: the command line, the table model, the bars, the header's
freshness, and that every view shows what its CLI command reports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from rich.text import Text

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.render.model import Cell, Column, Row, Table
from kubectl_gpu.tui import data
from kubectl_gpu.tui.app import initial_theme
from kubectl_gpu.tui.commands import Command, complete, parse
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.views import VIEWS, build_all
from kubectl_gpu.tui.widgets.bar import allocation_bar, expiry_bar
from kubectl_gpu.tui.widgets.grid import layout
from kubectl_gpu.tui.widgets.grid_model import Fit, Grid, sort_value
from kubectl_gpu.tui.widgets.header import HeaderState, freshness
from tests.tui.conftest import CHAT_API, DEMO, DEMO_NOW, demo_config


@pytest.fixture(scope="module")
def snapshot() -> data.Refresh:
    return data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("nodes", Command("view", "nodes")),
        (":no", Command("view", "nodes")),
        ("np", Command("view", "nodepools")),
        ("diagnose", Command("view", "findings")),
        ("ctx prod", Command("ctx", "prod")),
        ("ctx", Command("ctx")),  # the fleet overview
        ("ns ml", Command("ns", "ml")),
        ("ns all", Command("ns", None)),
        ("ns", Command("pick-ns")),  # k9s' :ns alone: the namespace picker
        ("q", Command("quit")),
        ("refresh", Command("refresh")),
    ],
)
def test_commands(text: str, command: Command) -> None:
    assert parse(text) == command


@pytest.mark.parametrize("text", ["", "ctx a b", "ns a b", "bogus", "nodes extra"])
def test_bad_commands_say_what_is_wrong(text: str) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        parse(text)


def test_completion() -> None:
    contexts, namespaces = (lambda: ["prod", "prod-eu", "staging"]), (lambda: ["ml", "serving"])
    assert complete("pe", contexts, namespaces) == "pending"
    assert complete("ctx st", contexts, namespaces) == "ctx staging"
    assert complete("ctx prod", contexts, namespaces) == "ctx prod-eu"
    assert complete("ns se", contexts, namespaces) == "ns serving"
    assert complete("ns a", contexts, namespaces) == "ns all"
    assert complete("nodes x", contexts, namespaces) is None
    assert complete("", contexts, namespaces) is None


def test_rows_filter_and_sort() -> None:
    columns = (Column("id", "ID"), Column("health", "HEALTH"), Column("pool", "NODEPOOL"))
    cells = (Cell("i-0abc"), Cell("Cordoned", style="red"), Cell("gpu-inference"))
    grid = Grid(Table("nodes", columns, (Row("n1", cells, None, None, None),)))
    assert grid.matches(0, "0ABC cordon") and not grid.matches(0, "cordon !inference")
    assert grid.matches(0, "!training") and grid.shown(0)[1] == Text("Cordoned", style="red")
    assert [sort_value(v) for v in (None, 3, "b")] == [(2, ""), (0, 3), (1, "b")]
    assert sorted([None, 2, 1], key=sort_value) == [1, 2, None]


def test_columns_are_measured_once_and_the_flex_column_takes_the_rest() -> None:
    columns = (Column("name", "NAME"), Column("reason", "REASON", wrap=True))
    rows = (
        Row("a", (Cell("node-a"), Cell("x" * 150)), None, None, None),
        Row("b", (Cell("node-bb"), Cell("short")), None, None, None),
    )
    fits = (Fit[None]("name"), Fit[None]("reason", flex=True, min_width=10, max_width=200))
    table = Grid(Table("nodes", columns, rows), fits)
    assert table.widths == (7, 150)
    assert layout(table, 80) == [7, 80 - 7 - 2 - 2]
    assert layout(table, 21) == [7, 10]
    assert layout(table, 20) == [7, 0]  # REASON does not fit: left out (the detail pane shows it)


def test_allocation_bar_is_proportional_and_exact() -> None:
    bar = allocation_bar(Decimal(5), Decimal(0), Decimal(1), width=12)  # requested, free, unavailable
    assert bar.plain == "█" * 10 + "×" * 2
    assert len(allocation_bar(Decimal(1), Decimal(1000), width=8).plain) == 8
    assert "█" in allocation_bar(Decimal(1), Decimal(1000), width=8).plain  # a small part still shows
    assert allocation_bar(Decimal(0), Decimal(0), width=4).plain == "····"


def test_expiry_bar() -> None:
    created = DEMO_NOW - timedelta(days=7)
    assert expiry_bar(created, created + timedelta(days=14), DEMO_NOW, width=10).plain == "█" * 5 + "░" * 5
    assert expiry_bar(None, None, DEMO_NOW, width=3).plain == "···"


def test_freshness_marks_stale_live_data(snapshot: data.Refresh) -> None:
    config = TuiConfig(refresh=10.0)
    fresh = freshness(HeaderState(config, snapshot), snapshot.loaded_at + timedelta(seconds=3))
    assert fresh.plain.startswith("refreshed") and "STALE" not in fresh.plain
    old = freshness(HeaderState(config, snapshot), snapshot.loaded_at + timedelta(minutes=2))
    assert old.plain.startswith("STALE refreshed") and "(2m ago)" in old.plain
    failed = freshness(HeaderState(config, snapshot, error="boom"), snapshot.loaded_at)
    assert failed.plain.startswith("STALE")
    offline = freshness(HeaderState(demo_config(), snapshot), datetime.now(UTC))
    assert offline.plain == "captured 2026-11-28 09:00Z"


def test_theme_follows_the_terminal_background() -> None:
    assert initial_theme(demo_config(), {"COLORFGBG": "0;15"}) == "textual-light"
    assert initial_theme(demo_config(), {"COLORFGBG": "15;0"}) == "textual-dark"
    assert initial_theme(demo_config(), {}) == "textual-dark"
    assert initial_theme(demo_config(theme="nord"), {"COLORFGBG": "0;15"}) == "nord"


def test_cluster_name() -> None:
    assert data.cluster_name("arn:aws:eks:us-west-2:111122223333:cluster/demo-prod") == "demo-prod"
    assert data.cluster_name("kind-kind", "kind-kind") == "kind-kind"
    assert data.cluster_name(None) is None


def test_every_view_shows_its_commands_report(snapshot: data.Refresh) -> None:
    models = build_all(snapshot)
    assert set(models) == {v.view_id for v in VIEWS}
    first = {v: m.sections[0].table for v, m in models.items()}
    assert [r.key for r in first["nodes"].rows] == [r.name for r in snapshot.nodes.rows]
    # Pending is grouped by owner: the StatefulSet serving/vllm-l40s's two pods are one (closed) row
    pods = [d.key for d in snapshot.pending.pods]
    assert [r.key for r in first["pending"].rows] == [*pods[:7], "group:StatefulSet serving/vllm-l40s"]
    assert pods[7:] == ["serving/vllm-l40s-1", "serving/vllm-l40s-2"]
    assert [r.key for r in first["pending"].rows].index(CHAT_API) == 1  # worst first, as `pending`
    assert len(first["findings"].rows) == len(snapshot.diagnose.findings) == 30
    assert [r.key for r in first["drivers"].rows] == [n.name for n in snapshot.drivers.nodes]
    assert [r.key for r in first["lifecycle"].rows] == [n.name for n in snapshot.lifecycle.nodes]
    assert [r.key for r in first["nvme"].rows] == [n.name for n in snapshot.nvme.rows]
    assert [r.key for r in first["cost"].rows] == ["gpu-inference", "gpu-training", "TOTAL"]
    overview = first["overview"]
    total, shown = overview.rows[-1], overview.shown(len(overview.rows) - 1)
    text = " ".join(getattr(cell, "plain", cell) for cell in shown)
    assert (
        total.key == "ALL"
        and "13/0/1" in text  # requested/free/idle: cost's REQ and IDLE (docs/vocabulary.md)
        and "×" in text
        and shown[3] == Text("9", style="bold red")
    )
    cost_total = snapshot.cost.totals
    assert (cost_total.allocated, cost_total.idle) == (13, 1)


def test_findings_of_a_view_are_diagnose_findings(snapshot: data.Refresh) -> None:
    everything = set(snapshot.diagnose.findings)
    for report in (snapshot.drivers, snapshot.nvme, snapshot.lifecycle, snapshot.cost):
        assert set(report.findings) <= everything or report is snapshot.cost


def test_a_replaced_snapshot_is_freed_by_the_release_thread(snapshot: data.Refresh) -> None:
    import time
    import weakref

    from kubectl_gpu.tui.release import release_later

    copy = data.analyse(
        snapshot.state, load_catalog(), DEMO_NOW, loaded_at=DEMO_NOW, started=time.perf_counter()
    )
    ref = weakref.ref(copy)
    release_later(copy, build_all(copy))
    del copy
    deadline = time.monotonic() + 5
    while ref() is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ref() is None
