"""The App's command line: `:` runs a command (`:nodes`, `:po`, `:ctx NAME`, `:ns NAME`, `:ns`, `:q`) on
every page (an App key: a page over the main screen gets its own line, mounted on the first `:`), `/`
filters the view's rows as they are typed; `esc` closes it. `0` is every namespace (k9s' key). Parsing is
`tui.commands`; this is what the App does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import App
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Label

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.connection import check_namespace
from kubectl_gpu.tui.commands import parse
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views import TableView
from kubectl_gpu.tui.widgets.command_line import CommandLine
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["CommandLineKeys"]


class CommandLineKeys(App[int]):
    """What `GpuApp` gives it: its config, the current view and what the commands do."""

    config: TuiConfig
    snapshot: Refresh | None

    if TYPE_CHECKING:  # given by GpuApp and FleetKeys (stubs here would shadow them in the MRO)

        @property
        def view(self) -> TableView: ...
        async def show_view(self, view_id: str) -> None: ...
        def switch_context(self, name: str) -> None: ...
        def open_fleet(self) -> None: ...
        def refresh_data(self, config: TuiConfig | None = None) -> None: ...
        def action_refresh(self) -> None: ...
        def action_help(self) -> None: ...
        async def action_view(self, view_id: str) -> None: ...
        def _context_names(self) -> list[str]: ...
        def _namespace_names(self) -> list[str]: ...

    _typed_filter: str | None = None
    #: what had the focus on each page before its line opened (it gets it back when the line closes)
    _focus_before: Widget | None = None

    async def _line_bar(self) -> Widget:
        """The page's command bar: the main screen's own; on a page over it (a node's pods, a pod, YAML,
        the Fleet) one mounted above its footer on the first `:`, so that no page needs code for it."""
        screen = self.screen
        found = screen.query("#command-bar")
        if found:
            return found.first()
        bar = Horizontal(
            Label(":", id="command-prompt"),
            CommandLine(self._context_names, self._namespace_names),
            id="command-bar",
        )
        footer = screen.query(KeyBar)
        await screen.mount(bar, before=footer.first() if footer else None)
        return bar

    async def _open_line(self, mode: str) -> None:
        bar = await self._line_bar()
        self._focus_before = self.screen.focused
        bar.query_one("#command-prompt", Label).update(mode)
        bar.display = True
        line = bar.query_one(CommandLine)
        line.open(mode)
        # Now, not on the next idle (as focus() does): keys typed right after `/` go to the line.
        self.screen.set_focus(line, scroll_visible=False)

    def _close_line(self) -> None:
        for bar in self.screen.query("#command-bar"):
            bar.display = False
        if len(self.screen_stack) == 1:
            self.view.focus_table()
        elif self._focus_before is not None and self._focus_before.is_attached:
            self.screen.set_focus(self._focus_before, scroll_visible=False)
        else:
            self.screen.set_focus(None)
        self._focus_before = None

    def _line(self) -> CommandLine:
        """The command line of the page shown."""
        return self.screen.query_one(CommandLine)

    def _line_open(self) -> bool:
        bars = self.screen.query("#command-bar")
        return bool(bars) and bool(bars.first().display)

    async def action_command(self) -> None:
        await self._open_line(":")

    async def action_filter(self) -> None:
        await self._open_line("/")

    @on(CommandLine.Edited)
    def _edited(self, message: CommandLine.Edited) -> None:
        """Filter as typed, once per batch of keys: edits that arrive together (fast typing, a busy
        machine) filter once, on the latest text, after the screen is drawn."""
        if message.mode != "/" or not self._line_open():
            return
        if self._typed_filter is None:
            self.call_after_refresh(self._filter_typed)
        self._typed_filter = message.value

    def _filter_typed(self) -> None:
        text, self._typed_filter = self._typed_filter, None
        if text is not None and self._line_open() and self._line().mode == "/":
            self.view.set_filter(text)

    @on(CommandLine.Cancelled)
    def _cancelled(self, message: CommandLine.Cancelled) -> None:
        if message.mode == "/":
            self.view.set_filter("")
        self._close_line()

    @on(CommandLine.Entered)
    async def _submitted(self, message: CommandLine.Entered) -> None:
        self._close_line()
        if message.mode == "/":
            self.view.set_filter(message.value)
            return
        try:
            command = parse(message.value)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        if command.kind == "quit":
            await self.action_quit()  # as `q`: running debug pods are deleted first
            return
        if command.kind == "view" and command.arg:
            await self.action_view(command.arg)  # from a page: back to the main screen, on that view
            return
        self._run_command(command.kind, command.arg)

    def _to_main_screen(self) -> None:
        """A context or namespace switch from a page: back to the main screen, where the switch shows."""
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def _run_command(self, kind: str, arg: str | None) -> None:
        if kind == "ctx" and arg:
            self._to_main_screen()
            self.switch_context(arg)
        elif kind == "ctx":
            self.open_fleet()
        elif kind == "ns":
            self._to_main_screen()
            self._namespace(arg)
        elif kind == "pick-ns":
            self.pick_namespace()
        elif kind == "refresh":
            self.action_refresh()
        elif kind == "help":
            self.action_help()

    def action_all_namespaces(self) -> None:
        """`0` (k9s): every namespace, as `:ns all`."""
        self._to_main_screen()
        self._namespace(None)

    def pick_namespace(self) -> None:
        """`:ns` alone (k9s): pick a namespace among those read, or `all`."""
        from kubectl_gpu.tui.screens.namespaces import ALL, NamespaceScreen

        snapshot = self.snapshot
        if snapshot is None:
            self.notify("nothing read yet: :ns NAME, or :ns all", severity="warning", timeout=3)
            return

        def chosen(name: str | None) -> None:
            if name is not None and name != (self.config.namespace or ALL):
                self._to_main_screen()
                self._namespace(None if name == ALL else name)

        self.push_screen(NamespaceScreen(snapshot.state, self.config.namespace), callback=chosen)

    def _namespace(self, name: str | None) -> None:
        """`:ns NAME` (None: all): a name that cannot be a namespace is refused in kubectl's words, before
        anything is read; one that does not exist is said once read (`GpuApp._scope_said`)."""
        if name is not None:
            try:
                check_namespace(name, "e.g. :ns ml, or :ns all for every namespace")
            except InvalidInput as exc:
                self.notify(exc.line(), title=":ns", severity="error", timeout=10)
                return
        self.refresh_data(self.config.with_namespace(name))
