"""A view-model table drawn on a page (nvidia-smi's GPUs, an object's events) fitted to the page's width
when it is drawn: the columns that fit, most important first (`widgets.fit`), a line per row, a cell too
long cut at a word's end; the one `flex` column (MESSAGE) takes the rest and wraps, so it is never lost."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import msgspec
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from kubectl_gpu.render import model, theme
from kubectl_gpu.tui.widgets.fit import GAP, cut, fit_widths

__all__ = ["FittedTable"]


class _Fit(msgspec.Struct, frozen=True):
    flex: bool
    min_width: int
    priority: int
    shrink: int = 0
    whole: bool = False


class FittedTable:
    """`table` as lines; `priorities` by column key (the others after them, by the model's `priority`,
    then position)."""

    def __init__(
        self,
        table: model.Table[object],
        *,
        priorities: Mapping[str, int] | None = None,
        flex: str | None = None,
        min_flex: int = 20,
    ) -> None:
        self.table = table
        given = priorities or {}
        self.fits = [
            _Fit(
                c.key == flex,
                min_flex,
                given.get(c.key, len(given) + c.priority),
                whole=c.kind == model.Kind.CODE,
            )
            for c in table.columns
        ]
        self.cells = [
            [Text(c.shown(cell), style=cell.style) for c, cell in zip(table.columns, r.cells, strict=False)]
            for r in table.rows
        ]
        self.natural = [
            max([len(c.header), *(row[i].cell_len for row in self.cells if i < len(row))])
            for i, c in enumerate(table.columns)
        ]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = fit_widths(self.fits, self.natural, options.max_width, gutter=0)
        if self.table.title:
            yield Text(self.table.title, style=theme.HEADER)
        if self.table.show_header:
            header = [Text(c.header) for c in self.table.columns]
            yield from self._lines(console, header, widths, style=theme.HEADER)
        for cells in self.cells:
            yield from self._lines(console, [cell.copy() for cell in cells], widths)

    def _lines(
        self, console: Console, cells: list[Text], widths: list[int], style: str = ""
    ) -> Iterator[Text]:
        shown = [i for i, w in enumerate(widths) if w]
        wrapped: dict[int, list[Text]] = {}
        for i in shown:
            if self.fits[i].flex and i < len(cells):
                wrapped[i] = list(cells[i].wrap(console, widths[i])) or [Text("")]
        height = max((len(v) for v in wrapped.values()), default=1)
        for line_no in range(height):
            line = Text(style=style, end="\n")
            for position, i in enumerate(shown):
                if i in wrapped:
                    part = wrapped[i][line_no] if line_no < len(wrapped[i]) else Text("")
                elif line_no == 0 and i < len(cells):
                    part = cut(cells[i], widths[i])
                else:
                    part = Text("")
                right = i < len(self.table.columns) and self.table.columns[i].right
                pad = " " * (widths[i] - part.cell_len)
                line.append_text(Text(pad) + part if right else part + Text(pad))
                if position != len(shown) - 1:
                    line.append(" " * GAP)
            line.rstrip()
            yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> object:
        from rich.measure import Measurement

        total = sum(self.natural) + GAP * max(len(self.natural) - 1, 0)
        return Measurement(min(total, options.max_width), min(total, options.max_width))
