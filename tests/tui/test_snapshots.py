"""What the TUI looks like: every view, the explain page, the keys, nvidia-smi and the command line on the
demo bundle, at 80x24 and at 200x50 (SVGs under __snapshots__/; `pytest --snapshot-update` rewrites them,
and the report shows the difference). Look at a changed SVG before accepting it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from kubectl_gpu.tui.views import VIEWS
from kubectl_gpu.tui.widgets.command_line import CommandLine
from tests.tui.conftest import Live, demo_app, settle

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}
SnapCompare = Callable[..., bool]


def _keys(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one(CommandLine).cursor_blink = False
        await settle(pilot, *keys)

    return run_before


CASES: dict[str, tuple[str, ...]] = {
    **{view.view_id: (view.key,) if view.view_id != "overview" else () for view in VIEWS},
    "explain": ("p", "j", "enter"),
    "keys": ("question_mark",),
    "smi-stored-probe": ("n", "space", "j", "space", "s"),
    "drivers-workloads": ("d", "tab"),
    "lifecycle-pods": ("i", "tab"),
    "cost-idle-nodes": ("dollar_sign", "tab", "tab"),
    "nodes-filtered": ("n", "slash", "g", "p", "u", "-", "i"),
    "command-completion": ("colon", "l", "i"),
    # drill-down (issue 19): the first pool's first node's pods, its first pod, a Pending group opened
    "node-pods": ("enter", "enter"),
    "pod": ("enter", "enter", "enter"),
    "pending-group-open": ("p", "G", "enter"),
    "node-page": ("n", "enter"),
    "node-events": ("n", "e"),
    "smi-gpus": ("n", "G", "s"),
    # issue 36: a namespace that does not exist is said, not shown as `Pending 0`
    "pending-ns-not-found": ("p", "colon", *"ns nosuch", "enter"),
}


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
@pytest.mark.parametrize("case", CASES.keys())
def test_looks(snap_compare: SnapCompare, case: str, size: tuple[int, int]) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=_keys(*CASES[case]))


def test_no_color_looks(snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=_keys("n"))


def test_light_terminal_looks(snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORFGBG", "0;15")
    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=_keys("p"))


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_confirm_looks(snap_compare: SnapCompare, live: Live, size: tuple[int, int]) -> None:
    """The question before a privileged pod: the node, the image, the namespace."""
    assert snap_compare(live.app(confirm=True), terminal_size=size, run_before=_keys("n", "s"))


def test_readonly_looks(snap_compare: SnapCompare, live: Live) -> None:
    """Read-only, live: no s, no x in the footer."""
    assert snap_compare(live.app(readonly=True), terminal_size=(80, 24), run_before=_keys("n"))


def test_readonly_snapshot_looks(snap_compare: SnapCompare) -> None:
    """Read-only on a snapshot at 80 columns: READ-ONLY in the header's first line, the context shortened."""
    assert snap_compare(demo_app(readonly=True), terminal_size=(80, 24), run_before=_keys())
