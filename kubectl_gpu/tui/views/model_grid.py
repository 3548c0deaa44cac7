"""The view model (`render.model`) as the TUI's grid: each view picks the model's columns by their key
(never by header text), says how wide each may grow, and may add columns of its own (a bar) computed from
the row's typed object (`widgets.grid_model`). The grid draws the model's rows themselves: cells keep the
model's text (already made safe; a `brief` column's first sentence) and sort by the model's values. Which
columns a narrow terminal keeps is the model's `Column.priority` (a view may say otherwise), and a code
column (`Kind.CODE`) is shown whole or left out, never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import RenderableType

from kubectl_gpu.render import model
from kubectl_gpu.tui.widgets.grid_model import Fit, Grid, Shown

__all__ = ["Fit", "Grid", "Shown", "to_grid"]

T = TypeVar("T")


def to_grid(
    table: model.Table[T] | None,
    *,
    fits: Sequence[Fit[T]] | None = None,
    detail: Callable[[model.Row[T]], RenderableType] | None = None,
    empty: str = "Nothing to show.",
) -> Grid[T]:
    """The grid of `table` (None: an empty one), its columns as `fits` lays them out (default: all)."""
    return Grid(table, fits, detail=detail, empty=empty)
