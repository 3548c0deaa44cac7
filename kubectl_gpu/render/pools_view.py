"""`kubectl gpu pools` as a view model: one row per NodePool (the pools report, `core.analyses.diagnose.pools`)
and the total, under the header words every command uses for the same figures (docs/vocabulary.md)."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.analyses.diagnose.pools import ALL, PoolsReport, PoolSummary
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Row, Table, View, finding_item

__all__ = ["COLUMNS", "FIGURE_HEADERS", "figures_text", "pools_table", "pools_view"]

#: the header word of each figure, the same in `nodes`, `cost`, `pools` and the TUI (docs/vocabulary.md)
FIGURE_HEADERS = {
    "capacity": "ACCEL",
    "allocatable": "ALLOCATABLE",
    "requested": "REQ",
    "free": "FREE",
    "idle": "IDLE",
    "unavailable": "UNAVAILABLE",
}

COLUMNS = (
    Column("nodepool", "NODEPOOL"),
    Column("nodes", "NODES", Kind.COUNT),
    *(Column(key, header, Kind.COUNT) for key, header in FIGURE_HEADERS.items()),
    Column("pending", "PENDING", Kind.COUNT),
    Column("worst", "WORST FINDING"),
    Column("findings", "FINDINGS", wide=True),
    Column("message", "WORST MESSAGE", wide=True, wrap=True),
)


def _n(value: Decimal) -> str:
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())


def figures_text(parts: AcceleratorParts, *, short: bool = False) -> str:
    """`short`: requested/free/idle, as the TUI's bars say them; else each figure named, `?` for those the
    pods left unknown."""
    if short:
        return f"{_n(parts.requested)}/{_n(parts.free)}/{_n(parts.idle)}"
    head = f"{_n(parts.capacity)} in all, {_n(parts.allocatable)} allocatable"
    if parts.nodes and parts.unknown == parts.nodes:
        return f"{head}; requested, free and idle unknown (the pods could not all be read)"
    known = f"{_n(parts.requested)} requested, {_n(parts.free)} free, {_n(parts.idle)} idle"
    if parts.unavailable:
        known += f" ({_n(parts.unavailable)} of them unavailable)"
    gap = f"; {parts.unknown} node(s) not counted (their pods' requests are unknown)" if parts.unknown else ""
    return f"{head}, {known}{gap}"


def _figure(parts: AcceleratorParts, key: str) -> Cell:
    value: Decimal = getattr(parts, key)
    if key not in ("capacity", "allocatable") and parts.nodes and parts.unknown == parts.nodes:
        return Cell("?", -1, theme.WARNING)
    mark = "+?" if key not in ("capacity", "allocatable") and parts.unknown else ""
    style = theme.WARNING if key in ("idle", "unavailable") and value > 0 else ""
    return Cell(_n(value) + mark, float(value), style)


def _worst(summary: PoolSummary) -> tuple[Cell, Cell]:
    worst = summary.worst
    if worst is None:
        return Cell("ok", 1, theme.GOOD), Cell("-")
    item = finding_item(worst)
    text = f"{item.severity} {item.code} {item.object}"
    return Cell(text, -worst.severity.rank, theme.severity(item.severity)), Cell(item.message)


def _counts(summary: PoolSummary) -> Cell:
    counts: dict[str, int] = {}
    for finding in summary.findings:
        counts[str(finding.severity)] = counts.get(str(finding.severity), 0) + 1
    return Cell(", ".join(f"{n} {severity}" for severity, n in counts.items()) or "-", len(summary.findings))


def _row(summary: PoolSummary, wide: bool) -> Row[PoolSummary]:
    total = summary.name == ALL
    worst, message = _worst(summary)
    cells = [
        Cell("TOTAL" if total else summary.name, style=theme.HEADER if total else ""),
        Cell(str(summary.nodes), summary.nodes),
        *(_figure(summary.parts, key) for key in FIGURE_HEADERS),
        Cell(str(summary.pending), summary.pending, theme.ERROR if summary.pending else ""),
        worst,
    ]
    if wide:
        cells += [_counts(summary), message]
    return Row("TOTAL" if total else summary.name, tuple(cells), summary.ref, None, summary)


def pools_table(report: PoolsReport, *, wide: bool) -> Table[PoolSummary]:
    columns = tuple(c for c in COLUMNS if wide or not c.wide)
    return Table("pools", columns, tuple(_row(s, wide) for s in report.rows))


def pools_view(report: PoolsReport, *, wide: bool) -> View:
    if not report.pools:
        return View.sentence("No accelerator nodes and no NodePool that can launch one.")
    return View.of([pools_table(report, wide=wide)])
