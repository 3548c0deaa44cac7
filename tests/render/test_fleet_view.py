"""`render.fleet_view`: each cluster's own view model, as one table per kind of table with a CLUSTER column."""

from __future__ import annotations

import io

from rich.console import Console

from kubectl_gpu.render.draw import rich_view
from kubectl_gpu.render.fleet_view import fleet_view
from kubectl_gpu.render.model import Cell, Column, Row, Table, View, prose


def _text(view: View) -> str:
    console = Console(width=200, color_system=None, record=True, file=io.StringIO())
    console.print(rich_view(view))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def _view(rows: list[tuple[str, str]], summary: str) -> View:
    columns = (Column("name", "NAME"), Column("state", "STATE"))
    table = Table("nodes", columns, tuple(Row(n, (Cell(n), Cell(s))) for n, s in rows), title="NODES")
    other = Table("pools", (Column("pool", "POOL"),), (Row("gpu", (Cell("gpu"),)),))
    return View.of([table, prose(""), other, prose(f"\n{summary}")])


def test_tables_with_the_same_name_and_columns_become_one() -> None:
    view = fleet_view(
        [
            ("prod", _view([("n1", "ok"), ("n2", "bad")], "2 nodes")),
            ("staging", View.sentence("No nodes.")),
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


def test_cluster_is_a_column_of_the_model_and_rows_keep_their_objects() -> None:
    view = fleet_view([("a", _view([("n1", "ok")], "1 node")), ("b", _view([("n1", "ok")], "1 node"))])
    table = view.table("nodes")
    assert table is not None
    assert [c.key for c in table.columns] == ["cluster", "name", "state"]
    assert [r.key for r in table.rows] == ["a/n1", "b/n1"]  # unique across clusters
    assert [table.cell(r, "cluster").text for r in table.rows] == ["a", "b"]


def test_one_cluster_keeps_its_rows() -> None:
    assert _text(fleet_view([("a", _view([("n1", "ok")], "1 node"))])).splitlines()[1:3] == [
        "CLUSTER  NAME  STATE",
        "a        n1    ok",
    ]


def test_blocks_of_text_come_under_their_cluster() -> None:
    """A block (FIXES) under a line naming the cluster; a one-line text (the summary) led by it."""
    block = prose("FIXES\nwarning  CODE  node/n1\n    kubectl uncordon n1")
    view = fleet_view(
        [("prod", View.of([block, prose("2 findings")])), ("dev", View.sentence("No findings."))]
    )
    assert _text(view).splitlines() == [
        "prod:",
        "FIXES",
        "warning  CODE  node/n1",
        "    kubectl uncordon n1",
        "prod: 2 findings",
        "dev: No findings.",
    ]
