"""`kubectl gpu simulate` as a view model: the changes made, then one table per direction (worse, better,
unchanged) of AREA, OBJECT, EFFECT, the fixes of what got worse, and the counts."""

from __future__ import annotations

from kubectl_gpu.core.analyses.simulate import Direction, SimulateReport
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Row, Table, View, prose

__all__ = ["simulate_view"]

_STYLE = {Direction.WORSE: theme.ERROR, Direction.BETTER: theme.GOOD, Direction.UNCHANGED: ""}
_COLUMNS = (
    Column("area", "AREA", Kind.CODE),
    Column("object", "OBJECT"),
    Column("effect", "EFFECT", wrap=True),
)


def _changes(report: SimulateReport) -> Table[None]:
    rows: list[Row[None]] = []
    for i, item in enumerate(report.applied):
        c = item.change
        what = c.action if c.action != "patch" else f"patch ({c.patch_type})"
        pods = (
            f"+{len(item.pods_added)}/-{len(item.pods_removed)} pods"
            if item.pods_added or item.pods_removed
            else ""
        )
        rows.append(Row(str(i), (Cell(what), Cell(c.ref), Cell(pods), Cell(c.source))))
    columns = (
        Column("action", "CHANGE", Kind.CODE),
        Column("object", "OBJECT"),
        Column("pods", "PODS"),
        Column("source", "FROM", wrap=True),
    )
    return Table("changes", columns, tuple(rows), title="CHANGES")


def simulate_view(report: SimulateReport, *, wide: bool) -> View:
    """`wide` changes nothing: every effect is shown whole."""
    parts: list[Part] = [_changes(report)]
    counts = report.counts()
    for direction in (Direction.WORSE, Direction.BETTER, Direction.UNCHANGED):
        effects = report.of(direction)
        if not effects:
            continue
        rows: tuple[Row[None], ...] = tuple(
            Row(
                f"{direction}-{i}",
                (Cell(e.area, style=_STYLE[direction]), Cell(str(e.object)), Cell(e.message)),
                e.object,
            )
            for i, e in enumerate(effects)
        )
        parts.append(
            Table(str(direction), _COLUMNS, rows, title=f"{str(direction).upper()} ({len(effects)})")
        )
    fixes = [e for e in report.of(Direction.WORSE) if e.fix]
    if fixes:
        parts.append(prose("FIXES FOR WHAT GOT WORSE"))
        for e in fixes:
            parts.append(prose(f"{e.area} {e.object}\n", (f"    {e.fix}", theme.MUTED)))
    summary = f"{counts['worse']} worse, {counts['better']} better, {counts['unchanged']} unchanged"
    if not report.effects:
        summary = "No difference: the changes leave every analysis's answer as it was."
    parts.append(prose((summary, _STYLE[Direction.WORSE] if counts["worse"] else "")))
    return View.of(parts)
