"""The App's object keys: `y` (the selected row's object as YAML) and `e` (its events), on a detail page
over the main screen; pages post `ShowObject` for the object they show. The page opens at once and its
body is built in a worker thread (`DetailScreen.fill`): an object at the API's size limits never holds the
keys."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import App

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.model import Row
from kubectl_gpu.render.page_lines import page_title
from kubectl_gpu.tui import data
from kubectl_gpu.tui.messages import ShowObject

if TYPE_CHECKING:  # the page's module is imported on the first `y` / `e`
    from kubectl_gpu.tui.screens.detail import Body

__all__ = ["ObjectKeys"]


class ObjectKeys(App[int]):
    """What `GpuApp` gives it: the data shown and the selected row."""

    snapshot: data.Refresh | None

    def _row(self) -> Row[Any] | None:
        raise NotImplementedError

    def _selected_ref(self) -> ObjectRef | None:
        row = self._row()
        if row is None or row.ref is None:
            self.notify("this row names no Kubernetes object", severity="warning", timeout=3)
            return None
        return row.ref

    def action_yaml(self) -> None:
        ref = self._selected_ref()
        if ref is not None:
            self.post_message(ShowObject(ref, "yaml"))

    def action_events(self) -> None:
        ref = self._selected_ref()
        if ref is not None:
            self.post_message(ShowObject(ref, "events"))

    @on(ShowObject)
    def _show_object(self, message: ShowObject) -> None:
        from kubectl_gpu.tui.objects import events_view, yaml_view
        from kubectl_gpu.tui.screens.detail import DetailScreen

        if self.snapshot is None:
            return
        state, ref = self.snapshot.state, message.ref
        what = "the YAML" if message.what == "yaml" else "the events"
        waiting = Text(f"building {what}...", style=theme.MUTED)
        build: Callable[[], Body]
        if message.what == "yaml":
            page = DetailScreen(page_title("YAML", ref), waiting, copy_what=what, subject=ref, shows="yaml")
            build = partial(yaml_view, state, ref)
        else:
            page = DetailScreen(page_title("events", ref), waiting, subject=ref, shows="events")
            build = partial(_no_copy, events_view, state, ref)
        self.push_screen(page)
        page.fill(build, what)


def _no_copy(
    view: Callable[[ClusterState, ObjectRef], RenderableType], state: ClusterState, ref: ObjectRef
) -> Body:
    return view(state, ref), None
