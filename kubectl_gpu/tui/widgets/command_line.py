"""The line at the bottom that `:` (a command, with completion) and `/` (the view's filter) open.

Its length is bounded (`MAX_LENGTH`): a pasted megabyte is cut, with a notice, instead of being filtered
on and drawn (a 160 KB paste once held the app for minutes and grew it to 2.3 GB)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

from kubectl_gpu.tui.commands import complete

__all__ = ["MAX_LENGTH", "CommandLine"]

#: the longest command or filter kept (longer than any node, pod or context name, and a few words more)
MAX_LENGTH = 256


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
        super().__init__(
            id="command-line", suggester=self._completion, select_on_focus=False, max_length=MAX_LENGTH
        )
        self.mode = ":"

    def _on_paste(self, event: events.Paste) -> None:
        """One line of what was pasted, cut to the room left (Input refuses an over-long paste whole)."""
        event.prevent_default()
        event.stop()
        if not event.text:
            return
        line = event.text[: MAX_LENGTH * 4].splitlines()[0] if event.text.strip() else ""
        selection = self.selection
        kept = len(self.value) - abs(selection.end - selection.start)
        room = max(0, MAX_LENGTH - kept)
        if len(line) > room or len(event.text) > len(line) + 2:
            self.app.notify(
                f"pasted text cut to {room} characters (one line; at most {MAX_LENGTH} in all)",
                severity="warning",
                timeout=4,
            )
        line = line[:room]
        if selection.is_empty:
            self.insert_text_at_cursor(line)
        else:
            self.replace(line, *selection)

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
