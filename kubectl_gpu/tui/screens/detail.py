"""A scrollable page over the main screen: an object's YAML (`y`), its events (`e`), a finding, the keys.
`esc` (or `q`) goes back; `c` copies what the page offers to copy (through the terminal: OSC 52).

A page about one object (its `subject`: a node, a pod) takes the keys about it: `y` its YAML, `e` its
events, and on a node `s` / `x` (the app asks first, and offers neither when read-only). Only the keys
that do something are bound: no `y` on its own YAML page, no `e` on its events page.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.safe import safe_line
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.messages import DebugNode, ShowObject
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["DetailScreen"]


class DetailScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("c", "copy", "Copy"),
        Binding("y", "subject('yaml')", "YAML"),
        Binding("e", "subject('events')", "Events"),
        Binding("s", "debug('smi')", "smi"),
        Binding("x", "debug('shell')", "Shell"),
        Binding("j,down", "scroll(1)", "Down", show=False),
        Binding("k,up", "scroll(-1)", "Up", show=False),
        Binding("space,pagedown", "page(1)", "Page down", show=False),
        Binding("b,pageup", "page(-1)", "Page up", show=False),
        Binding("g,home", "top", "Top", show=False),
        Binding("G,end", "bottom", "Bottom", show=False),
    ]

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        copy: str | None = None,
        copy_what: str = "",
        subject: ObjectRef | None = None,
        node: str | None = None,
        shows: str = "",
    ) -> None:
        super().__init__(classes="detail-screen")
        self.page_title = safe_line(title)  # it names a cluster object
        self.body = body
        self.copy_text = copy
        self.copy_what = copy_what or "it"
        #: the object the page is about (`y`, `e`), the node `s` / `x` act on, what the page shows of it
        self.subject = subject
        self.node = node or (subject.name if subject is not None and subject.kind == "Node" else None)
        self.shows = shows

    def compose(self) -> ComposeResult:
        title = Text(self.page_title, style=theme.HEADER, no_wrap=True, overflow="ellipsis")
        hint = "  esc back" + (f"  c copy {self.copy_what}" if self.copy_text else "")
        title.append(hint, style=theme.MUTED)
        yield Static(title, classes="page-title")
        with VerticalScroll(classes="page") as page:
            page.can_focus = False  # its keys are the page's (j k space b g G), not the scroller's
            yield Static(self.body, classes="page-body")
        yield KeyBar()

    def show_body(self, body: RenderableType, copy: str | None) -> None:
        """New content for the page (a refresh), where the reader was (the scroll stays)."""
        self.body, self.copy_text = body, copy
        if self.is_mounted:
            self.query_one(".page-body", Static).update(body)
            self.call_after_refresh(self.refresh_bindings)

    def on_mount(self) -> None:
        self.call_after_refresh(self.refresh_bindings)  # the scrolling keys: once the page is laid out

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_bindings)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in TEXTUAL_DEFAULTS:
            return False
        if action == "copy":
            return self.copy_text is not None
        if action == "subject":
            return self.subject is not None and parameters[:1] != (self.shows,)
        if action == "debug":
            allowed = getattr(self.app, "debug_allowed", None)
            return self.node is not None and callable(allowed) and bool(allowed(str(parameters[0])))
        if action in ("scroll", "page", "top", "bottom"):  # the page overflows, not already at that end
            page = self._page
            up = action == "top" or (bool(parameters) and int(str(parameters[0])) < 0)
            return page.scroll_y > 0 if up else page.scroll_y < page.max_scroll_y
        return True

    def action_subject(self, what: str) -> None:
        if self.subject is not None:
            self.app.post_message(ShowObject(self.subject, what))

    def action_debug(self, what: str) -> None:
        if self.node is not None:
            self.app.post_message(DebugNode(self.node, what))

    def action_back(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        if self.copy_text is None:
            return
        self.app.copy_to_clipboard(self.copy_text)
        self.notify(
            f"copied {self.copy_what} to the clipboard ({len(self.copy_text.splitlines())} lines)", timeout=3
        )

    @property
    def _page(self) -> VerticalScroll:
        return self.query_one(".page", VerticalScroll)

    def action_scroll(self, lines: int) -> None:
        self._page.scroll_relative(y=lines, animate=False)

    def action_page(self, direction: int) -> None:
        self._page.scroll_relative(y=direction * max(1, self._page.size.height - 1), animate=False)

    def action_top(self) -> None:
        self._page.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self._page.scroll_end(animate=False)
