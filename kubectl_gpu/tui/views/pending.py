"""Pending (`p`): `kubectl gpu pending`, worst verdict first; `enter` opens `kubectl gpu explain` for the pod."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.fixes import is_command, pasteable
from kubectl_gpu.render.pending_view import pending_table
from kubectl_gpu.render.safe import safe_block
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.model_grid import Fit, to_grid
from kubectl_gpu.tui.widgets.grid import Table

__all__ = ["PendingView", "diagnosis_of", "fix_renderable"]

FITS = (
    Fit("namespace", max_width=24),
    Fit("pod", max_width=40),
    Fit("verdict"),
    Fit("request", max_width=30),
    Fit("nearest", max_width=32),
    Fit("age"),
    Fit("reason", flex=True, min_width=20, max_width=200),
)


def fix_renderable(fix: str | None) -> RenderableType:
    """The fix as the CLI prints it and `c` copies it (`render.fixes.pasteable`: YAML and commands as
    written, prose as `#` comments), made safe; highlighted as YAML when it holds some."""
    if not fix:
        return Text("-", style=theme.MUTED)
    block = pasteable(safe_block(fix))
    if any(not line.lstrip().startswith("#") and not is_command(line.strip()) for line in block):
        return Syntax("\n".join(block), "yaml", theme="ansi_dark", background_color="default", word_wrap=True)
    return Text("\n".join(block), style=theme.FIX)


def diagnosis_of(row: model.Row) -> PodDiagnosis:
    if not isinstance(row.obj, PodDiagnosis):
        raise TypeError(f"row {row.key} shows a {type(row.obj).__name__}, not a Pending pod")
    return row.obj


def _detail(diag: PodDiagnosis) -> RenderableType:
    head = lines(
        [
            ("Pod", (diag.key, theme.HEADER)),
            ("Verdict", (str(diag.verdict), theme.pending_verdict(diag.verdict))),
            ("Reason", diag.reason),
        ]
    )
    return Group(head, Text("Fix:", style=theme.HEADER), fix_renderable(diag.fix), Text(""), _hint())


def _hint() -> Text:
    return Text("enter: explain (target by target, events, the fix; c copies it)", style=theme.MUTED)


def build_pending(snapshot: Refresh) -> Table:
    report = snapshot.pending
    return to_grid(
        pending_table(report, wide=True) if report.pods else None,
        fits=FITS,
        detail=lambda row: _detail(diagnosis_of(row)),
        empty="No Pending pods requesting accelerators.",
    )


class PendingView(TableView):
    view_id = "pending"
    title = "Pending"
    key = "p"
    SECTIONS = ("Pods",)

    @staticmethod
    def build(snapshot: Refresh) -> ViewModel:
        return ViewModel((Section("Pods", build_pending(snapshot)),))
