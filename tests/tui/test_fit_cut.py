"""Cells are cut at a word's end with an ellipsis, never inside a word; a code column is never narrowed
(shown whole or left out); the columns kept when narrow are the most important first (issue 39, point 5)."""

from __future__ import annotations

import pytest
from rich.text import Text

from kubectl_gpu.render.model import Column, Kind
from kubectl_gpu.tui.widgets.fit import cut, fit_widths
from kubectl_gpu.tui.widgets.grid_model import Fit, GridColumn


def _column(header: str, *, priority: int, kind: Kind = Kind.TEXT, shrink: int = 0) -> GridColumn:
    """A column of the model as the grid lays it out (a code: whole, never shrunk)."""
    key = header.lower()
    return GridColumn(Column(key, header, kind), Fit(key, priority=priority, shrink=shrink), 0)


CUTS = {
    "fits": ("nvidia.com/gpu=8", 20, "nvidia.com/gpu=8"),
    "at a word": ("no instance type fits the pod", 16, "no instance…"),
    "a space just past the room": ("abcdefghi jkl", 10, "abcdefghi…"),
    "at a list item": ("nvidia.com/gpu=8,vpc.amazonaws.com/efa=32", 24, "nvidia.com/gpu=8,…"),
    "never inside a code": ("ERROR ACCELERATED_HARDWARE_NOT_READY", 25, "ERROR…"),
    "one word too long": ("ACCELERATED_HARDWARE_NOT_READY", 12, "…"),
    "one cell": ("anything", 1, "…"),
}


@pytest.mark.parametrize("name", sorted(CUTS))
def test_cut_at_a_word(name: str) -> None:
    text, width, expected = CUTS[name]
    out = cut(Text(text), width)
    assert out.plain == expected and out.cell_len <= width


def test_a_name_is_cut_where_the_room_ends() -> None:
    assert cut(Text("Deployment ml/pending-g5-s1063"), 20, words=False).plain == "Deployment ml/pendi…"


def test_narrow_keeps_the_most_important_columns_whole() -> None:
    name = _column("NAME", priority=0)
    pool = _column("NODEPOOL", priority=2)
    driver = _column("DRIVER", priority=1)
    code = _column("VERDICT", priority=1, kind=Kind.CODE, shrink=5)
    natural = [19, 13, 10, 24]
    widths = fit_widths([name, pool, driver, code], natural, 60)
    assert widths == [19, 0, 10, 24]  # NODEPOOL left out; the code whole, never shrunk to 5
    assert fit_widths([name, pool, driver, code], natural, 40) == [19, 0, 10, 0]  # no room: the code goes
