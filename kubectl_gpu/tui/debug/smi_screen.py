"""`s`: nvidia-smi on the selected (or marked) nodes: progress per node while the debug pods run, then the
result as `kubectl gpu smi` shows it (GPUs, memory, utilisation, ECC, XID, processes and their pods).
`esc` cancels while it runs (the pods are deleted) and goes back once it is done."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.render import model, theme
from kubectl_gpu.render.draw import rich_prose, rich_view
from kubectl_gpu.render.page_lines import debug_job_lines, left_pod_lines
from kubectl_gpu.render.smi_view import smi_view
from kubectl_gpu.tui.background import ShowsWorkerFailures
from kubectl_gpu.tui.debug.jobs import JobOutcome
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.widgets.fitted import FittedTable
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["SmiScreen", "outcome_view", "page_view"]

#: which GPU columns stay on a narrow page: one line per GPU, memory never cut (100 columns hold these
#: down to PAGES); the node first when there are several
GPU_PRIORITY = {
    "gpu": 0,
    "mem_used/total_mib": 1,
    "util": 2,
    "name": 3,
    "temp": 4,
    "power": 5,
    "ecc_unc_vol/agg": 6,
    "pages": 7,
    "procs": 8,
    "node": 9,
    "mig": 10,
}


def page_view(view: model.View, nodes: int) -> RenderableType:
    """smi's view as the page shows it: every table fitted to the page's width (`FittedTable`)."""
    priorities = {**GPU_PRIORITY, "node": -1} if nodes > 1 else GPU_PRIORITY
    parts: list[RenderableType] = []
    for part in view.parts:
        if isinstance(part, model.Table):
            parts.append(FittedTable(part, priorities=priorities if part.name == "gpus" else None))
        else:
            parts.append(rich_prose(part))
    return Group(*parts)


def outcome_view(outcome: JobOutcome, *, live: bool) -> RenderableType:
    """What `kubectl gpu smi` prints (stdout, then the notes and errors), and what became of the pods."""
    parts: list[RenderableType] = []
    parts += [Text(text, style=style) for text, style in debug_job_lines(outcome.warnings, outcome.error)]
    if outcome.results:
        view = smi_view(outcome.results, wide=False)
        parts.append(page_view(view.out, len(outcome.results)))
        if view.err is not None:
            parts += [Text(""), rich_view(view.err)]
    elif not outcome.error:
        parts.append(Text("No result." if not outcome.cancelled else "Cancelled before any node finished."))
    if live:
        parts.append(Text(""))
        if outcome.left:
            parts += [Text(text, style=style) for text, style in left_pod_lines(outcome.left)]
        else:
            done = "cancelled; " if outcome.cancelled else ""
            parts.append(Text(f"{done}every debug pod deleted", style=theme.MUTED))
    return Group(*parts)


class SmiScreen(Screen[None], ShowsWorkerFailures):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_or_back", "Cancel / back"),
        Binding("q", "cancel_or_back", "Back", show=False),
        Binding("j,down", "scroll(1)", "Down", show=False),
        Binding("k,up", "scroll(-1)", "Up", show=False),
    ]

    class Phase(Message):
        def __init__(self, node: str, phase: str) -> None:
            super().__init__()
            self.node = node
            self.phase = phase

    class NodeDone(Message):
        def __init__(self, result: SmiResult) -> None:
            super().__init__()
            self.result = result

    class Finished(Message):
        def __init__(self, outcome: JobOutcome) -> None:
            super().__init__()
            self.outcome = outcome

    def __init__(
        self, nodes: Sequence[str], *, live: bool, on_cancel: Callable[[], None] | None = None
    ) -> None:
        super().__init__(classes="smi-screen")
        self.nodes = list(nodes)
        self.live = live
        self.on_cancel = on_cancel
        self.phases: dict[str, str] = dict.fromkeys(self.nodes, "waiting" if live else "stored probe")
        self.outcome: JobOutcome | None = None
        self.started = time.monotonic()
        self.cancelling = False

    def compose(self) -> ComposeResult:
        where = "debug pods" if self.live else "the snapshot's stored probe"
        title = Text(f"nvidia-smi on {len(self.nodes)} node(s) ({where})", style=theme.HEADER)
        yield Static(title, classes="page-title")
        yield Static(self._progress(), classes="smi-progress")
        with VerticalScroll(classes="page") as page:
            page.can_focus = False  # j k are the page's
            yield Static("", classes="page-body")
        yield KeyBar()

    @property
    def running(self) -> bool:
        return self.outcome is None

    def _progress(self) -> RenderableType:
        if self.outcome is not None:
            return Text("done" + ("  (cancelled)" if self.outcome.cancelled else ""), style=theme.MUTED)
        lines = Text()
        elapsed = time.monotonic() - self.started
        state = "cancelling, deleting debug pods..." if self.cancelling else "running (esc cancels)"
        lines.append(f"{state}  {elapsed:.0f}s\n", style=theme.WARNING if self.cancelling else theme.INFO)
        for node, phase in self.phases.items():
            lines.append(f"  {node}: ", style=theme.HEADER)
            lines.append(f"{phase}\n")
        lines.rstrip()
        return lines

    def on_mount(self) -> None:
        self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        if self.running:
            self.query_one(".smi-progress", Static).update(self._progress())

    def on_smi_screen_phase(self, message: Phase) -> None:
        self.phases[message.node] = message.phase
        self._tick()

    def on_smi_screen_node_done(self, message: NodeDone) -> None:
        node = message.result.node or "?"
        self.phases[node] = "failed" if message.result.error else "done"
        self._tick()

    def show_failure(self, group: str, line: str) -> str:
        """The job's worker failed (a job's own errors are its outcome's): said as the job's error."""
        said = f"internal error (please report it): {line}"
        self.post_message(SmiScreen.Finished(JobOutcome(error=said)))
        return said

    def on_smi_screen_finished(self, message: Finished) -> None:
        self.outcome = message.outcome
        self.query_one(".smi-progress", Static).update(self._progress())
        self.query_one(".page-body", Static).update(outcome_view(message.outcome, live=self.live))
        self.call_after_refresh(self.refresh_bindings)

    def action_cancel_or_back(self) -> None:
        if self.running and self.live:
            if not self.cancelling and self.on_cancel is not None:
                self.cancelling = True
                self.on_cancel()
                self._tick()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TEXTUAL_DEFAULTS:
            return False
        if action == "scroll":  # the page overflows, not already at that end
            page = self.query_one(".page", VerticalScroll)
            down = bool(parameters) and int(str(parameters[0])) > 0
            return page.scroll_y < page.max_scroll_y if down else page.scroll_y > 0
        return True

    def action_scroll(self, lines: int) -> None:
        self.query_one(".page", VerticalScroll).scroll_relative(y=lines, animate=False)
