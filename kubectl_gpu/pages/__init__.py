"""The pages, registered once: each module here holds one `Page` (`pages.spec`), and `ORDER` says which and in
what order (the TUI's views and footer, the root `--help`, the docs' command list follow it).

Adding a page is one new module here (its `PAGE`), one name in `ORDER`, and its analysis and view; the CLI
command, the TUI view, fleet mode, completion and the docs' command list then find it (CONTRIBUTING.md).
Importing this package imports no analysis, renderer, rich, typer or Textual (`Ref` resolves on first use).
"""

from __future__ import annotations

import importlib
from functools import cache

from kubectl_gpu.pages.spec import FINDINGS, Page, Reads, Ref, TuiFace

__all__ = [
    "FINDINGS",
    "ORDER",
    "Page",
    "Reads",
    "Ref",
    "TuiFace",
    "aliases",
    "by_command",
    "by_name",
    "pages",
    "tui_pages",
]

#: every page's module, in the order the TUI shows its views (then the CLI-only pages)
ORDER = (
    "overview",
    "nodes",
    "pending",
    "nodepools",
    "findings",
    "drivers",
    "nvme",
    "lifecycle",
    "cost",
    "usage",
    "explain",
    "inventory",
    "lint",
    "simulate",
)


@cache
def pages() -> tuple[Page, ...]:
    """Every page, in `ORDER`."""
    return tuple(importlib.import_module(f"kubectl_gpu.pages.{name}").PAGE for name in ORDER)


def by_name(name: str) -> Page:
    """The page of this id; KeyError when there is none. A page's module bears its id: that one module is
    imported, not every page's (a one-shot command asks for its own page alone)."""
    page = _module_page(name)
    if page is not None and page.name == name:
        return page
    for page in pages():
        if page.name == name:
            return page
    raise KeyError(name)


def by_command(command: str) -> Page:
    """The page that `kubectl gpu COMMAND` answers; KeyError for a command that is no page (snapshot, smi).
    The module named like the command (or `_COMMAND_PAGES`' own) is tried first, then every page."""
    page = _module_page(_COMMAND_PAGES.get(command, command))
    if page is not None and page.command == command:
        return page
    for page in pages():
        if page.command == command:
            return page
    raise KeyError(command)


#: the commands whose page's module is named otherwise (tests/test_pages.py holds this to the pages)
_COMMAND_PAGES = {"pools": "overview", "diagnose": "findings"}


def _module_page(name: str) -> Page | None:
    """The page of the module `name` in `ORDER`, None for a name that is none."""
    if name not in ORDER:
        return None
    page: Page = importlib.import_module(f"kubectl_gpu.pages.{name}").PAGE
    return page


def tui_pages() -> tuple[Page, ...]:
    """The pages with a TUI view, in the footer's order."""
    return tuple(page for page in pages() if page.tui is not None)


def aliases() -> dict[str, str]:
    """What `:NAME` opens in the TUI: each alias -> its page's view id."""
    return {alias: page.name for page in tui_pages() for alias in page.aliases}
