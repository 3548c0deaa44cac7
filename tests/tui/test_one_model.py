"""The TUI reads the view model (issue 18): columns by their key, never by header text; every view's text is
the model's, made safe once; one analysis suite per refresh."""

from __future__ import annotations

import dataclasses
import html
import io
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, RenderableType

from kubectl_gpu.core.analyses import diagnose, nodes
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.render import pending_view
from kubectl_gpu.tui import data
from kubectl_gpu.tui.views import build_all
from kubectl_gpu.tui.views.pending import build_pending
from kubectl_gpu.tui.widgets.grid_model import Grid
from tests.hostile import unsafe_in, write_hostile_bundle
from tests.tui.conftest import DEMO, Live, settle

ROOT = Path(__file__).resolve().parents[2]


def _plain(renderable: RenderableType) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None, markup=False, highlight=False)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


def _snapshot(path: Path) -> data.Refresh:
    return data.load(open_source(SourceOptions(snapshot=(str(path),))))


def test_renaming_a_header_leaves_the_tui_column_filled(monkeypatch: pytest.MonkeyPatch) -> None:
    renamed = tuple(
        dataclasses.replace(c, header="STATE") if c.key == "verdict" else c for c in pending_view.COLUMNS
    )
    monkeypatch.setattr(pending_view, "COLUMNS", renamed)
    table = build_pending(_snapshot(DEMO))
    labels = [c.label for c in table.columns]
    assert "STATE" in labels and "VERDICT" not in labels
    column = labels.index("STATE")
    verdicts = [table.shown(index)[column] for index in range(len(table.rows))]
    assert verdicts and all(getattr(cell, "plain", cell) not in ("", "-") for cell in verdicts)
    assert "LABEL_NAMESPACE_MISMATCH" in [getattr(c, "plain", c) for c in verdicts]


def test_no_front_end_reads_a_rendered_object_back() -> None:
    banned = re.compile(r"\._cells\b|rich_rows|tables_of|table_titled|from_rich|\.header\s*==|cells\.get\(\"")
    for folder in ("tui", "render", "cli"):
        for path in (ROOT / "kubectl_gpu" / folder).rglob("*.py"):
            found = banned.findall(path.read_text())
            assert not found, f"{path.relative_to(ROOT)} reads a rendered table back: {found}"


def test_sort_keys_come_from_the_values_not_the_text() -> None:
    table = build_pending(_snapshot(DEMO))
    age = [c.label for c in table.columns].index("AGE")
    ages = [table.sort_key(index, age) for index in range(len(table.rows))]
    assert ages and all(isinstance(value, float) for _, value in ages)  # seconds, not "3d10h"


def _texts(table: Grid[Any]) -> list[str]:
    out = []
    for index, row in enumerate(table.rows):
        out += [getattr(cell, "plain", cell) for cell in table.shown(index)]
        if table.detail is not None:
            out.append(_plain(table.detail(row)))
    return out


def test_every_view_of_a_hostile_bundle_is_made_safe(tmp_path: Path) -> None:
    snapshot = _snapshot(write_hostile_bundle(tmp_path / "hostile.json"))
    shown: list[str] = []
    for view_id, page in build_all(snapshot).items():
        for section in page.sections:
            for text in _texts(section.table):
                assert unsafe_in(text) == [], (view_id, section.name, text[:200])
                shown.append(text)
        for note in (page.summary, *page.notes):
            if note is not None:
                assert unsafe_in(note.plain) == [], view_id
    assert any("\\x1b]52;c;" in text for text in shown)  # shown, escaped
    assert any("[bold red]MARKUP[/]" in text for text in shown)  # markup stays text


def test_a_refresh_runs_each_analysis_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()

    def counted(name: str, analysis: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            calls[name] += 1
            return analysis(*args, **kw)

        return run

    table = {name: (counted(name, a), kinds) for name, (a, kinds) in diagnose.ANALYSES.items()}
    monkeypatch.setattr(diagnose.analysis, "ANALYSES", table)
    monkeypatch.setattr(diagnose.analysis.cost, "analyse", counted("cost", diagnose.analysis.cost.analyse))
    monkeypatch.setattr(nodes, "analyse", counted("inventory", nodes.analyse))
    monkeypatch.setattr(data.nodes, "analyse", nodes.analyse)
    snapshot = _snapshot(DEMO)
    build_all(snapshot)
    assert set(calls) == {*diagnose.ANALYSES, "inventory"}
    assert all(count == 1 for count in calls.values()), calls


async def test_with_pods_forbidden_the_tui_shows_free_as_unknown(live: Live) -> None:
    """As `nodes` shows `?` (issue 20, item 9): the header's free and the Overview's figures are unknown."""
    live.api.fault(path=r"^/api/v1/pods$", status=403)
    app = live.app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert "free ?" in screen and "?/?/?" in screen
        await settle(pilot, "n")
        assert "/?/?" in _screen(app)  # the nodes view: allocatable/?/?


def _screen(app: Any) -> str:
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")
