"""Pending (`p`): `kubectl gpu pending`, worst verdict first; `enter` opens `kubectl gpu explain` for the pod."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.pending_view import pending_table, requests_text
from kubectl_gpu.render.safe import safe_block
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel, lines
from kubectl_gpu.tui.views.model_grid import Fit, to_grid
from kubectl_gpu.tui.widgets.grid import Table

__all__ = ["PendingView", "diagnosis_of", "fix_renderable"]

# Narrow, the pod, its verdict and its request stay (REQUEST cut at a word's end when it must:
# `nvidia.com/gpu=8,…`; 24 cells hold `aws.amazon.com/neuron=1`); then NEAREST, REASON, NAMESPACE and AGE
# as room allows (every one is in the detail pane).
FITS = (
    Fit("namespace", max_width=24, priority=5),
    Fit("pod", max_width=40, priority=0),
    Fit("verdict", priority=1),
    Fit("request", max_width=30, priority=2, shrink=24),
    Fit("nearest", max_width=32, priority=3),
    Fit("age", priority=6),
    Fit("reason", flex=True, min_width=20, max_width=200, priority=4),
)


def fix_renderable(fix: str | None) -> RenderableType:
    """The fix as the YAML it is (a toleration, a nodeSelector, a NodePool), else as text; made safe."""
    if not fix:
        return Text("-", style=theme.MUTED)
    fix = safe_block(fix)
    looks_yaml = any(line.rstrip().endswith(":") or ": " in line for line in fix.splitlines()[:3])
    if looks_yaml and "\n" in fix:
        return Syntax(fix, "yaml", theme="ansi_dark", background_color="default", word_wrap=True)
    return Text(fix, style=theme.FIX)


def diagnosis_of(row: model.Row) -> PodDiagnosis:
    if not isinstance(row.obj, PodDiagnosis):
        raise TypeError(f"row {row.key} shows a {type(row.obj).__name__}, not a Pending pod")
    return row.obj


def _request(diag: PodDiagnosis) -> str:
    return requests_text(diag)


def _nearest(diag: PodDiagnosis) -> str | None:
    return f"{diag.nearest.kind} {diag.nearest.name}" if diag.nearest else None


def _detail(diag: PodDiagnosis) -> RenderableType:
    head = lines(
        [
            ("Pod", (diag.key, theme.HEADER)),
            ("Verdict", (str(diag.verdict), theme.pending_verdict(diag.verdict))),
            ("Request", _request(diag)),
            ("Nearest", _nearest(diag)),
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
