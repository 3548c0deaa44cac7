"""A scrollable page over the main screen: an object's YAML (`y`), its events (`e`), a finding, the keys.
`esc` (or `q`) goes back; `c` copies what the page offers to copy (through the terminal: OSC 52).

A page about one object (its `subject`: a node, a pod) takes the keys about it: `y` its YAML, `e` its
events, and on a node `s` / `x` (the app asks first, and offers neither when read-only). Only the keys
that do something are bound: no `y` on its own YAML page, no `e` on its events page.

A page whose body takes a moment (a YAML at the API's size limits, a pod's log) opens at once, saying what
it is reading, and `fill` builds its body in a worker thread: `esc` leaves while it is built (what it was
building is dropped), and an error shows on the page and as a notification, never silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.tui.background import ShowsWorkerFailures, off_thread
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.messages import DebugNode, ShowObject
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["Body", "DetailScreen"]

#: what `DetailScreen.fill` builds: the page's body and the text `c` copies (None: nothing)
Body = tuple[RenderableType, str | None]


class DetailScreen(Screen[None], ShowsWorkerFailures):
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
        self.page_title = title  # made safe by who names the page (`render.page_lines.page_title`)
        self.body = body
        self.copy_text = copy
        self.copy_what = copy_what or "it"
        #: the object the page is about (`y`, `e`), the node `s` / `x` act on, what the page shows of it
        self.subject = subject
        self.node = node or (subject.name if subject is not None and subject.kind == "Node" else None)
        self.shows = shows
        #: `fill` is building the body (tests wait on the app's workers), and what it builds
        self.building = False
        self.filling = "the page"
        self._drawn: RenderableType | None = None  # the body the page's widget shows

    def _title(self) -> Text:
        title = Text(self.page_title, style=theme.HEADER, no_wrap=True, overflow="ellipsis")
        hint = "  esc back" + (f"  c copy {self.copy_what}" if self.copy_text else "")
        title.append(hint, style=theme.MUTED)
        return title

    def compose(self) -> ComposeResult:
        yield Static(self._title(), classes="page-title")
        with VerticalScroll(classes="page") as page:
            page.can_focus = False  # its keys are the page's (j k space b g G), not the scroller's
            yield Static(self.body, classes="page-body")
        yield KeyBar()
        self._drawn = self.body

    def show_body(self, body: RenderableType, copy: str | None) -> None:
        """New content for the page (a refresh, `fill`), where the reader was (the scroll stays). Before the
        page is mounted it is kept: `on_mount` shows it (a body built faster than the page mounts)."""
        self.body, self.copy_text = body, copy
        if self.is_mounted:
            self._draw_body()

    def _draw_body(self) -> None:
        self._drawn = self.body
        self.query_one(".page-title", Static).update(self._title())
        self.query_one(".page-body", Static).update(self.body)
        self.call_after_refresh(self.refresh_bindings)

    def fill(self, build: Callable[[], Body], what: str) -> None:
        """Build the body (and what `c` copies) in a worker thread: `build` may take a moment (a YAML at
        the API's size limits, a log read over the network); the page stays responsive meanwhile. `what`
        names it in an error (`the YAML`)."""
        self.building = True
        self._fill(build, what)

    @work(group="page", exclusive=True, exit_on_error=False)
    async def _fill(self, build: Callable[[], Body], what: str) -> None:
        """In a thread that leaving the page (or quitting) does not wait for (`tui.background`); what fails
        is said by `ShowsWorkerFailures`, on this page (it would say "building..." forever)."""
        self.filling = what
        body, copy = await off_thread("page", build)
        self.building = False
        self.show_body(body, copy)

    def show_failure(self, group: str, line: str) -> str:
        said = f"could not show {self.filling}: {line}"
        self.building = False
        self.show_body(Text(said, style=theme.ERROR), None)
        return said

    def on_mount(self) -> None:
        if self._drawn is not self.body:  # `show_body` came between compose and mount
            self._draw_body()
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
