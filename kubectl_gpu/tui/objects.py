"""`y` and `e`: an object's YAML and its events, from the refresh's state (no API call per row)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Cell, Column, Kind, Row, Table
from kubectl_gpu.render.output import dump_yaml
from kubectl_gpu.render.safe import safe_block, safe_line
from kubectl_gpu.tui.widgets.fitted import FittedTable

__all__ = ["events_view", "find_raw", "yaml_view"]


def find_raw(state: ClusterState, ref: ObjectRef) -> dict[str, Any] | None:
    """The object as the API (or the snapshot) returned it, or None when this refresh did not read it
    (the TUI asks its source to keep them: `SourceOptions.keep_manifests`)."""
    found = state.manifest(ref.kind, ref.name, ref.namespace)
    return dict(found) if found is not None else None


def yaml_view(state: ClusterState, ref: ObjectRef) -> tuple[RenderableType, str | None]:
    """(what to show, the YAML text to copy)."""
    raw = find_raw(state, ref)
    if raw is None:
        why = safe_line(
            f"{ref} is not in this refresh's data (a kind the tool does not read, or not readable)"
        )
        return Text(why, style=theme.MUTED), None
    text = dump_yaml(raw)  # exact, for the clipboard; shown made safe (a value may hold an escape)
    shown = safe_block(text)
    return Syntax(shown, "yaml", theme="ansi_dark", background_color="default", word_wrap=True), text


def events_view(state: ClusterState, ref: ObjectRef) -> RenderableType:
    """The object's events, oldest first, as `kubectl get events --field-selector involvedObject...`."""
    events = state.events_for(ref.kind, ref.name, ref.namespace)
    if not events:
        read = "events" in state.absent or any(n.kind == "events" for n in state.notes)
        why = "events could not be read" if read else "no events recorded for it"
        return Text(safe_line(f"{ref}: {why}"), style=theme.MUTED)
    columns = (
        Column("last_seen", "LAST SEEN"),
        Column("type", "TYPE", Kind.CODE),
        Column("reason", "REASON", Kind.CODE),
        Column("from", "FROM"),
        Column("count", "COUNT", Kind.COUNT),
        Column("message", "MESSAGE", wrap=True),
    )
    rows = []
    for index, event in enumerate(events):
        seen = event.last_seen.strftime("%Y-%m-%d %H:%M:%SZ") if event.last_seen else "-"
        cells = (
            Cell(seen),
            Cell(event.type or "-", style=theme.WARNING if event.type == "Warning" else ""),
            Cell(event.reason or "-"),
            Cell(event.component or "-"),
            Cell(str(event.count), event.count),
            Cell(event.message or ""),
        )
        rows.append(Row(str(index), cells))
    title = Text(safe_line(f"{len(events)} event(s) for {ref}"), style=theme.MUTED)
    # Fitted to the page: MESSAGE always shown (it wraps); FROM, then COUNT, go first when narrow.
    priorities = {"message": 0, "reason": 1, "type": 2, "last_seen": 3, "count": 4, "from": 5}
    table = FittedTable(
        Table("events", columns, tuple(rows)), priorities=priorities, flex="message", min_flex=30
    )
    return Group(title, table)
