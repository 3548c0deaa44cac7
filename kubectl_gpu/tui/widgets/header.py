"""The two header lines: where the data comes from (Auto Mode / Karpenter / static, cluster, live or snapshot,
how fresh it is, namespace, context), then the counts an SRE looks at first.

The most telling items come first on each line: the context and the namespace are always shown (the
context shortened in its middle when narrow); a narrow terminal cuts the end of a line, never the start.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

import msgspec
from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.render import theme
from kubectl_gpu.render.findings import summary_spans
from kubectl_gpu.render.page_lines import header_context, header_files, header_namespace, message_line
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.data import Refresh, cluster_name

__all__ = ["ClusterHeader", "HeaderState", "elide", "freshness"]

SEP = "  "


class HeaderState(msgspec.Struct, frozen=True, dict=True):
    config: TuiConfig
    snapshot: Refresh | None = None
    #: the last refresh's error, when it failed (the data shown is older)
    error: str | None = None
    loading: bool = False
    #: kubeconfig cluster entry of the context (for the cluster's name), when known
    cluster: str | None = None


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%MZ") if at.second == 0 else at.strftime("%Y-%m-%d %H:%M:%SZ")


def freshness(state: HeaderState, now: datetime, *, short: bool = False) -> Text:
    """Live: when the data was read and how long ago, yellow once older than two refresh intervals, red
    after a failed refresh. Snapshot: when it was captured and the instant it is evaluated at (`short`:
    without the year and the word)."""
    snap = state.snapshot
    out = Text()
    if snap is None:
        out.append("loading..." if state.error is None else "no data", style=theme.WARNING)
        return out
    if not state.config.live:
        captured = snap.state.captured_at
        when = _when(captured)[5 if short else 0 :] if captured else "?"
        out.append(when if short else f"captured {when}", style=theme.MUTED)
        if state.config.now is not None or captured is None:
            out.append(f", --now {_when(snap.now)[5 if short else 0 :]}", style=theme.WARNING)
        return out
    age = max(now - snap.loaded_at, timedelta(0))
    interval = state.config.refresh
    stale = state.error is not None or (interval is not None and age.total_seconds() > 2 * interval + 5)
    style = theme.ERROR if state.error else theme.WARNING if stale else theme.GOOD
    label = "STALE " if stale else ""
    out.append(f"{label}refreshed {snap.loaded_at.strftime('%H:%M:%S')} ({format_age(age)} ago)", style=style)
    return out


def _source(state: HeaderState, now: datetime, *, short: bool) -> Text:
    """LIVE and how fresh, or SNAPSHOT and when captured; `short` drops the file name and the interval."""
    config = state.config
    out = Text()
    if config.live:
        out.append("LIVE ", style=theme.GOOD)
    else:
        out.append("SNAPSHOT ", style=theme.WARNING)
        if not short:
            files = [os.path.basename(p.rstrip("/")) or p for p in config.source.snapshot]
            out.append(header_files(files) + " ")
    out.append_text(freshness(state, now, short=short))
    if config.live and config.refresh and not short:
        out.append(f", every {config.refresh:g}s", style=theme.MUTED)
    return out


def elide(text: str, width: int) -> str:
    """`text` in `width` cells, its middle replaced by an ellipsis; its last segment (after `/` or `:`:
    an EKS context ARN's cluster) kept whole when it leaves room for a start."""
    if len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    tail = text[max(text.rfind("/"), text.rfind(":")) :]
    if len(tail) > width - 4:
        tail = text[len(text) - (width - 1 - (width - 1) // 2) :]
    return text[: width - 1 - len(tail)] + "…" + tail


def _line_one(state: HeaderState, now: datetime, width: int = 1000) -> Text:
    """Mode, READ-ONLY (when it is), cluster, namespace and context first (always shown, as in k9s: the
    context shortened in its middle when narrow), then where the data comes from and how fresh it is
    (shorter when narrow)."""
    config, snap = state.config, state.snapshot
    context = snap.state.context if snap and snap.state.context else config.context
    head = Text(no_wrap=True, overflow="ellipsis")
    if snap is not None:
        head.append(f" {snap.mode} ", style="reverse " + (theme.INFO if snap.mode != "static" else ""))
        head.append(" ")
    if config.readonly:  # --readonly, or the config file's: no key creates a pod (always shown, first)
        head.append(" READ-ONLY ", style="reverse " + theme.WARNING)
        head.append(" ")
    # The context and the cluster come from the kubeconfig or the bundle: shown made safe.
    context = header_context(context)
    name = header_context(cluster_name(context, state.cluster))
    if name:
        head.append(name, style=theme.HEADER)
        head.append(SEP)
    missing = snap is not None and snap.namespace_missing  # red; line two and the views say why
    head.append(header_namespace(config.namespace), style=theme.ERROR if missing else "")
    shown_context = context if context and context != name else None
    budget = width
    tail = _source(state, now, short=False)
    fixed = head.cell_len + len(SEP) * (2 if shown_context else 1)
    if shown_context and fixed + len("ctx ") + len(shown_context) + tail.cell_len > budget:
        tail = _source(state, now, short=True)
    if shown_context:
        room = max(8, budget - fixed - len("ctx ") - tail.cell_len)  # 8: "arn…prod", READ-ONLY at 80
        head.append(SEP)
        head.append(f"ctx {elide(shown_context, room)}", style=theme.MUTED)
    elif fixed + tail.cell_len > budget:
        tail = _source(state, now, short=True)
    head.append(SEP)
    head.append_text(tail)
    return head


def _line_two(state: HeaderState) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    snap = state.snapshot
    if snap is not None:
        out.append(f"GPU nodes {len(snap.nodes.rows)}")
        out.append(SEP)
        free, idle = snap.parts.free, snap.parts.idle  # the Overview's ALL row (docs/vocabulary.md)
        if not snap.pods_counted:  # pods could not be listed: what is free is not known
            out.append("free ?", style=theme.WARNING)
        else:
            out.append(f"free {_count(free)}", style=theme.GOOD if free else theme.WARNING)
        if idle and snap.pods_counted:
            out.append(f" ({_count(idle)} idle)", style=theme.WARNING)
        out.append(SEP)
        pending = len(snap.pending.pods)
        if snap.namespace_missing:  # not `Pending 0`, as if all were fine
            out.append("Pending ? (ns not found)", style=theme.ERROR)
        else:
            out.append(f"Pending {pending}", style=theme.ERROR if snap.pending.blocking else "")
        out.append(SEP)
        # the counts of the line every command ends with, less its total (the Findings tab has it)
        for span in summary_spans(snap.diagnose.findings)[1:]:
            out.append(span.text, style=span.style or None)
    if state.loading:
        out.append("  refreshing...", style=theme.INFO)
    notes = [n for n in snap.state.notes if n.code in ("FORBIDDEN", "PARTIAL")] if snap else []
    if notes:
        out.append(f"  {len(notes)} kind(s) unreadable", style=theme.WARNING)
    if snap and any(n.code == "POLLING" for n in snap.state.notes):  # watch forbidden (kube.pacing)
        out.append("  polling", style=theme.WARNING)
    if state.error:
        out.append(f"  {message_line(state.error)}", style=theme.ERROR)
    return out


class ClusterHeader(Static):
    """Re-rendered on every refresh and once a second (the age)."""

    DEFAULT_CSS = "ClusterHeader { height: 2; }"

    def __init__(self, state: HeaderState, clock: Callable[[], datetime]) -> None:
        super().__init__(id="cluster-header")
        self.state = state
        self.clock = clock

    def on_mount(self) -> None:
        self.update(self._content())
        if self.state.config.live:
            self.set_interval(1.0, self.tick)

    def show(self, state: HeaderState) -> None:
        self.state = state
        self.update(self._content())

    def tick(self) -> None:
        self.update(self._content())

    def on_resize(self) -> None:
        self.update(self._content())

    @property
    def plain(self) -> str:
        """The two lines as shown, without styles (tests read it)."""
        width = self.content_region.width or 200
        return "\n".join(
            line.plain for line in (_line_one(self.state, self.clock(), width), _line_two(self.state))
        )

    def _content(self) -> RenderableType:
        width = self.content_region.width or 200
        return Group(_line_one(self.state, self.clock(), width), _line_two(self.state))


def _count(value: Decimal) -> str:
    """2, not 2.00 (sums of fractions of nodes)."""
    return str(int(value)) if value == value.to_integral_value() else str(value.normalize())
