"""Every page's footer: the keys that work on it (`tui.keys`), the most important ones when narrow.

Textual's Footer recomposes itself (a widget per key) whenever the focus moves, which every view switch
does: that was more than half of the time a view key took. This is one line of text, written again only
when the page's bindings change (its `bindings_updated_signal`) or its width does.
"""

from __future__ import annotations

from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from kubectl_gpu.tui.keys import PageKey, fit_footer, page_keys

__all__ = ["KeyBar", "key_text"]


def key_text(keys: list[PageKey]) -> Content:
    """`? Keys v Overview n Nodes ...`: the first key of each, in the theme's footer colours."""
    parts = [
        Content.from_markup("[b $footer-key-foreground]$key[/] $what", key=k.footer_key, what=k.description)
        for k in keys
    ]
    return Content(" ").join(parts)


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        dock: bottom;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    """

    def __init__(self) -> None:
        super().__init__("", classes="key-bar")
        self.keys: list[PageKey] = []
        self._shown: tuple[tuple[str, ...], int] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)
        self.call_after_refresh(self._changed, self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        self._draw()

    def _changed(self, screen: Screen[object]) -> None:
        self.keys = page_keys(screen)
        self._draw()

    @property
    def footer_keys(self) -> list[PageKey]:
        """What the footer shows now (tests press each)."""
        return fit_footer(self.keys, self.size.width or 80)

    def _draw(self) -> None:
        keys = self.footer_keys
        shown = (tuple(f"{k.press}{k.description}" for k in keys), self.size.width)
        if shown != self._shown:
            self._shown = shown
            self.update(key_text(keys))
