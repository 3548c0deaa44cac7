"""Pending (`p`): `kubectl gpu pending`, worst verdict first, grouped by the workload that made the pods
(`render.pending_groups`: a group of several pods is one row; `enter` or `space` opens it); `enter` on a pod
opens `kubectl gpu explain` for it."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

import msgspec
from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.fixes import is_command, pasteable
from kubectl_gpu.render.page_lines import namespace_missing, page_text
from kubectl_gpu.render.pending_groups import PendingGroup, grouped_rows, pending_groups
from kubectl_gpu.render.pending_view import pending_table, requests_text
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.model_grid import Fit, Grid, to_grid

__all__ = ["PendingModel", "PendingView", "build_pending", "fix_renderable"]

#: a row of the Pending grid: a pod's, or a group's of several pods
PendingRow = model.Row[PodDiagnosis | PendingGroup]

# Narrow, the pod, its verdict and its request stay (REQUEST cut at a word's end when it must:
# `nvidia.com/gpu=8,…`; 24 cells hold `aws.amazon.com/neuron=1`); then NEAREST, REASON, NAMESPACE and AGE
# as room allows (every one is in the detail pane).
FITS: tuple[Fit[PodDiagnosis | PendingGroup], ...] = (
    Fit("namespace", max_width=24, priority=5),
    Fit("pod", max_width=40, priority=0, names=True),  # a workload or pod: its name, not `ns/…`
    Fit("verdict", priority=1),
    Fit("request", max_width=30, priority=2, shrink=24),
    Fit("nearest", max_width=32, priority=3),
    Fit("age", priority=6),
    Fit("reason", flex=True, min_width=20, max_width=200, priority=4),
)
EMPTY = "No Pending pods requesting accelerators."


def fix_renderable(fix: str | None) -> RenderableType:
    """The fix as the CLI prints it and `c` copies it (`render.fixes.pasteable`: YAML and commands as
    written, prose as `#` comments), made safe; highlighted as YAML when it holds some."""
    if not fix:
        return Text("-", style=theme.MUTED)
    block = pasteable(page_text(fix))
    if any(not line.lstrip().startswith("#") and not is_command(line.strip()) for line in block):
        from rich.syntax import Syntax  # pygments: on the first fix shown, not at start-up

        return Syntax("\n".join(block), "yaml", theme="ansi_dark", background_color="default", word_wrap=True)
    return Text("\n".join(block), style=theme.FIX)


def _request(diag: PodDiagnosis) -> str:
    return requests_text(diag)


def _nearest(diag: PodDiagnosis) -> str | None:
    return f"{diag.nearest.kind} {diag.nearest.name}" if diag.nearest else None


def _age(table: model.Table[PodDiagnosis], row: PendingRow, diag: PodDiagnosis) -> str | None:
    """The AGE column's text (the view model's, as `kubectl get pods` shows it) and since when."""
    age = table.cell(row, "age").text
    if diag.created is None:
        return None if age == "-" else age
    return f"{age} (created {timestamp(diag.created)})"


def _detail(table: model.Table[PodDiagnosis], row: PendingRow, diag: PodDiagnosis) -> RenderableType:
    head = lines(
        [
            ("Pod", (diag.key, theme.HEADER)),
            ("Verdict", (str(diag.verdict), theme.pending_verdict(diag.verdict))),
            ("Age", _age(table, row, diag)),
            ("Request", _request(diag)),
            ("Nearest", _nearest(diag)),
            ("Reason", diag.reason),
        ]
    )
    return Group(head, Text("Fix:", style=theme.HEADER), fix_renderable(diag.fix), Text(""), _hint())


def _group_detail(group: PendingGroup) -> RenderableType:
    """A group: what it is, how many pods have which verdict, and its worst pod's fix."""
    first = group.diagnoses[0]
    verdicts = ", ".join(f"{count} {verdict}" for verdict, count in group.verdicts().items())
    head = lines(
        [
            ("Group", (group.label, theme.HEADER)),
            ("Pods", f"{len(group.members)} Pending: {verdicts}"),
            ("Worst", first.key),
            ("Reason", first.reason),
        ]
    )
    hint = Text("enter or space: open the group (its pods; enter on one explains it)", style=theme.MUTED)
    return Group(
        head, Text("Fix (of the worst):", style=theme.HEADER), fix_renderable(first.fix), Text(""), hint
    )


