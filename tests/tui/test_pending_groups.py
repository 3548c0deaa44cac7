"""Thousands of Pending pods of one workload are one row (issue 19, item 7), on the bench's many-Pending shape
(generated, small); and the pod page's helpers: which container's log, what a log page says."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.kube.pod_logs import LogTail, pod_log_tail
from kubectl_gpu.kube.source import SourceOptions, open_source
from kubectl_gpu.render.pending_groups import grouped_rows
from kubectl_gpu.tui import data
from kubectl_gpu.tui.screens.pod import log_container, log_page
from kubectl_gpu.tui.views.pending import PendingModel, PendingView
from tests.helpers import load_script
from tests.tui.conftest import DEMO, ROOT

compact = load_script(ROOT / "bench" / "compact.py", "bench_compact")


def _text(renderable: object) -> str:
    console = Console(width=200, color_system=None, markup=False, highlight=False)
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


def test_many_pending_pods_of_a_few_deployments_are_a_few_rows(tmp_path: Path) -> None:
    out = tmp_path / "many-pending.json"
    compact.generate_many_pending(out, nodes=40, pods=400, pending=1500, shapes=4, launching=2)
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(out),))))
    model = PendingView.build(snapshot)
    assert isinstance(model, PendingModel) and model.table is not None
    rows = model.sections[0].table.rows
    assert len(snapshot.pending.pods) > 1000 and len(rows) == len(model.groups) <= 10
    assert sum(len(g.members) for g in model.groups) == len(snapshot.pending.pods)
    biggest = max(model.groups, key=lambda g: len(g.members))
    assert biggest.label.startswith("Deployment ") and f"({len(biggest.members)} pods)" in " ".join(
        c.text for c in rows[[r.key for r in rows].index(biggest.key)].cells
    )
    opened = grouped_rows(model.table, model.groups, {biggest.key})
    assert len(opened) == len(rows) + len(biggest.members)


def test_bare_pods_group_by_shape_and_a_lone_pod_is_its_own_row() -> None:
    snapshot = data.load(open_source(SourceOptions(snapshot=(str(DEMO),))))
    model = PendingView.build(snapshot)
    assert isinstance(model, PendingModel)
    lone = [g for g in model.groups if len(g.members) == 1]
    shown = [r.key for r in model.sections[0].table.rows]
    assert all(g.members[0].key in shown for g in lone)  # the pod's own row, no group row
    assert any(g.key.startswith("group:shape ") for g in model.groups)  # the demo's bare pods


def test_the_log_is_read_from_the_container_that_asks_for_the_gpu() -> None:
    state = data.load(open_source(SourceOptions(snapshot=(str(DEMO),)))).state
    pod = next(p for p in state.pods if p.name == "vllm-qwen32b-5f7c9d8b6-tn4vq")
    assert log_container(pod) == "vllm"


def test_a_snapshot_has_no_logs_and_a_log_page_is_made_safe() -> None:
    source = open_source(SourceOptions(snapshot=(str(DEMO),)))
    assert pod_log_tail(source, "ns", "pod") == LogTail(error="logs are not in a snapshot")
    page = log_page(
        ObjectRef("Pod", "p", "ns"),
        LogTail("ok\x1b]52;c;SGVsbG8=\x07 line\n", container="main", cut=True),
    )
    shown = _text(page.body)
    assert "\x1b" not in shown and "ok" in shown and "cut at that size" in shown
    assert page.page_title == "logs pod/ns/p (main)"


async def test_a_group_row_at_80_columns_shows_its_workloads_name(tmp_path: Path) -> None:
    """A workload's row too long for the POD column is cut where the room ends: `Deployment ns/pending-…`,
    never `Deployment ns/…` (a cut at the slash would make every workload of a namespace look alike)."""
    import html

    from kubectl_gpu.tui.app import GpuApp
    from kubectl_gpu.tui.config import TuiConfig
    from tests.tui.conftest import settle

    out = tmp_path / "many-pending.json"
    compact.generate_many_pending(out, nodes=40, pods=400, pending=1500, shapes=4, launching=2)
    app = GpuApp(TuiConfig(SourceOptions(snapshot=(str(out),)), refresh=None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, "p")
        view = app.view
        assert isinstance(view.model, PendingModel) and view.model.groups
        screen = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        shown = [line for line in screen.splitlines() if "Deployment " in line and "▸" in line]
        assert shown
        for line in shown:
            after = line.split("Deployment ", 1)[1]
            namespace, _, rest = after.partition("/")
            assert namespace and rest[:1] not in ("…", ""), line  # some of the name is on screen
