"""The App: the header, the views (one key each), the command line, the footer; refreshes in a worker
thread; `s` / `x` through the debug runner; `:ctx` switches context, remembering each context's view and
filters.

Nothing here blocks the UI thread on the cluster: reading, analysing and building every view's rows happen
in `_load` (a thread worker) and arrive as one `DataLoaded` message; a failed refresh arrives as
`LoadFailed` and leaves the last good data on screen, marked stale.

Only the first screen's modules are imported at start-up: pages, the nvidia-smi page, YAML and the help
are imported on first use (tests/tui/test_lazy_imports.py pins it). Likewise only the Overview is
mounted: every other view on its first show (`show_view`), with the data and filter it was given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, ClassVar

import msgspec
from textual import on, work
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.filter import Monochrome, NoColor
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Label

from kubectl_gpu.core.errors import KubectlGpuError
from kubectl_gpu.kube.contexts import KubeContexts, kube_contexts
from kubectl_gpu.kube.heap import without_collection
from kubectl_gpu.kube.pod_logs import pod_log_tail
from kubectl_gpu.kube.source import ClusterSource, SourceOptions, open_source
from kubectl_gpu.render.messages import notice
from kubectl_gpu.render.model import Row, finding_item
from kubectl_gpu.render.page_lines import page_title
from kubectl_gpu.tui import data
from kubectl_gpu.tui.action_checks import ActionChecks
from kubectl_gpu.tui.background import off_thread
from kubectl_gpu.tui.command_keys import CommandLineKeys
from kubectl_gpu.tui.config import ContextMemory, TuiConfig, initial_theme
from kubectl_gpu.tui.debug.jobs import DebugJobs, ShellJob
from kubectl_gpu.tui.debug.keys import DebugKeys
from kubectl_gpu.tui.drill import Drill, follow_refresh
from kubectl_gpu.tui.fleet.keys import FleetKeys
from kubectl_gpu.tui.hangup import HangUp
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.log_keys import LogKeys
from kubectl_gpu.tui.messages import DataLoaded, DebugNode, LoadFailed, ViewsBuilt
from kubectl_gpu.tui.notices import DataNotices
from kubectl_gpu.tui.object_keys import ObjectKeys
from kubectl_gpu.tui.release import release_later
from kubectl_gpu.tui.views import VIEWS, TableView, build_changed, build_first, build_rest
from kubectl_gpu.tui.views.findings import finding_key
from kubectl_gpu.tui.views.overview import ALL
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.header import ClusterHeader, HeaderState
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["GpuApp"]

#: The most the first refresh's worker waits for its first screen to be drawn before it builds the other
#: views (a safety net: an app that quit before drawing it never says so).
FIRST_DRAWN_S = 30.0

SourceFactory = Callable[[SourceOptions], ClusterSource]
Clock = Callable[[], datetime]


def _view_bindings() -> list[BindingType]:
    keys = [f"{v.key},{d}" for v, d in zip(VIEWS, "123456789", strict=False)] + [v.key for v in VIEWS[9:]]
    return [Binding(k, f"view('{v.view_id}')", v.footer or v.title) for k, v in zip(keys, VIEWS, strict=True)]


class MainScreen(Screen[object]):
    """The views' screen; Textual's own screen keys (copy the selection) are not offered."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in TEXTUAL_DEFAULTS


