"""Pending (`p`): `kubectl gpu pending`, worst verdict first; `enter` opens `kubectl gpu explain` for the pod."""

from __future__ import annotations

from functools import partial

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.pending_view import pending_table
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.convert import RowMeta, make_row, rich_rows, tables_of
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["PendingView", "fix_renderable"]

COLUMNS = (
    Column("NAMESPACE", max_width=24),
    Column("POD", max_width=40),
    Column("VERDICT"),
    Column("REQUEST", max_width=30),
    Column("NEAREST", max_width=32),
    Column("AGE"),
    Column("REASON", flex=True, min_width=20, max_width=200),
)


def fix_renderable(fix: str | None) -> RenderableType:
    """The fix as the YAML it is (a toleration, a nodeSelector, a NodePool), else as text."""
    if not fix:
        return Text("-", style=theme.MUTED)
    looks_yaml = any(line.rstrip().endswith(":") or ": " in line for line in fix.splitlines()[:3])
    if looks_yaml and "\n" in fix:
        return Syntax(fix, "yaml", theme="ansi_dark", background_color="default", word_wrap=True)
    return Text(fix, style=theme.FIX)


def _detail(diag: PodDiagnosis) -> RenderableType:
    verdict = Text(str(diag.verdict), style=theme.pending_verdict(diag.verdict))
    head = lines(
        [
            ("Pod", Text(diag.key, style=theme.HEADER)),
            ("Verdict", verdict),
            ("Reason", diag.reason),
        ]
    )
    return Group(head, Text("Fix:", style=theme.HEADER), fix_renderable(diag.fix), Text(""), _hint())


def _hint() -> Text:
    return Text("enter: explain (target by target, events, the fix; c copies it)", style=theme.MUTED)


def build_pending(snapshot: Snapshot) -> Table:
    report = snapshot.pending
    cli_rows = rich_rows(tables_of(pending_table(report, wide=True))[0]) if report.pods else []
    rows = []
    for diag, cells in zip(report.pods, cli_rows, strict=True):
        meta = RowMeta(diag.key, ObjectRef("Pod", diag.name, diag.namespace), None, partial(_detail, diag))
        rows.append(make_row([cells.get(c.label, "") for c in COLUMNS], meta))
    return Table(COLUMNS, tuple(rows), empty="No Pending pods requesting accelerators.")


class PendingView(TableView):
    view_id = "pending"
    title = "Pending"
    key = "p"
    SECTIONS = ("Pods",)

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        return ViewModel((Section("Pods", build_pending(snapshot)),))
