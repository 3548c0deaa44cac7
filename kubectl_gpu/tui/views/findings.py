"""Findings (`f`): `kubectl gpu diagnose`, every analysis's findings worst first; also the findings table the
other views show in their Findings section."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from functools import partial

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.report import Finding, severity_counts
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import findings_block
from kubectl_gpu.tui.data import Snapshot
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel
from kubectl_gpu.tui.views.convert import RowMeta, make_row
from kubectl_gpu.tui.widgets.grid import Column, Table

__all__ = ["FindingsView", "counts_text", "finding_key", "findings_section"]

COLUMNS = (
    Column("SEVERITY"),
    Column("CODE", max_width=44),
    Column("OBJECT", max_width=48),
    Column("SOURCE"),
    Column("MESSAGE", flex=True, min_width=24, max_width=300),
)
_RANK = {"error": 0, "warning": 1, "info": 2}


def finding_key(finding: Finding) -> str:
    """Stable across refreshes: code, object, and a digest of the message (one object can have two)."""
    digest = hashlib.blake2s(finding.message.encode(), digest_size=4).hexdigest()
    return f"{finding.code}|{finding.object}|{digest}"


def _detail(finding: Finding) -> RenderableType:
    hint = "enter: the whole finding, c copies its fix"
    if finding.object.kind == "Node":
        hint += "; s nvidia-smi, x shell on the node"
    return Group(findings_block([finding]), Text(""), Text(hint, style=theme.MUTED))


def findings_section(findings: Sequence[Finding], empty: str = "No findings.") -> Table:
    rows = []
    for finding in findings:
        node = finding.object.name if finding.object.kind == "Node" else None
        meta = RowMeta(finding_key(finding), finding.object, node, partial(_detail, finding))
        severity = Text(str(finding.severity), style=theme.severity(finding.severity))
        message = " ".join(finding.message.split())
        row = make_row([severity, finding.code, str(finding.object), finding.source or "-", message], meta)
        sort = (_RANK.get(str(finding.severity), 3), *row.sort[1:])
        rows.append(dataclasses.replace(row, sort=sort))
    return Table(COLUMNS, tuple(rows), empty=empty)


def counts_text(findings: Sequence[Finding]) -> Text:
    counts = severity_counts(findings)
    out = Text()
    for name in ("error", "warning", "info"):
        out.append(
            f"{counts.get(name, 0)} {name}", style=theme.severity(name) if counts.get(name) else theme.MUTED
        )
        out.append("  ")
    out.rstrip()
    return out


class FindingsView(TableView):
    view_id = "findings"
    title = "Findings"
    key = "f"
    footer = "Finding"
    SECTIONS = ("All",)

    @staticmethod
    def build(snapshot: Snapshot) -> ViewModel:
        report = snapshot.diagnose
        table = findings_section(report.findings, "No findings: nothing diagnose would report.")
        return ViewModel((Section("All", table),), summary=counts_text(report.findings))
