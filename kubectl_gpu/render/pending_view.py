"""`kubectl gpu pending` (a table, worst first, the fixes under it) and `kubectl gpu explain` (target by
target, then the fix) as view models. Reasons and fixes are whole: a fix is a block that pastes
(`render.fixes`), never a cell cut to one line."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.analyses.pending.report import PendingReport, PodDiagnosis
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import FIX_INDENT, fix_entries
from kubectl_gpu.render.fixes import pasteable
from kubectl_gpu.render.model import Cell, Column, Kind, Part, Priority, Prose, Row, Span, Table, View, prose
from kubectl_gpu.render.safe import safe_block, safe_line

__all__ = [
    "COLUMNS",
    "explain_view",
    "fix_block",
    "fix_lines",
    "fix_outcome",
    "pending_table",
    "pending_view",
    "requests_text",
]

#: narrow, a pod keeps its verdict (the page's answer); REASON shows its first sentence (explain has it whole)
COLUMNS = (
    Column("namespace", "NAMESPACE", priority=Priority.EXTRA),
    Column("pod", "POD", priority=Priority.NAME),
    Column("request", "REQUEST"),
    Column("verdict", "VERDICT", Kind.CODE, priority=Priority.ANSWER),
    Column("nearest", "NEAREST"),
    Column("reason", "REASON", wrap=True, brief=True),
    Column("age", "AGE", Kind.AGE, wide=True, priority=Priority.EXTRA),
)


def requests_text(diag: PodDiagnosis) -> str:
    """The accelerators (and other extended resources) a pod asks for: `nvidia.com/gpu=1,...`."""

    def num(v: Decimal) -> str:
        return str(int(v)) if v == v.to_integral_value() else str(v.normalize())

    parts = [f"{k}={num(v)}" for k, v in diag.requests.items() if k not in ("cpu", "memory")]
    return ",".join(parts) or "-"


def _age(report: PendingReport, diag: PodDiagnosis) -> Cell:
    if diag.created is None:
        return Cell("-", -1)
    age = report.now - diag.created
    return Cell(format_age(age), age.total_seconds())


def _row(report: PendingReport, diag: PodDiagnosis, wide: bool) -> Row[PodDiagnosis]:
    nearest = f"{diag.nearest.kind.lower()}/{diag.nearest.name}" if diag.nearest else "-"
    cells = [
        Cell(diag.namespace),
        Cell(diag.name),
        Cell(requests_text(diag)),
        Cell(str(diag.verdict), style=theme.pending_verdict(diag.verdict)),
        Cell(nearest),
        Cell(diag.reason or "-"),
    ]
    if wide:
        cells.append(_age(report, diag))
    return Row(diag.key, tuple(cells), ObjectRef("Pod", diag.name, diag.namespace), None, diag)


def pending_table(report: PendingReport, *, wide: bool) -> Table[PodDiagnosis]:
    columns = tuple(c for c in COLUMNS if wide or not c.wide)
    return Table("pods", columns, tuple(_row(report, d, wide) for d in report.pods))


def _mark(ok: bool | None) -> Cell:
    return Cell("?" if ok is None else "ok" if ok else "NO", style=theme.check_style(ok))


_CHECK_COLUMNS = (
    Column("check", "check", style=theme.HEADER),
    Column("ok", "ok", Kind.CODE),
    Column("detail", "detail", wrap=True),
)
_EVENT_COLUMNS = (
    Column("source", "SOURCE"),
    Column("reason", "REASON", Kind.CODE),
    Column("count", "COUNT", Kind.COUNT),
    Column("last_seen", "LAST SEEN"),
    Column("message", "MESSAGE", wrap=True),
)


def _head(diag: PodDiagnosis) -> Prose:
    spans = [
        Span(f"Pod {diag.namespace}/{diag.name}", theme.HEADER),
        Span(f"  requests {requests_text(diag)}\n"),
        Span("Verdict: "),
        Span(str(diag.verdict), theme.pending_verdict(diag.verdict)),
    ]
    if diag.nearest:
        spans.append(Span(f"  (nearest: {diag.nearest.kind} {diag.nearest.name})"))
    spans.append(Span(f"\n{safe_line(diag.reason)}\n"))
    return prose(*spans)


def _evaluations(diag: PodDiagnosis) -> list[Part]:
    parts: list[Part] = []
    for index, evaluation in enumerate(diag.evaluations):
        title = f"{evaluation.target.kind} {evaluation.target.name}"
        if not evaluation.offers:
            title += "  (cannot offer the requested accelerator)"
        # A check's detail is one sentence that may quote a condition's or an Event's message: one line, so
        # that a line break in that message cannot start a line of its own (render.safe).
        rows: tuple[Row[None], ...] = tuple(
            Row(f"{index}:{n}", (Cell(check.name), _mark(check.ok), Cell(check.detail)))
            for n, check in enumerate(evaluation.checks)
        )
        parts += [Table(f"target:{index}", _CHECK_COLUMNS, rows, title=title, show_header=False), prose("")]
    return parts


def _events(diag: PodDiagnosis) -> Part:
    if not diag.evidence:
        return prose(("Events: none recorded for this pod", theme.MUTED))
    rows = []
    for index, ev in enumerate(diag.evidence):
        seen = ev.last_seen.isoformat().replace("+00:00", "Z") if ev.last_seen else "-"
        cells = (
            Cell(ev.source),
            Cell(ev.reason),
            Cell(str(ev.count), ev.count),
            Cell(seen),
            Cell(ev.message),
        )
        rows.append(Row(str(index), cells, None, None, ev))
    return Table("events", _EVENT_COLUMNS, tuple(rows), title="Events")


def explain_view(diag: PodDiagnosis) -> View:
    parts: list[Part] = [_head(diag), *_evaluations(diag), _events(diag)]
    # Each is one line that may quote an Event's message (a disagreement) or a note's: made safe as a line.
    parts += [prose((f"Disagreement: {safe_line(line)}", theme.WARNING)) for line in diag.disagreements]
    parts += [prose((f"Note: {safe_line(note)}", theme.MUTED)) for note in diag.notes]
    if diag.fix:
        parts += [prose(""), fix_block(diag)]
    return View.of(parts)


def fix_outcome(diag: PodDiagnosis) -> str | None:
    """What the fix does, tried on a copy of the cluster (the pod evaluated again), as a comment: the block
    it ends stays pasteable as it is; advice (never tried) says so."""
    tried = diag.fix_check
    if tried is not None and tried.after is not None and tried.verified is not None:
        mark = "verified" if tried.verified else "does not remove the blocker"
        return f"# {mark} ({safe_line(tried.change)}): {safe_line(tried.after.text())}"
    if tried is not None:
        return f"# not verified: {safe_line(tried.change)}"
    return _ADVICE


# A fix that was never made on a copy (the verdict is no target's blocker, or nothing is to change): said, so
# that a verified fix and advice are never told apart by guessing (issue 37).
_ADVICE = "# advice: not tried on a copy of the cluster"


def fix_lines(diag: PodDiagnosis) -> tuple[str, ...]:
    """The fix as it pastes, then its outcome (`fix_outcome`). Empty when there is no fix."""
    if not diag.fix:
        return ()
    outcome = fix_outcome(diag)
    return (*pasteable(safe_block(diag.fix)), *([outcome] if outcome else []))


def fix_block(diag: PodDiagnosis) -> Prose:
    """explain's fix: `Fix:`, then the block, as every view draws a fix (`render.findings`)."""
    lines = fix_lines(diag)
    spans = [Span("Fix:\n", theme.HEADER), *(Span(f"{FIX_INDENT}{line}\n", theme.FIX) for line in lines)]
    return Prose((*spans[:-1], Span(spans[-1].text.rstrip("\n"), theme.FIX)), verbatim=True)


def _fixes(report: PendingReport) -> list[Part]:
    """The fixes under the table, each headed by its pod and verdict."""
    width = max(len(str(diag.verdict)) for diag in report.pods) + 2
    entries = (
        (
            [
                Span(f"{diag.verdict!s:<{width}}", theme.pending_verdict(diag.verdict)),
                Span(f"pod/{safe_line(diag.key)}\n"),
            ],
            fix_lines(diag),
        )
        for diag in report.pods
    )
    fixes = fix_entries(entries)
    return [prose(""), fixes] if fixes else []


def pending_view(report: PendingReport, *, wide: bool, all_pending: bool = False) -> View:
    if not report.pods:
        scope = "Pending pods" if all_pending else "Pending pods requesting accelerators"
        if report.pods_unlisted is not None:  # forbidden: "none" would be a guess
            return View.sentence(
                f"Pods could not be listed (forbidden): whether there are {scope} is unknown."
            )
        return View.sentence(f"No {scope}.")
    return View.of([pending_table(report, wide=wide), *_fixes(report)])
