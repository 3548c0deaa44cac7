"""The line at the bottom that `:` (a command, with completion) and `/` (the view's filter) open."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from kubectl_gpu.tui.commands import complete

__all__ = ["CommandLine"]


class _Completion(Suggester):
    def __init__(
        self, contexts: Callable[[], Sequence[str]], namespaces: Callable[[], Sequence[str]]
    ) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.contexts = contexts
        self.namespaces = namespaces
        self.enabled = True

    async def get_suggestion(self, value: str) -> str | None:
        if not self.enabled:
            return None
        return complete(value, self.contexts, self.namespaces)


class CommandLine(Input):
    """Shown (by the app) on `:` or `/`. `enter` submits, `esc` cancels, `tab` takes the completion."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Run / keep"),
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "complete", "Complete"),
    ]

    class Entered(Message):
        def __init__(self, mode: str, value: str) -> None:
            super().__init__()
            self.mode = mode
            self.value = value

    class Edited(Message):
        """The text changed (the filter applies as you type)."""

        def __init__(self, mode: str, value: str) -> None:
            super().__init__()
            self.mode = mode
            self.value = value

    class Cancelled(Message):
        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode

    def __init__(
        self, contexts: Callable[[], Sequence[str]], namespaces: Callable[[], Sequence[str]]
    ) -> None:
        self._completion = _Completion(contexts, namespaces)
        super().__init__(id="command-line", suggester=self._completion, select_on_focus=False)
        self.mode = ":"

    def open(self, mode: str, value: str = "") -> None:
        self.mode = mode
        self._completion.enabled = mode == ":"
        self.placeholder = (
            "nodes, pending, ctx NAME, ns NAME|all, q  (tab completes)"
            if mode == ":"
            else "words to keep, !word to drop (enter keeps it, esc clears it)"
        )
        self.value = value
        self.cursor_position = len(value)
        self.focus()

    def action_complete(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)

    def action_cancel(self) -> None:
        self.post_message(self.Cancelled(self.mode))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Entered(self.mode, self.value))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Edited(self.mode, self.value))
