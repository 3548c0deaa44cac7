"""The keys that work on the page shown: what the footer and `?` list, read from Textual's active bindings
(every `check_action` says whether its action works here: a key that would do nothing is not listed).

The footer keeps the most important keys when the terminal is narrow (`PRIORITY`: `q ? s x : / r` first,
then the page's own keys, the views last),
and shows them in a stable order (`ORDER`: help, the views, the page's own keys, the verbs, back, quit).
"""

from __future__ import annotations

import string

import msgspec
from textual.binding import Binding
from textual.screen import Screen

__all__ = [
    "ORDER",
    "PRIORITY",
    "SORT_LETTERS",
    "TEXTUAL_DEFAULTS",
    "PageKey",
    "fit_footer",
    "page_keys",
    "shown_key",
]

#: actions Textual's own classes bind (Screen, App, ScrollView) that do nothing useful here (tab is a
#: view's section key, not a focus move; a table is fitted to the width, no horizontal page): every
#: `check_action` of the app's screens and widgets turns them off, so they are neither run nor listed
TEXTUAL_DEFAULTS = frozenset(
    {"focus_next", "focus_previous", "copy_text", "page_left", "page_right", "command_palette"}
)

#: the capital letters that mean something else on some page (`G` bottom, `J` `K` the detail pane, `S` `R`
#: the next column and reverse, `E` `Y` a node's events and YAML): every other one sorts by the column whose
#: header starts with it (k9s' Shift+N name, Shift+A age); tests/tui/test_k9s_keys.py holds every page to it
_TAKEN_CAPITALS = "EGJKRSY"
SORT_LETTERS: tuple[str, ...] = tuple(c for c in string.ascii_uppercase if c not in _TAKEN_CAPITALS)
#: the action of every Shift+letter binding (one entry in the footer and `?`: `⇧letter Sort`)
SORT_LETTER = "sort_letter"

#: which keys stay in a narrow footer, most important first (an action not named: after these)
PRIORITY: tuple[str, ...] = (
    "quit",
    "help",
    "confirm",
    "deny",
    "smi",
    "shell",
    "debug",
    "command",
    "filter",
    "refresh",
    "back",
    "go_back",
    "cancel_or_back",
    "copy",
    "choose",
    "subject",
    "yaml",
    "events",
)
#: chosen after every other key, a page's own included (`l Logs`, `N Node` on a pod page), in this order:
#: the views are one key away on every page and listed by `?`; a page's own keys are what the page is for
_CHOSEN_LAST: tuple[str, ...] = ("view", "history_back", SORT_LETTER)
#: where a key stands in the footer, left to right (an action not named: in the middle)
ORDER: tuple[str, ...] = ("confirm", "deny", "help", "view", "", "smi", "shell", "debug", "command", "filter")
_LAST: tuple[str, ...] = ("refresh", "back", "go_back", "cancel_or_back", "quit")

_NAMES = {
    "escape": "esc",
    "question_mark": "?",
    "colon": ":",
    "slash": "/",
    "full_stop": ".",
    "minus": "-",
    "dollar_sign": "$",
}


def shown_key(key: str) -> str:
    return _NAMES.get(key, key)


class PageKey(msgspec.Struct, frozen=True):
    """One binding that works here: every key that runs it (`up k`), its action's name and description."""

    keys: tuple[str, ...]
    action: str
    description: str
    show: bool

    @property
    def label(self) -> str:
        if _name(self.action) == SORT_LETTER:  # the letters of the columns shown, as Shift+letter
            return "⇧" + "".join(self.keys)
        return " ".join(shown_key(k) for k in self.keys)

    @property
    def footer_key(self) -> str:
        """What the footer shows for it: its first key (`⇧letter` for the sort letters)."""
        return "⇧letter" if _name(self.action) == SORT_LETTER else shown_key(self.press)

    @property
    def press(self) -> str:
        """The key to press for it (a test presses each)."""
        return self.keys[0]


def page_keys(screen: Screen[object]) -> list[PageKey]:
    """Every enabled binding of the page (focused widget up to the app), one entry per binding (the
    Shift+letter sorts: one entry, `⇧NAD Sort`)."""
    grouped: dict[tuple[int, str, str, bool], PageKey] = {}
    for key, active in screen.active_bindings.items():
        if not active.enabled or not isinstance(active.binding, Binding) or active.binding.system:
            continue
        binding = active.binding
        action = SORT_LETTER if _name(binding.action) == SORT_LETTER else binding.action
        show = binding.show or action == SORT_LETTER
        ident = (id(active.node), action, binding.description, show)
        found = grouped.get(ident)
        keys = (*found.keys, key) if found is not None else (key,)
        grouped[ident] = PageKey(keys, action, binding.description, show)
    return list(grouped.values())


def _name(action: str) -> str:
    return action.partition("(")[0]


def _rank(name: str, table: tuple[str, ...]) -> int:
    return table.index(name) if name in table else len(table)


def _chosen(key: PageKey) -> int:
    name = _name(key.action)
    if name in _CHOSEN_LAST:
        return len(PRIORITY) + 1 + _CHOSEN_LAST.index(name)
    return _rank(name, PRIORITY)


def _place(key: PageKey) -> tuple[int, int]:
    name = _name(key.action)
    if name in _LAST:
        return (len(ORDER) + 1, _LAST.index(name))
    return (_rank(name, ORDER) if name in ORDER else ORDER.index(""), 0)


def fit_footer(keys: list[PageKey], width: int) -> list[PageKey]:
    """The footer's keys (`show` ones) that fit in `width` cells, chosen by `PRIORITY` (none after the
    first that does not fit: the views stay a run from the first), shown in `ORDER`."""
    shown = [k for k in keys if k.show]
    chosen: list[PageKey] = []
    used = 0
    for key in sorted(shown, key=_chosen):
        size = len(key.footer_key) + 1 + len(key.description) + (1 if chosen else 0)
        if used + size > width:
            break
        chosen.append(key)
        used += size
    order = {id(k): i for i, k in enumerate(shown)}
    return sorted(chosen, key=lambda k: (_place(k), order[id(k)]))
