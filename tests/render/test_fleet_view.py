"""`render.fleet_view`: each cluster's own view, as one table per kind of table with a CLUSTER column."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.text import Text

from kubectl_gpu.render import theme
from kubectl_gpu.render.fleet_view import fleet_view


def _text(view: object) -> str:
    console = Console(width=200, color_system=None, record=True, file=io.StringIO())
    console.print(view)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def _view(rows: list[tuple[str, str]], summary: str) -> Group:
    table = theme.table(["NAME", "STATE"], title="NODES")
    for row in rows:
        table.add_row(*row)
    other = theme.table(["POOL"])
    other.add_row("gpu")
    return Group(table, Text(""), other, Text(f"\n{summary}"))


def test_tables_with_the_same_title_and_columns_become_one() -> None:
    view = fleet_view(
        [
            ("prod", _view([("n1", "ok"), ("n2", "bad")], "2 nodes")),
            ("staging", Text("No nodes.")),
            ("dev", _view([("n3", "ok")], "1 node")),
        ]
    )
    assert _text(view).splitlines() == [
        "NODES",
        "CLUSTER  NAME  STATE",
        "prod     n1    ok",
        "prod     n2    bad",
        "dev      n3    ok",
        "",
        "CLUSTER  POOL",
        "prod     gpu",
        "dev      gpu",
        "",
        "prod: 2 nodes",
        "staging: No nodes.",
        "dev: 1 node",
    ]


def test_one_cluster_keeps_its_rows() -> None:
    assert _text(fleet_view([("a", _view([("n1", "ok")], "1 node"))])).splitlines()[1:3] == [
        "CLUSTER  NAME  STATE",
        "a        n1    ok",
    ]


def test_blocks_of_text_come_under_their_cluster() -> None:
    block = Text("WARNING CODE  node/n1\n  message\nINFO    OTHER  node/n2\n  more")
    view = fleet_view([("prod", Group(block, Text("2 findings"))), ("dev", Text("No findings."))])
    assert _text(view).splitlines() == [
        "prod:",
        "WARNING CODE  node/n1",
        "  message",
        "INFO    OTHER  node/n2",
        "  more",
        "2 findings",
        "dev: No findings.",
    ]
