"""A small reader for event listings as kubectl prints them (test helper, not product code).

Handles `kubectl get events` (header `LAST SEEN  TYPE  REASON  OBJECT  MESSAGE`), the `Events:` block of
`kubectl describe` (header `Type  Reason  Age  From  Message`), and header-less `kubectl events | grep ...`
lines. Columns are cut at the header's column starts (kubectl pads with a tabwriter), so an Age such as
`33s (x3 over 30m)` or a message with spaces stays whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EventLine:
    type: str
    reason: str
    message: str
    component: str | None = None  # the describe "From" column; `get events` does not print it
    object: str | None = None


def read_events(path: Path) -> list[EventLine]:
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        words = line.split()
        if words[:2] == ["LAST", "SEEN"] and "MESSAGE" in words:
            return _table(
                lines[index + 1 :],
                line,
                {"type": "TYPE", "reason": "REASON", "object": "OBJECT", "message": "MESSAGE"},
            )
        if words[:2] == ["Type", "Reason"] and "Message" in words:
            rows = [row for row in lines[index + 1 :] if not set(row.strip()) <= {"-", " "}]
            return _table(
                rows, line, {"type": "Type", "reason": "Reason", "component": "From", "message": "Message"}
            )
    return [_loose(line) for line in lines if line.strip()]


def _table(rows: list[str], header: str, columns: dict[str, str]) -> list[EventLine]:
    names = {title: name for name, title in columns.items()}
    titles = list(re.finditer(r"\S+(?: \S+)*", header))  # titles are one space apart inside, 2+ between
    events = []
    for row in rows:
        if not row.strip():
            continue
        cells = {}
        for position, title in enumerate(titles):
            end = titles[position + 1].start() if position + 1 < len(titles) else len(row)
            if title.group() in names:
                cells[names[title.group()]] = row[title.start() : end].strip()
        events.append(EventLine(**cells))
    return events


def _loose(line: str) -> EventLine:
    _, type_, reason, object_, message = line.split(None, 4)
    return EventLine(type=type_, reason=reason, message=message, object=object_)
