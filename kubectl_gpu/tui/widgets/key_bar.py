"""The main screen's footer: the app's keys, drawn once.

Textual's Footer recomposes itself whenever the focused widget changes, which every view switch does (each
view focuses its own table): that was more than half of the time a view key took. The main screen's keys
never change, so they are written once; the pages pushed over it keep Textual's Footer.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

__all__ = ["KeyBar", "key_text"]

_NAMES = {"colon": ":", "slash": "/", "question_mark": "?"}


def key_text(bindings: Iterable[BindingType]) -> Content:
    """`? Keys v Fleet n Nodes ...`: the shown bindings, first key of each, in order, in the theme's footer
    colours."""
    parts: list[Content] = []
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.show:
            continue
        key = binding.key.split(",")[0]
        shown = binding.key_display or _NAMES.get(key, key)
        parts.append(
            Content.from_markup(
                "[b $footer-key-foreground]$key[/] $what", key=shown, what=binding.description
            )
        )
    return Content(" ").join(parts)


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    """

    def __init__(self, bindings: Iterable[BindingType]) -> None:
        super().__init__(key_text(bindings), id="key-bar")
