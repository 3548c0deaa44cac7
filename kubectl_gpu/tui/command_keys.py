"""The App's command line: `:` runs a command (`:nodes`, `:ctx NAME`, `:ns NAME`, `:q`), `/` filters the
view's rows as they are typed; `esc` closes it. Parsing is `tui.commands`; this is what the App does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import App
from textual.widgets import Label

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.connection import check_namespace
from kubectl_gpu.tui.commands import parse
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.views import TableView
from kubectl_gpu.tui.widgets.command_line import CommandLine

__all__ = ["CommandLineKeys"]


class CommandLineKeys(App[int]):
    """What `GpuApp` gives it: its config, the current view and what the commands do."""

    config: TuiConfig

    if TYPE_CHECKING:  # given by GpuApp and FleetKeys (stubs here would shadow them in the MRO)

        @property
        def view(self) -> TableView: ...
        async def show_view(self, view_id: str) -> None: ...
        def switch_context(self, name: str) -> None: ...
        def open_fleet(self) -> None: ...
        def refresh_data(self, config: TuiConfig | None = None) -> None: ...
        def action_refresh(self) -> None: ...
        def action_help(self) -> None: ...

    _typed_filter: str | None = None

    def _open_line(self, mode: str) -> None:
        self.query_one("#command-prompt", Label).update(mode)
        self.query_one("#command-bar").display = True
        line = self.query_one(CommandLine)
        line.open(mode)
        # Now, not on the next idle (as focus() does): keys typed right after `/` go to the line.
        self.screen.set_focus(line, scroll_visible=False)

    def _close_line(self) -> None:
        self.query_one("#command-bar").display = False
        self.view.focus_table()

    def action_command(self) -> None:
        self._open_line(":")

    def action_filter(self) -> None:
        self._open_line("/")

    @on(CommandLine.Edited)
    def _edited(self, message: CommandLine.Edited) -> None:
        """Filter as typed, once per batch of keys: edits that arrive together (fast typing, a busy
        machine) filter once, on the latest text, after the screen is drawn."""
        if message.mode != "/" or not self.query_one("#command-bar").display:
            return
        if self._typed_filter is None:
            self.call_after_refresh(self._filter_typed)
        self._typed_filter = message.value

    def _filter_typed(self) -> None:
        text, self._typed_filter = self._typed_filter, None
        line = self.query_one(CommandLine)
        if text is not None and self.query_one("#command-bar").display and line.mode == "/":
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
            await self.show_view(command.arg)
            return
        self._run_command(command.kind, command.arg)

    def _run_command(self, kind: str, arg: str | None) -> None:
        if kind == "ctx" and arg:
            self.switch_context(arg)
        elif kind == "ctx":
            self.open_fleet()
        elif kind == "ns":
            self._namespace(arg)
        elif kind == "refresh":
            self.action_refresh()
        elif kind == "help":
            self.action_help()

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
