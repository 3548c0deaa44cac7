"""Bars drawn as text, so that a table cell can hold one: accelerators requested / free / unavailable, and
a node's life until its expiry.

Each part has its own glyph as well as its colour (colour only repeats what the glyph says), so the bars
read the same with NO_COLOR and on light terminals.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from rich.text import Text

from kubectl_gpu.render import theme

__all__ = [
    "ALLOCATED",
    "FREE",
    "IDLE",
    "UNAVAILABLE",
    "allocation_bar",
    "count_text",
    "expiry_bar",
    "legend",
    "unknown_bar",
]


def count_text(value: Decimal) -> str:
    """A count of accelerators as people write it: 2, not 2.0 (a share of a node's requests); 1.5 stays."""
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


#: (glyph, style) of each part of the allocation bar
ALLOCATED = ("█", theme.GOOD)
FREE = ("▒", theme.INFO)
IDLE = ("░", theme.WARNING)
UNAVAILABLE = ("×", theme.ERROR)


def _cells(parts: list[Decimal], width: int) -> list[int]:
    """Whole cells per part, summing to `width`, largest remainders first; a non-empty part gets >= 1."""
    total = sum(parts)
    if total <= 0 or width <= 0:
        return [0 for _ in parts]
    exact = [p * width / total for p in parts]
    cells = [int(e) for e in exact]
    for index, part in enumerate(parts):
        if part > 0 and cells[index] == 0:
            cells[index] = 1
    order = sorted(range(len(parts)), key=lambda i: exact[i] - cells[i], reverse=True)
    at = 0
    while sum(cells) < width and order:
        cells[order[at % len(order)]] += 1
        at += 1
    while sum(cells) > width:
        biggest = max(range(len(cells)), key=lambda i: cells[i])
        cells[biggest] -= 1
    return cells


def allocation_bar(
    requested: Decimal,
    free: Decimal,
    unavailable: Decimal = Decimal(0),
    *,
    width: int = 12,
) -> Text:
    """`width` cells split in proportion (`AcceleratorParts.bar`, docs/vocabulary.md): requested, free
    (schedulable now), unavailable (idle but not free: withdrawn devices, a cordoned or NotReady node).
    Empty (no accelerator) is a run of `·`."""
    parts = [requested, free, unavailable]
    glyphs = [ALLOCATED, FREE, UNAVAILABLE]
    if sum(parts) <= 0:
        return Text("·" * width, style=theme.MUTED)
    bar = Text()
    for (glyph, style), cells in zip(glyphs, _cells(parts, width), strict=True):
        if cells:
            bar.append(glyph * cells, style=style)
    return bar


def unknown_bar(width: int = 12) -> Text:
    """The bar of a node whose pods could not all be read: what is allocated and free is not known."""
    return Text("?" * width, style=theme.WARNING)


def expiry_bar(created: datetime | None, expires: datetime | None, now: datetime, *, width: int = 10) -> Text:
    """How much of a node's life is used up: full at expiry. Red within a day of it, yellow within three."""
    if created is None or expires is None or expires <= created:
        return Text("·" * width, style=theme.MUTED)
    life = (expires - created).total_seconds()
    used = min(max((now - created).total_seconds() / life, 0.0), 1.0)
    cells = min(width, max(1 if used > 0 else 0, round(used * width)))
    left = (expires - now).total_seconds()
    style = theme.ERROR if left < 86400 else theme.WARNING if left < 3 * 86400 else theme.GOOD
    bar = Text("█" * cells, style=style)
    bar.append("░" * (width - cells), style=theme.MUTED)
    return bar


def legend(numbers: bool = False) -> Text:
    """What the allocation bar's glyphs mean, for a view's title line."""
    out = Text("numbers: requested/free/idle   " if numbers else "", style=theme.MUTED)
    for (glyph, style), name in zip(  # docs/vocabulary.md; idle = free + unavailable
        (ALLOCATED, FREE, UNAVAILABLE), ("requested", "free", "unavailable"), strict=True
    ):
        out.append(glyph, style=style)
        out.append(f" {name}  ")
    out.rstrip()
    return out
