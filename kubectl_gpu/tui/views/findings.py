"""Findings (`f`): `kubectl gpu diagnose`, every analysis's findings worst first; also the findings table the
other views show in their Findings section."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.report import Finding
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.draw import rich_prose
from kubectl_gpu.render.findings import finding_key, findings_block, findings_table, summary_spans
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel
from kubectl_gpu.tui.views.model_grid import Fit, Grid, Shown, to_grid

__all__ = ["FindingsView", "counts_text", "finding_key", "findings_section"]


def _detail(finding: Finding) -> RenderableType:
    hint = "enter: the whole finding, c copies its fix"
    if finding.object.kind == "Node":
        hint += "; s nvidia-smi, x shell on the node"
    return Group(rich_prose(findings_block([finding])), Text(""), Text(hint, style=theme.MUTED))


def _one_line(
    row: model.Row[model.FindingItem], table: model.Table[model.FindingItem]
) -> tuple[Shown, object]:
    """The message's first sentence on one line (the detail pane has it whole)."""
    position = table.index("message")
    cell = row.cells[position]
    return " ".join(table.columns[position].shown(cell).split()), cell.sort_key


def findings_section(findings: Sequence[Finding], empty: str = "No findings.") -> Grid[model.FindingItem]:
    """Narrow, the code and the object stay (the object cut where the room ends, as a name), then the
    severity; the message and the source go first (the detail pane has them)."""
    table = findings_table(findings, source=True)
    fits: tuple[Fit[model.FindingItem], ...] = (
        Fit("severity"),
        Fit("code"),
        Fit("object", max_width=48, shrink=24, names=True),
        Fit("source"),
        Fit(
            "message",
            flex=True,
            min_width=24,
            max_width=300,
            compute=lambda r: _one_line(r, table),
            header=table.columns[table.index("message")].header,
        ),
    )
    return to_grid(
        table,
        fits=fits,
        detail=lambda row: _detail(row.obj.source),
        empty=empty,
    )


def counts_text(findings: Sequence[Finding]) -> Text:
    """The summary line every command ends with (`render.findings.summary_spans`)."""
    return rich_prose(model.Prose(summary_spans(findings)))


class FindingsView(TableView, page="findings"):
    SECTIONS = ("All",)

    @staticmethod
    def build(refresh: Refresh) -> ViewModel:
        report = refresh.diagnose
        table = findings_section(report.findings, "No findings: nothing diagnose would report.")
        return ViewModel((Section("All", table),), summary=counts_text(report.findings))
