"""print_table: fitted to the console where a table reads well at its width, whole where it would not."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from kubectl_gpu.render import theme
from tests.render.helpers import render


def _table(reason: str) -> Table:
    table = theme.table(["NAME", "REASON"], wrap=("REASON",))
    table.add_row("i-0123456789abcdef0", reason)
    return table


def test_a_table_that_fits_wraps_its_wrapping_columns() -> None:
    out = render(_table("the node pool has no room left for one more GPU node today"), width=50)
    assert out == (
        "NAME                 REASON\n"
        "i-0123456789abcdef0  the node pool has no room\n"
        "                     left for one more GPU node\n"
        "                     today\n"
    )


def test_a_table_too_wide_for_the_console_is_printed_whole() -> None:
    """Fitted, rich would cut the name and squeeze REASON out of sight: the table keeps its own width."""
    table = theme.table(["NAME", "NODEPOOL", "REASON"], wrap=("REASON",))
    table.add_row("i-0123456789abcdef0", "gpu-inference-long-name", "no room")
    out = render(table, width=30)
    assert out == (
        "NAME                 NODEPOOL                 REASON\n"
        "i-0123456789abcdef0  gpu-inference-long-name  no room\n"
    )


def test_a_wrapping_column_is_not_squeezed_below_a_readable_width() -> None:
    out = render(_table("a b c d e f g h i j k l m n o p q r s t u v w x y z"), width=30)
    assert out.splitlines()[1] == "i-0123456789abcdef0  a b c d e f g h i j k l m n o p q r s t u v w x y z"


def test_text_in_a_group_wraps_at_the_width_and_tables_are_printed_in_order() -> None:
    view = Group(_table("ok"), Text(""), Text("note: " + "word " * 12))
    lines = render(view, width=40).splitlines()
    assert lines[:3] == ["NAME                 REASON", "i-0123456789abcdef0  ok", ""]
    assert all(len(line) <= 40 for line in lines[3:]) and len(lines) == 5


def test_no_line_ends_in_padding() -> None:
    out = render(_table("short"), width=120)
    assert all(line == line.rstrip() for line in out.splitlines())
