"""One typed view model (issue 39 item 3): `Row[T]`/`Table[T]` carry the report's own object type, so no
front end asks what a row's object is; and the TUI grid draws the model's rows themselves (no copy)."""

from __future__ import annotations

import re
from pathlib import Path

from kubectl_gpu.kube.source import open_source
from kubectl_gpu.render import model
from kubectl_gpu.tui import data
from kubectl_gpu.tui.views import build_all
from kubectl_gpu.tui.widgets import grid
from kubectl_gpu.tui.widgets.grid_model import Grid
from tests.tui.conftest import DEMO_NOW, demo_config

ROOT = Path(__file__).resolve().parents[2]
#: `isinstance` on a row's object (any spelling of the row: `row.obj`, `r.obj`, `first.obj`)
DISPATCH = re.compile(r"isinstance\(\s*\w+\.obj\b")
#: where one may stay: the Pending grid mixes pods and the groups they fold into (rows typed
#: `PodDiagnosis | PendingGroup`): narrowing that union reads nothing untyped
ALLOWED = {"kubectl_gpu/tui/views/pending.py"}
#: each site left says why, on one of the two lines above it
REASON = "allowed isinstance on row.obj:"


def test_no_front_end_dispatches_on_a_rows_object() -> None:
    found: set[str] = set()
    for path in sorted((ROOT / "kubectl_gpu").rglob("*.py")):
        lines = path.read_text().splitlines()
        name = str(path.relative_to(ROOT))
        for number, line in enumerate(lines):
            if DISPATCH.search(line):
                found.add(name)
                above = " ".join(lines[max(0, number - 2) : number])
                assert REASON in above, f"{name}:{number + 1}: say why the isinstance stays ({REASON} ...)"
    assert found <= ALLOWED, "a table is typed by its rows' object (Table[NodeRow]): read row.obj as that"


def test_the_grid_has_no_table_types_of_its_own() -> None:
    for name in ("Table", "Column", "Cell"):
        assert not hasattr(grid, name), f"widgets.grid defines its own {name}: draw the model's"
    assert getattr(grid, "Row", model.Row) is model.Row


def test_every_view_draws_the_models_rows() -> None:
    snapshot = data.load(open_source(demo_config().source), now=DEMO_NOW, clock=lambda: DEMO_NOW)
    for view_id, view_model in build_all(snapshot).items():
        for section in view_model.sections:
            table = section.table
            assert isinstance(table, Grid) and isinstance(table.table, model.Table), view_id
            rows = set(map(id, table.table.rows))
            # the model's own row objects (a second row of one key alone gets a copy, keyed `key#index`)
            copied = [row.key for row in table.rows if id(row) not in rows and "#" not in row.key]
            assert not copied, f"{view_id}/{section.name} copied {copied[:3]}"
            assert all(isinstance(row, model.Row) for row in table.rows), view_id
