"""The App's object keys: `y` (the selected row's object as YAML) and `e` (its events), on a detail page
over the main screen; pages post `ShowObject` for the object they show."""

from __future__ import annotations

from textual import on
from textual.app import App

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.tui import data
from kubectl_gpu.tui.messages import ShowObject
from kubectl_gpu.tui.widgets.grid import Row

__all__ = ["ObjectKeys"]


class ObjectKeys(App[int]):
    """What `GpuApp` gives it: the data shown and the selected row."""

    snapshot: data.Refresh | None

    def _row(self) -> Row | None:
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
        if message.what == "yaml":
            body, text = yaml_view(state, ref)
            page = DetailScreen(
                f"YAML {ref}", body, copy=text, copy_what="the YAML", subject=ref, shows="yaml"
            )
        else:
            page = DetailScreen(f"events {ref}", events_view(state, ref), subject=ref, shows="events")
        self.push_screen(page)
