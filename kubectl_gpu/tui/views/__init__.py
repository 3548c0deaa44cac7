"""One widget per view, in the order the footer lists them (the page registry's, `kubectl_gpu.pages`); each
builds its rows from a `Refresh`."""

from __future__ import annotations

from rich.text import Text

from kubectl_gpu.pages import tui_pages
from kubectl_gpu.render import theme
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.views.base import Section, TableView, ViewModel
from kubectl_gpu.tui.views.model_grid import to_grid
from kubectl_gpu.tui.views.usage import UsageView

__all__ = [
    "LOADING",
    "VIEWS",
    "TableView",
    "ViewModel",
    "build_all",
    "build_changed",
    "build_first",
    "build_rest",
    "placeholder",
]

LOADING = "loading..."

#: every page with a TUI face, in the registry's order (kubectl_gpu/pages: ids, keys, titles, footers)
VIEWS: tuple[type[TableView], ...] = tuple(page.tui.view.resolve() for page in tui_pages() if page.tui)


def build_all(refresh: Refresh) -> dict[str, ViewModel]:
    """Every view's model for one refresh (in the refresh worker)."""
    return {view.view_id: view.build(refresh) for view in VIEWS}


def build_changed(refresh: Refresh, previous: Refresh | None) -> dict[str, ViewModel]:
    """The models of what changed: every view's, none (the reports were reused), or the usage view's alone
    (the same reports, a new usage window: live, each refresh reads one)."""
    if not refresh.reused:
        return build_all(refresh)
    if previous is not None and refresh.usage is not previous.usage:
        return {UsageView.view_id: UsageView.build(refresh)}
    return {}


def placeholder(view: type[TableView]) -> ViewModel:
    """What a view shows until its rows are built: its sections, empty, saying so."""
    sections = tuple(Section(name, to_grid(None, empty=LOADING)) for name in view.SECTIONS)
    return ViewModel(sections, summary=Text(LOADING, style=theme.MUTED))


def build_first(refresh: Refresh, shown: str) -> dict[str, ViewModel]:
    """The first refresh's first models: the view shown, built; every other a placeholder. Building them
    all took 4 s of a 14 s first screen with 20,000 Pending pods (the Pending and Findings views' rows)."""
    return {v.view_id: v.build(refresh) if v.view_id == shown else placeholder(v) for v in VIEWS}


def build_rest(refresh: Refresh, shown: str) -> dict[str, ViewModel]:
    """The other views' models, built right after the first screen (in the same worker)."""
    return {v.view_id: v.build(refresh) for v in VIEWS if v.view_id != shown}
