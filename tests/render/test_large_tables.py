"""Large tables are written line by line (render.output.LARGE_TABLE_ROWS), not laid out by rich, and read
exactly the same (issue 12, item 8: `nodes --all` on 20,000 nodes spent 25 s in rich's layout)."""

from __future__ import annotations

import io

import pytest
from rich.console import Group
from rich.table import Table
from rich.text import Text

from kubectl_gpu.render import output, theme
from kubectl_gpu.render.safe import safe_line


def render(view: object) -> str:
    """As `cli` writes off a terminal: the tool's own console, no colour."""
    buffer = io.StringIO()
    console = output._Console(file=buffer, width=4000, color_system=None, no_color=True, force_terminal=False)
    output.print_table(console, view)  # type: ignore[arg-type]
    return buffer.getvalue()


def _table(rows: int, *, title: str | None = None) -> Table:
    table = theme.table(["NAME", "GPU", "HEALTH"], title=title)
    table.add_column("IDLE", justify="right", no_wrap=True)
    for i in range(rows):
        health = Text("XID 79" if i % 3 else "ok", style="red" if i % 3 else "green")
        # wide characters, and an escape from cluster data as it reaches a console: made safe (render.safe)
        name = f"i-{i:05d}" if i % 7 else safe_line(f"ｎｏｄｅ-{i}\x1b[31m")
        table.add_row(name, "l40s x4" if i % 2 else "-", health, str(i % 11))
    return table


@pytest.mark.parametrize("title", [None, "GPU nodes"])
def test_the_line_by_line_path_writes_what_rich_writes(
    monkeypatch: pytest.MonkeyPatch, title: str | None
) -> None:
    view = Group(_table(40, title=title), Text("note: something"))
    by_rich = render(view)
    monkeypatch.setattr(output, "LARGE_TABLE_ROWS", 10)
    assert output._large_cells(_table(40)) is not None  # the fast path is taken
    assert render(view) == by_rich


def test_a_table_with_wrapping_columns_is_left_to_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "LARGE_TABLE_ROWS", 0)
    table = theme.table(["NAME", "REASON"], wrap=("REASON",))
    table.add_row("n", "a long reason")
    assert output._large_cells(table) is None


def test_on_a_colour_terminal_the_styles_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "LARGE_TABLE_ROWS", 10)
    buffer = io.StringIO()
    console = output._Console(file=buffer, force_terminal=True, color_system="truecolor", width=200)
    output.print_table(console, _table(40))
    text = buffer.getvalue()
    assert "\x1b[1m" in text or "\x1b[1;" in text  # bold headers
    assert "XID 79" in text and "\x1b[31m\x1b[31m" not in text  # the cluster's escape is shown, inert
    assert "ｎｏｄｅ-0\\x1b[31m" in text
    shown = [line.rstrip() for line in Text.from_ansi(text).plain.splitlines()]
    assert shown == render(_table(40)).splitlines()


def _model(rows: int) -> object:
    from kubectl_gpu.render.model import Cell, Column, Kind, Row, View, prose
    from kubectl_gpu.render.model import Table as ModelTable

    columns = (
        Column("name", "NAME"),
        Column("gpu", "GPU"),
        Column("health", "HEALTH"),
        Column("idle", "IDLE", Kind.COUNT),
    )
    body = []
    for i in range(rows):
        name = (
            f"i-{i:05d}" if i % 7 else f"ｎｏｄｅ-{i}\x1b[31m"
        )  # wide characters; an escape, made safe by the model
        health = Cell("XID 79" if i % 3 else "ok", style="red" if i % 3 else "green")
        body.append(
            Row(str(i), (Cell(name), Cell("l40s x4" if i % 2 else "-"), health, Cell(str(i % 11), i % 11)))
        )
    return View.of([ModelTable("nodes", columns, tuple(body), title="GPU nodes"), prose("note: something")])


def test_a_large_model_table_is_written_from_its_cells_as_rich_would(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _model(40)
    by_rich = render(view)
    monkeypatch.setattr(output, "LARGE_TABLE_ROWS", 10)

    def no_rich_table(table: object) -> object:
        raise AssertionError("a large table of the view model is not drawn by rich")

    monkeypatch.setattr("kubectl_gpu.render.draw.rich_table", no_rich_table)
    assert render(view) == by_rich
    assert "\\x1b[31m" in by_rich and "\x1b" not in by_rich
