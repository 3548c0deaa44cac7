"""Pending pods grouped by the workload that made them (the groups are core's:
`core.analyses.diagnose.workloads`, by owner, bare pods by their shape), as rows of the pending table: a group of several pods is one row with its member count, followed by its members when expanded;
a group of one is its pod's own row. Groups keep the pending order (worst verdict first) of their first
member, so a 2,000-pod job stuck on one cause is one line near the top."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

import msgspec

from kubectl_gpu.core.analyses.diagnose.workloads import GROUP_PREFIX, PendingWorkloads, workload_groups
from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Row, Table, View

__all__ = ["GROUP_PREFIX", "PendingGroup", "grouped_rows", "pending_groups", "workloads_view"]


class PendingGroup(msgspec.Struct, frozen=True):
    """`key` is stable across refreshes (`group:Job ml/train`); `label` what the row says; `members` the
    pending table's rows of its pods, in the table's order (worst first)."""

    key: str
    label: str
    members: tuple[Row[PodDiagnosis], ...]

    @property
    def diagnoses(self) -> list[PodDiagnosis]:
        return [row.obj for row in self.members]

    def verdicts(self) -> dict[str, int]:
        """How many members have each verdict, worst first."""
        out: dict[str, int] = {}
        for diag in self.diagnoses:
            out[str(diag.verdict)] = out.get(str(diag.verdict), 0) + 1
        return out


def pending_groups(table: Table[PodDiagnosis], state: ClusterState) -> list[PendingGroup]:
    """The pending table's rows (objects: `PodDiagnosis`) grouped as core groups them
    (`core.analyses.diagnose.workloads`), in the order of each group's first row."""
    rows = {row.obj.key: row for row in table.rows}
    diagnoses = [row.obj for row in rows.values()]
    return [
        PendingGroup(group.key, group.label, tuple(rows[key] for key in group.pods))
        for group in workload_groups(diagnoses, state)
    ]


def _oldest(ages: Iterable[Cell]) -> Cell:
    """The AGE of a group: its oldest pod's (how long the workload has waited); `-` when none is known."""
    known = [cell for cell in ages if isinstance(cell.sort, int | float)]
    return max(known, key=lambda cell: cell.sort or 0) if known else Cell("-")


def _group_row(table: Table[PodDiagnosis], group: PendingGroup, open_: bool) -> Row[PendingGroup]:
    """The first member's cells (the AGE: its oldest pod's), the pod's cell naming the workload and how
    many pods it has."""
    first = group.members[0]
    cells = list(first.cells)
    pod = table.index("pod")
    mark = "▾" if open_ else "▸"
    cells[pod] = Cell(f"{mark} {group.label} ({len(group.members)} pods)", style=theme.HEADER)
    if any(column.key == "age" for column in table.columns):
        age = table.index("age")
        cells[age] = _oldest(row.cells[age] for row in group.members)
    verdicts = group.verdicts()
    if len(verdicts) > 1:
        verdict = table.index("verdict")
        first_cell = cells[verdict]
        cells[verdict] = replace(first_cell, text=f"{first_cell.text} +{len(verdicts) - 1}")
    return Row(group.key, tuple(cells), None, None, group)


def _member_row(table: Table[PodDiagnosis], row: Row[PodDiagnosis]) -> Row[PodDiagnosis]:
    cells = list(row.cells)
    pod = table.index("pod")
    cells[pod] = replace(cells[pod], text=f"  {cells[pod].text}")
    return replace(row, cells=tuple(cells))


def grouped_rows(
    table: Table[PodDiagnosis], groups: Iterable[PendingGroup], expanded: Collection[str]
) -> list[Row[PodDiagnosis | PendingGroup]]:
    """The rows to show: each group of several pods as one row (its members under it when `expanded`),
    each group of one as its pod's row."""
    out: list[Row[PodDiagnosis | PendingGroup]] = []
    for group in groups:
        if len(group.members) == 1:
            out.append(group.members[0])
            continue
        is_open = group.key in expanded
        out.append(_group_row(table, group, is_open))
        if is_open:
            out.extend(_member_row(table, row) for row in group.members)
    return out


def workloads_view(report: PendingWorkloads, state: ClusterState, *, wide: bool, all_pending: bool) -> View:
    """`pending --by-workload`: the pending view with each workload of several pods as one row (its count,
    its oldest pod's AGE, its verdicts), as the TUI's Pending view shows them folded."""
    from kubectl_gpu.render.pending_view import pending_view

    view = pending_view(report.pending, wide=wide, all_pending=all_pending)
    parts = []
    for part in view.parts:
        if isinstance(part, Table) and part.has("pod") and part.has("verdict"):
            table: Table[PodDiagnosis] = part
            rows = grouped_rows(table, pending_groups(table, state), ())
            part = table.with_rows(rows)
        parts.append(part)
    return View(tuple(parts), empty=view.empty)
