"""`y` and `e`: an object's YAML and its events, from the refresh's state (no API call per row). Both are
built in a worker thread (`DetailScreen.fill`) and bounded (`tui.page_text`): an object at the API's size
limits opens as fast as any, and the page's keys work while it is built."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Row, Table
from kubectl_gpu.render.output import dump_yaml
from kubectl_gpu.render.page_lines import events_title, no_events, not_in_refresh
from kubectl_gpu.tui.page_text import cut_line, yaml_text
from kubectl_gpu.tui.widgets.fitted import FittedTable

__all__ = ["EVENTS_SHOWN", "events_view", "find_raw", "yaml_view"]

#: the most events a page shows (the newest; an object's events are aggregated, so this is rarely reached)
EVENTS_SHOWN = 500


def find_raw(state: ClusterState, ref: ObjectRef) -> dict[str, Any] | None:
    """The object as the API (or the snapshot) returned it, or None when this refresh did not read it
    (the TUI asks its source to keep them: `SourceOptions.keep_manifests`)."""
    found = state.manifest(ref.kind, ref.name, ref.namespace)
    return dict(found) if found is not None else None


def yaml_view(state: ClusterState, ref: ObjectRef) -> tuple[RenderableType, str | None]:
    """(what to show, the YAML text to copy): the copy exact, what is shown cut where a value is too long
    (`tui.page_text`). Run in a worker thread: a big object takes a moment."""
    raw = find_raw(state, ref)
    if raw is None:
        return Text(not_in_refresh(ref), style=theme.MUTED), None
    # exact, for the clipboard; shown made safe (a value may hold an escape) and bounded
    return yaml_text(raw), dump_yaml(raw)


def events_view(state: ClusterState, ref: ObjectRef) -> RenderableType:
    """The object's events, oldest first, as `kubectl get events --field-selector involvedObject...`."""
    events = state.events_for(ref.kind, ref.name, ref.namespace)
    if not events:
        unreadable = "events" in state.absent or any(n.kind == "events" for n in state.notes)
        return Text(no_events(ref, unreadable=unreadable), style=theme.MUTED)
    older = max(0, len(events) - EVENTS_SHOWN)
    events = events[older:]
    columns = (
        Column("last_seen", "LAST SEEN"),
        Column("type", "TYPE", Kind.CODE),
        Column("reason", "REASON", Kind.CODE),
        Column("from", "FROM"),
        Column("count", "COUNT", Kind.COUNT),
        Column("message", "MESSAGE", wrap=True),
    )
    rows: list[Row[None]] = []
    for index, event in enumerate(events):
        seen = event.last_seen.strftime("%Y-%m-%d %H:%M:%SZ") if event.last_seen else "-"
        cells = (
            Cell(seen),
            Cell(event.type or "-", style=theme.WARNING if event.type == "Warning" else ""),
            Cell(event.reason or "-"),
            Cell(event.component or "-"),
            Cell(str(event.count), event.count),
            Cell(cut_line(event.message or "")),
        )
        rows.append(Row(str(index), cells))
    title = Text(events_title(ref, len(events) + older), style=theme.MUTED)
    if older:
        title.append(f"; the oldest {older:,} not shown", style=theme.WARNING)
    # Fitted to the page: MESSAGE always shown (it wraps); FROM, then COUNT, go first when narrow.
    priorities = {"message": 0, "reason": 1, "type": 2, "last_seen": 3, "count": 4, "from": 5}
    table = FittedTable(
        Table("events", columns, tuple(rows)), priorities=priorities, flex="message", min_flex=30
    )
    return Group(title, table)
