"""Findings, one layout in every command (docs/findings.md), worst first as the report sorts them.

- The table form, for a list (`diagnose`, `drivers`, `nvme`, `cost`, the TUI's sections): a table SEVERITY,
  CODE, OBJECT, MESSAGE, then FIXES: each fix headed by the finding(s) it belongs to, as a block indented
  under that line.
- The block form, for detail (`lint`, `lifecycle`, the TUI's detail pane): per finding, SEVERITY CODE OBJECT,
  the message indented under it, then `fix:` and the fix as a block.

A fix block is the fix's lines as they paste (`render.fixes`): never joined into one line, never cut, and
drawn verbatim (a terminal wraps a long line, nothing breaks it). Every command that shows findings ends
with the same summary line (`summary_line`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace

from kubectl_gpu.core.report import Finding
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import (
    Cell,
    Column,
    FindingItem,
    Kind,
    Part,
    Priority,
    Prose,
    Row,
    Span,
    Table,
    finding_item,
)
from kubectl_gpu.render.model import prose as make_prose

__all__ = [
    "FIX_INDENT",
    "finding_key",
    "findings_block",
    "findings_parts",
    "findings_table",
    "fix_entries",
    "plural",
    "summary_line",
    "summary_spans",
]

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
#: Where a fix block's lines start, in both forms.
FIX_INDENT = "    "


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 error`, `2 errors`, `0 warnings`; `info` is its own plural."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def summary_spans(findings: Sequence[Finding]) -> tuple[Span, ...]:
    """The one summary of a list of findings, in every command and the TUI: `3 findings: 1 error, 2
    warnings, 0 info`, each count in its severity's style when there are any (muted when none)."""
    counts = {name: sum(1 for f in findings if str(f.severity) == name) for name in _SEVERITY_RANK}
    spans = [Span(f"{plural(len(findings), 'finding')}: ")]
    for name in _SEVERITY_RANK:
        text = f"{counts[name]} info" if name == "info" else plural(counts[name], name)
        spans.append(Span(text, theme.severity(name) if counts[name] else theme.MUTED))
        spans.append(Span(", " if name != "info" else ""))
    return tuple(spans[:-1])


def summary_line(findings: Sequence[Finding]) -> str:
    """`summary_spans` as plain text."""
    return "".join(span.text for span in summary_spans(findings))


def _columns(source: bool) -> tuple[Column, ...]:
    return (
        Column("severity", "SEVERITY", Kind.SEVERITY),
        Column("code", "CODE", Kind.CODE, priority=Priority.NAME),
        Column("object", "OBJECT", priority=Priority.NAME),
        *([Column("source", "SOURCE", Kind.CODE, priority=Priority.EXTRA)] if source else []),
        Column("message", "MESSAGE", wrap=True, brief=True),
    )


def finding_key(finding: Finding) -> str:
    """A finding's row key, stable across refreshes: code, object, and a digest of the message (one object
    can have two)."""
    digest = hashlib.blake2s(finding.message.encode(), digest_size=4).hexdigest()
    return f"{finding.code}|{finding.object}|{digest}"


def _row(item: FindingItem, source: bool) -> Row[FindingItem]:
    cells = [
        Cell(item.severity, _SEVERITY_RANK.get(item.severity, 3), theme.severity(item.severity)),
        Cell(item.code),
        Cell(item.object),
        *([Cell(item.source.source or "-")] if source else []),
        Cell(item.message),
    ]
    node = item.ref.name if item.ref.kind == "Node" else None  # where a debug pod would look
    return Row(finding_key(item.source), tuple(cells), item.ref, node, item)


def findings_table(
    findings: Iterable[Finding], *, title: str | None = None, source: bool = False, name: str = "findings"
) -> Table[FindingItem]:
    """SEVERITY, CODE, OBJECT and the MESSAGE's first sentence (the row's object has it whole), one row
    per finding; the fixes go under it
    (`findings_parts`). `source`: a SOURCE column (the analysis that found it; the TUI's)."""
    rows: list[Row[FindingItem]] = []
    seen: set[str] = set()
    for finding in findings:
        row = _row(finding_item(finding), source)
        if row.key in seen:  # the same finding twice: keys stay unique in a table
            row = replace(row, key=f"{row.key}#{len(rows)}")
        seen.add(row.key)
        rows.append(row)
    return Table(name, _columns(source), tuple(rows), title=title)


def _head(severity: str, code: str, objects: str) -> list[Span]:
    return [
        Span(f"{severity:<9}", theme.severity(severity)),
        Span(f"{code}  ", theme.HEADER),
        Span(f"{objects}\n"),
    ]


def _block(lines: Sequence[str]) -> list[Span]:
    return [Span(f"{FIX_INDENT}{line}".rstrip() + "\n", theme.FIX) for line in lines]


def _trimmed(spans: list[Span], *, verbatim: bool = True) -> Prose:
    if spans:  # rich's Text.rstrip: no trailing newline
        last = spans[-1]
        spans[-1] = Span(last.text.rstrip("\n"), last.style)
    return Prose(tuple(spans), verbatim=verbatim)


def fix_entries(
    entries: Iterable[tuple[Sequence[Span], Sequence[str]]], title: str = "FIXES"
) -> Prose | None:
    """The fixes under a table: `title`, then per entry its head (the spans naming the row(s) it is for) and
    its lines as a block. None when no entry has a fix."""
    spans: list[Span] = []
    for head, lines in entries:
        if lines:
            spans += [*head, *_block(lines)]
    if not spans:
        return None
    return _trimmed([Span(f"{title}\n", theme.HEADER), *spans])


def _grouped(items: Iterable[FindingItem]) -> list[tuple[Sequence[Span], Sequence[str]]]:
    """One entry per code and fix: the same fix for three pods is shown once, headed by the three."""
    groups: dict[tuple[str, tuple[str, ...]], list[FindingItem]] = {}
    for item in items:
        if item.fix_lines:
            groups.setdefault((item.code, item.fix_lines), []).append(item)
    return [
        (_head(found[0].severity, code, ", ".join(i.object for i in found)), lines)
        for (code, lines), found in groups.items()
    ]


def findings_parts(
    findings: Sequence[Finding], *, title: str | None = None, summary: Prose | None = None
) -> list[Part]:
    """The table form: the findings table, its fixes, then the summary line (`summary`: the line to use
    instead, when the command adds to it, as lint does)."""
    table = findings_table(findings, title=title)
    items = [row.obj for row in table.rows]
    fixes = fix_entries(_grouped(items))
    return [
        table,
        *([make_prose(""), fixes] if fixes else []),
        make_prose(""),
        summary or make_prose(*summary_spans(findings)),
    ]


def findings_block(findings: Iterable[Finding]) -> Prose:
    """The block form: per finding SEVERITY CODE OBJECT, the message indented under it, then `fix:` and the
    fix as a block."""
    spans: list[Span] = []
    for finding in findings:
        item = finding_item(finding)
        spans += [*_head(item.severity, item.code, item.object), Span(f"  {item.message}\n")]
        if item.fix_lines:
            spans += [Span("  fix:\n", theme.FIX), *_block(item.fix_lines)]
    return _trimmed(spans)
