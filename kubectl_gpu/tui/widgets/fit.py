"""Fitting a table to the terminal's width: which columns are shown (by priority), how wide each is, and
how a cell too long for its column is cut (at a word's end, with an ellipsis; never `nvidia.com/gp`, never
a code: `ERROR ACCELERATED_HARDWAR…` reads `ERROR …`).

A column that does not fit is left out, not cut: its value is in the detail pane under the table. A
`whole` column (a code: a verdict, a finding's code) is never narrowed: shown whole or left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rich.text import Text

__all__ = ["GAP", "GUTTER", "cut", "fit_widths"]

GAP = 2  # spaces between columns
GUTTER = 2  # the mark column: "● " on marked rows
#: where a cut may fall: after one of these (a word, a list item, a path segment)
_BREAKS = " ,;/|"


class Fitted(Protocol):
    @property
    def flex(self) -> bool: ...
    @property
    def min_width(self) -> int: ...
    @property
    def priority(self) -> int: ...
    @property
    def shrink(self) -> int: ...
    @property
    def whole(self) -> bool: ...


def fit_widths(
    columns: Sequence[Fitted], natural: Sequence[int], width: int, gutter: int = GUTTER
) -> list[int]:
    """Each column's width in `width` cells; 0 for a column left out.

    Columns are taken most important first (`priority`, then position) at their smallest (a flex column
    at its `min_width`, a column with `shrink` at that, a `whole` one or any other at its natural width)
    while they fit; what is left widens them back, most important first, the flex column last (it takes
    the rest)."""
    count = len(natural)
    smallest = [_smallest(columns[i], natural[i]) for i in range(count)]
    order = sorted(range(count), key=lambda i: (columns[i].priority, i))
    room = width - gutter
    shown: list[int] = []
    used = 0
    for index in order:
        need = smallest[index] + (GAP if shown else 0)
        if used + need <= room:
            shown.append(index)
            used += need
    if not shown and count:  # not even the first fits: it gets what there is
        first = order[0]
        return [max(1, room) if i == first else 0 for i in range(count)]
    widths = [smallest[i] if i in shown else 0 for i in range(count)]
    left = room - used
    flexes = [i for i in shown if columns[i].flex]
    for index in [i for i in shown if not columns[i].flex] + flexes:
        grow = min(left, natural[index] - widths[index])
        widths[index] += grow
        left -= grow
    return widths


def _smallest(column: Fitted, natural: int) -> int:
    if column.whole:
        return natural
    return min(natural, column.min_width if column.flex else column.shrink or natural)


def cut(text: Text, width: int, *, words: bool = True) -> Text:
    """`text` in `width` cells: whole when it fits, else cut after its last word that fits, then `…`;
    never inside a word (a text whose first word does not fit is `…`: the detail pane has it whole).
    `words=False` for a name (a pod's, a workload's): cut where the room ends, since its beginning is what
    tells it apart (cut at a word, `Deployment ml/` would stand for every workload of `ml`)."""
    if text.cell_len <= width:
        return text
    if width <= 1:
        return Text("…"[:width], style=text.style)
    plain = text.plain
    limit = width - 1
    if words:
        # a space may sit just past the room (it is dropped); any other break is kept, so must fit
        at = max(plain.rfind(" ", 0, limit + 1), *(plain.rfind(c, 0, limit) for c in _BREAKS))
        end = at + 1 if at >= 1 else 0
    else:
        end = limit
    out = text[:end]
    out.rstrip()
    out.append("…")
    return out