def _row_detail(table: model.Table[PodDiagnosis], row: PendingRow) -> RenderableType:
    # allowed isinstance on row.obj: the grid's rows are typed PodDiagnosis | PendingGroup (pods and the
    # groups they fold into, one list, in the table's order); this narrows that union, nothing untyped
    if isinstance(row.obj, PendingGroup):
        return _group_detail(row.obj)
    return _detail(table, row, row.obj)


def _hint() -> Text:
    return Text("enter: explain (target by target, events, the fix; c copies it)", style=theme.MUTED)


class PendingModel(ViewModel, frozen=True, dict=True):
    """The view's model and what re-laying it out needs when a group opens or closes (on the UI thread:
    only the rows shown are built again, never the analysis)."""

    table: model.Table[PodDiagnosis] | None = None
    groups: tuple[PendingGroup, ...] = msgspec.field(default=())
    #: what the table says when it has no row
    empty: str = EMPTY


def empty_text(refresh: Refresh) -> str:
    """No row: none Pending, or the namespace in scope does not exist (never `0` as if all were fine)."""
    missing = refresh.namespace_missing
    if missing is None:
        return EMPTY
    return namespace_missing(missing)


def grid_of(
    table: model.Table[PodDiagnosis] | None,
    groups: tuple[PendingGroup, ...],
    expanded: set[str],
    empty: str = EMPTY,
) -> Grid[PodDiagnosis | PendingGroup]:
    if table is None:
        return to_grid(None, fits=FITS, empty=empty)
    return to_grid(
        table.with_rows(grouped_rows(table, groups, expanded)),
        fits=FITS,
        detail=partial(_row_detail, table),
        empty=empty,
    )


def build_pending(refresh: Refresh) -> Grid[Any]:
    """The Pending grid as the view first shows it (every group closed)."""
    return PendingView.build(refresh).sections[0].table


class PendingView(TableView, page="pending"):
    SECTIONS = ("Pods",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_group", "Open group", show=False),
        Binding("t", "try", "Try"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.expanded: set[str] = set()

    def on_mount(self) -> None:
        for grid in self.grids:
            grid.markable = False

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        report = refresh.pending
        table = pending_table(report, wide=True) if report.pods else None
        groups = tuple(pending_groups(table, refresh.state)) if table is not None else ()
        empty = empty_text(refresh)
        section = Section("Pods", grid_of(table, groups, set(), empty))
        return PendingModel((section,), table=table, groups=groups, empty=empty)

    def show(self, model: ViewModel) -> None:
        if isinstance(model, PendingModel) and self.expanded:  # groups stay open across refreshes
            section = Section("Pods", grid_of(model.table, model.groups, self.expanded, model.empty))
            model = PendingModel(
                (section,), model.summary, model.notes, model.table, model.groups, model.empty
            )
        super().show(model)

    def open_row(self, row: model.Row[Any]) -> bool:
        """`enter` or `space` on a group opens it, or closes it (the cursor stays on the group)."""
        model = self.model
        if not row.key.startswith("group:") or not isinstance(model, PendingModel):
            return False
        self.expanded ^= {row.key}
        self.grid.set_table(grid_of(model.table, model.groups, self.expanded, model.empty))
        self.grid.move_to(row.key)
        self._title()
        return True

    def count_note(self) -> str:
        """Rows are pods and closed groups: the header's Pending count is pods, so say it here too."""
        model = self.model
        if not isinstance(model, PendingModel) or model.table is None or not model.groups:
            return ""
        return f"rows, {len(model.table.rows)} pods"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_group":  # a group under the cursor
            row = self.grid.cursor_row if self.grids else None
            return row is not None and row.key.startswith("group:")
        if action == "try":  # a pod whose fix the verifier made as a change
            diag = self._cursor_pod()
            return diag is not None and bool(diag.fix_changes)
        return super().check_action(action, parameters)

    def _cursor_pod(self) -> PodDiagnosis | None:
        row = self.grid.cursor_row if self.grids else None
        # allowed isinstance on row.obj: the grid's rows are typed PodDiagnosis | PendingGroup; this narrows
        return row.obj if row is not None and isinstance(row.obj, PodDiagnosis) else None

    def action_try(self) -> None:
        """`t`: the pod's fix tried cluster-wide (`screens/try_change.py`)."""
        from kubectl_gpu.tui.screens.try_change import try_fix

        diag = self._cursor_pod()
        if diag is not None:
            try_fix(self.app, diag)

    def action_toggle_group(self) -> None:
        row = self.grid.cursor_row
        if row is not None:
            self.open_row(row)