class GpuApp(ActionChecks, CommandLineKeys, FleetKeys, DebugKeys, ObjectKeys, LogKeys, HangUp, DataNotices):
    CSS_PATH = "app.tcss"
    TITLE = "kubectl-gpu"
    ENABLE_COMMAND_PALETTE = False
    # The footer lists them in this order: what to discover everything, the views, then the verbs.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("?", "help", "Keys"),
        *_view_bindings(),
        Binding("s", "smi", "smi"),
        Binding("x", "shell", "Shell"),
        Binding(":", "command", "Cmd"),
        Binding("/", "filter", "Filter"),
        Binding("y", "yaml", "YAML", show=False),
        Binding("e", "events", "Events", show=False),
        Binding("l", "logs", "Logs"),
        Binding("0", "all_namespaces", "All ns", show=False),  # k9s' 0 (so the views' digits are 1-9)
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "go_back", "Back"),
        Binding("minus,backspace", "history_back", "Previous"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        config: TuiConfig,
        *,
        clock: Clock | None = None,
        source_factory: SourceFactory = open_source,
        contexts: Callable[[str | None], KubeContexts] = kube_contexts,
    ) -> None:
        super().__init__()
        if config.no_color or self.no_color:
            # Textual's NO_COLOR turns colours into greys by luminance, which makes red (errors) the darkest
            # text on screen. Drop colours instead; emphasis (bold, reverse: the cursor) stays.
            self.no_color = True
            self._filters = [f for f in self._filters if not isinstance(f, Monochrome)] + [NoColor()]
        self.config = config
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.source_factory = source_factory
        self.contexts_loader = contexts
        self.contexts = KubeContexts()
        self.snapshot: data.Refresh | None = None
        self.generation = 0
        self.loading = False
        self.rest_of: int | None = None  # the refresh whose other views are still being built
        self.error: str | None = None
        self.jobs = DebugJobs()
        self.shell_job: ShellJob | None = None
        self.memory: dict[str | None, ContextMemory] = {}
        self.history: list[str] = []
        self.current = "overview"
        self._views = {view.view_id: view() for view in VIEWS}
        for view in self._views.values():  # hidden until shown (as ContentSwitcher hides all but one)
            view.display = view.view_id == self.current
        self._mounting: dict[str, AwaitComplete] = {}
        self._sources: dict[SourceOptions, ClusterSource] = {}
        self._notes_seen: set[str] = set()
        self._quitting = False
        self.notices: list[tuple[str, str, str]] = []
        self._namespace_said: tuple[str, str] | None = None  # the namespace answer last notified

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice of the app and its screens passes here: through the error seam (no credential, no
        terminal control: `render.messages`), never as markup ("In [spot]"); each is also kept in
        `notices` (for tests)."""
        message, title = notice(message, title)
        self.notices.append((severity, title, message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # --- layout ----------------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[object]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield ClusterHeader(HeaderState(self.config, loading=True), self.clock)
        with ContentSwitcher(initial="view-overview", id="views"):
            yield self._views["overview"]
        with Horizontal(id="command-bar"):
            yield Label(":", id="command-prompt")
            yield CommandLine(self._context_names, self._namespace_names)
        yield KeyBar()

    def on_mount(self) -> None:
        self._catch_hangup()
        self.theme = initial_theme(self.config)
        self.query_one("#command-bar").display = False
        self.view.focus_table()
        self.refresh_data()
        if self.config.live:
            self._load_contexts()
            if self.config.refresh:
                self.set_interval(self.config.refresh, self._tick)

    @property
    def view(self) -> TableView:
        return self._views[self.current]

    def views(self) -> list[TableView]:
        """Every view, mounted or not (one not yet shown keeps its model and filter for its first show)."""
        return list(self._views.values())

    # --- refresh ---------------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self.loading and self.rest_of is None and not self._quitting:
            self.refresh_data()

    def refresh_data(self, config: TuiConfig | None = None) -> None:
        """Read again (the current config, or `config`: a context or namespace switch) in a worker."""
        self.generation += 1
        self.loading = True
        self._header()
        self._load(self.generation, config or self.config)

    def _source(self, options: SourceOptions) -> ClusterSource:
        options = msgspec.structs.replace(options, keep_manifests=True)  # `y` shows the objects as read
        found = self._sources.get(options)
        if found is None:
            found = self._sources[options] = self.source_factory(options)
        return found

    @work(group="refresh", exit_on_error=False)
    async def _load(self, generation: int, config: TuiConfig) -> None:
        """In a thread that quitting does not wait for (`tui.background`)."""
        self.post_message(await off_thread("refresh", lambda: self._read(generation, config)))

    def _read(self, generation: int, config: TuiConfig) -> Message:
        previous = self.snapshot
        try:
            if previous is None:
                return self._read_first(generation, config)
            snapshot = data.load(
                self._source(config.source), now=config.now, clock=self.clock, previous=previous
            )
            with without_collection():  # rows by the thousand, no cycles (as data.load's analyses)
                models = build_changed(snapshot, previous)
        except KubectlGpuError as exc:
            return LoadFailed(generation, config, exc.line())
        except Exception as exc:  # never crash on a refresh: say it, keep the last good data
            detail = " ".join(str(exc).split())[:300]
            return LoadFailed(generation, config, f"{type(exc).__name__}: {detail}", unexpected=True)
        return DataLoaded(generation, config, snapshot, models)

    def _read_first(self, generation: int, config: TuiConfig) -> Message:
        """The first screen: the view shown first, then the others once it is drawn. The collector stays
        off from the read to the last view: turned on between them, its first pass over the analyses'
        objects (0.4 s on 20,000 Pending pods) would come before the first screen."""
        with without_collection():
            snapshot = data.load(self._source(config.source), now=config.now, clock=self.clock)
            shown, drawn = self.current, threading.Event()  # current: the UI thread's latest
            first = build_first(snapshot, shown)
            self.post_message(DataLoaded(generation, config, snapshot, first, drawn))
            drawn.wait(FIRST_DRAWN_S)  # building the rest now would slow the first screen's drawing
            return ViewsBuilt(generation, snapshot, build_rest(snapshot, shown))

    @work(group="contexts", exit_on_error=False)
    async def _load_contexts(self) -> None:
        kubeconfig = self.config.source.kubeconfig
        try:
            contexts = await off_thread("contexts", lambda: self.contexts_loader(kubeconfig))
        except KubectlGpuError:  # the refresh says what is wrong with the kubeconfig
            return  # (a bug is said by `ShowsWorkerFailures`; `:ctx` completes nothing meanwhile)
        self._set_contexts(contexts)

    def _set_contexts(self, contexts: KubeContexts) -> None:
        self.contexts = contexts
        self._header()

    @on(DataLoaded)
    def _loaded(self, message: DataLoaded) -> None:
        if message.drawn is not None:
            self.call_after_refresh(message.drawn.set)
        if message.generation != self.generation:  # a newer refresh (or a context switch) superseded it
            release_later(message.refresh, message.models)
            return
        self.loading = False
        self.error = None
        self.rest_of = message.generation if message.drawn is not None else None  # until ViewsBuilt
        if message.config != self.config:
            self._switched(message.config)
        if (
            message.refresh.reused and self.snapshot is not None
        ):  # nothing changed: the rows stay as they are (but the usage window's, read anew)
            self.snapshot = message.refresh
            for view in self.views():
                if view.view_id in message.models:
                    view.show(message.models[view.view_id])
            self._header()
            self._scope_said(message.refresh)
            return
        replaced = (self.snapshot, [view.model for view in self.views()])
        self.snapshot = message.refresh
        for view in self.views():
            view.show(message.models[view.view_id])
        self._header()
        self._scope_said(message.refresh)
        follow_refresh(self.screen_stack, self.drill)  # open drill-down pages show the new data
        self._notify_notes(message.refresh)
        release_later(*replaced)  # not here: freeing it all at once would freeze the screen

    @on(ViewsBuilt)
    def _built(self, message: ViewsBuilt) -> None:
        """The rest of the first refresh: shown if its data is still what is on screen (a refresh since
        that changed nothing, or a newer generation's same data, keeps it valid)."""
        self.rest_of = None if message.generation == self.rest_of else self.rest_of
        shown = self.snapshot
        if shown is None or message.refresh.state is not shown.state or message.refresh.now != shown.now:
            release_later(message.refresh, message.models)
            return
        for view in self.views():
            if view.view_id in message.models:
                view.show(message.models[view.view_id])

    @on(LoadFailed)
    def _failed(self, message: LoadFailed) -> None:
        self.rest_of = None if message.generation == self.rest_of else self.rest_of
        if message.generation != self.generation:
            return
        self.loading = False
        if message.config != self.config:
            where = message.config.context or "the new scope"
            self.notify(
                f"{message.error}\nstill showing {self.config.context or 'the previous data'}",
                title=f"cannot switch to {where}",
                severity="error",
                timeout=10,
            )
            self._header()
            return
        self.error = message.error  # the header marks the data shown (if any) stale
        title = (
            "refresh failed (internal error; please report it)" if message.unexpected else "refresh failed"
        )
        self.notify(message.error, title=title, severity="error", timeout=8)
        self._header()

    def _header(self) -> None:
        cluster = self.contexts.clusters.get(self.config.context or self.contexts.current or "")
        state = HeaderState(self.config, self.snapshot, self.error, self.loading, cluster)
        self.query_one(ClusterHeader).show(state)

    # --- contexts and namespaces ------------------------------------------------------------------

    def _context_names(self) -> list[str]:
        return list(self.contexts.names)

    def _namespace_names(self) -> list[str]:
        if self.snapshot is None:
            return []
        return sorted({p.namespace for p in self.snapshot.state.pods})

    def _remember(self) -> None:
        filters = {v.view_id: v.filter_text for v in self.views() if v.filter_text}
        self.memory[self.config.context] = ContextMemory(self.current, filters)

    def _switched(self, config: TuiConfig) -> None:
        """A context switch arrived: remember the old context's view and filters, restore the new one's."""
        old_context = self.config.context
        self._remember()
        self.config = config
        self._notes_seen.clear()
        if config.context == old_context:
            return  # a namespace switch: same view, same filters
        memory = self.memory.get(config.context, ContextMemory(self.current))
        for view in self.views():
            view.set_filter(memory.filters.get(view.view_id, ""))
        self.history.clear()
        self._show(memory.view, remember=False)

    def switch_context(self, name: str) -> None:
        if not self.config.live:
            self.notify("a snapshot holds one cluster; :ctx needs a live cluster", severity="warning")
            return
        if self.contexts.names and name not in self.contexts.names:
            known = ", ".join(self.contexts.names)
            self.notify(f"no context {name!r} in the kubeconfig (known: {known})", severity="error")
            return
        self.notify(f"switching to {name}...", timeout=3)
        self.refresh_data(self.config.with_context(name))

    # --- views -------------------------------------------------------------------------------------

    async def show_view(self, view_id: str) -> None:
        """Show a view, mounting it first if it was never shown (hidden until it is current)."""
        if not self._views[view_id].composed:
            mounting = self._mounting.get(view_id)  # a key a moment ago may have started it
            if mounting is None:
                switcher = self.query_one("#views", ContentSwitcher)
                mounting = self._mounting[view_id] = switcher.add_content(self._views[view_id])
            await mounting
        self._show(view_id)

    def _show(self, view_id: str, *, remember: bool = True) -> None:
        if remember and view_id != self.current:
            self.history.append(self.current)
        self.current = view_id
        self.query_one("#views", ContentSwitcher).current = f"view-{view_id}"
        self.view.focus_table()
        self.refresh_bindings()

    async def action_view(self, view_id: str) -> None:
        if self.smi_running():
            self.notify("nvidia-smi is running: esc cancels it first", timeout=3)
            return
        while len(self.screen_stack) > 1:  # from a detail page: back to the main screen, on that view
            self.pop_screen()
        await self.show_view(view_id)

    def _row(self) -> Row[Any] | None:
        return self.view.grid.cursor_row

    @on(TableView.Open)
    async def _open(self, message: TableView.Open) -> None:
        from kubectl_gpu.tui.screens.detail import DetailScreen
        from kubectl_gpu.tui.screens.explain import ExplainScreen
        from kubectl_gpu.tui.screens.node_pods import NodePodsScreen

        row, snapshot = message.row, self.snapshot
        if snapshot is None:
            return
        if message.view.view_id == "overview" and row.key != ALL:
            await self.show_view("nodes")
            self.view.set_filter(row.key if row.ref is not None else "")
            return
        if message.view.view_id == "nodes" and row.node is not None:
            self.push_screen(NodePodsScreen(self.drill(), row.node))
            return
        if message.view.view_id == "pending":
            diag = next((d for d in snapshot.pending.pods if d.key == row.key), None)
            if diag is not None:
                self.push_screen(ExplainScreen(diag))
            return
        finding = next((f for f in snapshot.diagnose.findings if finding_key(f) == row.key), None)
        copy = ("\n".join(finding_item(finding).fix_lines) or None) if finding is not None else None
        grid = message.view.grid.table
        body = grid.detail(row) if grid.detail is not None else str(row.key)
        title = page_title(f"{message.view.title}:", row.key)
        subject = row.ref
        self.push_screen(
            DetailScreen(title, body, copy=copy, copy_what="the fix", subject=subject, node=row.node)
        )

    # --- keys ----------------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        if self.loading or self.rest_of is not None:  # the first refresh's other views: still building
            self.notify("a refresh is already running", timeout=2)
            return
        urge = getattr(self._source(self.config.source), "urge", None)
        if callable(urge):  # a person asked: a live source skips its backoff or poll wait (kube.pacing)
            urge()
        self.refresh_data()

    def action_go_back(self) -> None:
        if self.shell_job is not None and not self.shell_job.done.is_set():
            self.shell_job.cancel()
            self.notify("cancelling the shell; deleting its pod...")
            return
        view = self.view
        if view.filter_text:
            view.set_filter("")
        elif view.grid.marks:
            view.grid.marks.clear()
            view.grid.refresh()
            view.set_filter("")
        elif self.history:
            self._show(self.history.pop(), remember=False)
        self.refresh_bindings()

    def action_history_back(self) -> None:
        """`-` (k9s' "the last view"): the page or view before this one, filters and marks kept."""
        if len(self.screen_stack) > 1:
            self.pop_screen()
        elif self.history:
            self._show(self.history.pop(), remember=False)

    def drill(self) -> Drill:
        """What a drill-down page reads: this refresh, and the pod logs of this source (live only)."""
        assert self.snapshot is not None
        source = self._source(self.config.source)
        return Drill(
            self.snapshot,
            lambda ns, name, container: pod_log_tail(source, ns, name, container=container),
            self.config.live,
        )

    def action_help(self) -> None:
        """The keys of the page `?` was pressed on (they are the ones that work there)."""
        from kubectl_gpu.tui.help import help_view
        from kubectl_gpu.tui.screens.detail import DetailScreen

        page = self.screen
        title = "Keys" if len(self.screen_stack) == 1 else f"Keys: {getattr(page, 'page_title', '')}"
        self.push_screen(DetailScreen(title.rstrip(": "), help_view(page), shows="help"))

    @on(DebugNode)
    def _debug_node(self, message: DebugNode) -> None:
        if message.what == "shell":
            self.shell_on(message.node)
        else:
            self.smi_on([message.node])
