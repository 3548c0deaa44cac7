"""The App's `l`: the last log lines of the pod in focus, wherever one is (k9s' key): the row under the
cursor when it is a pod (Pending, Lifecycle's pods), the page's pod (explain, a pod's YAML or events). A
node's pods and a pod's page bind `l` themselves, to the same action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from kubectl_gpu.core.report import ObjectRef

if TYPE_CHECKING:
    from kubectl_gpu.tui.data import Refresh
    from kubectl_gpu.tui.drill import Drill
    from kubectl_gpu.tui.views.base import TableView

__all__ = ["LogKeys"]


class LogKeys(App[int]):
    """What `GpuApp` gives it: the view shown, the data and what a drill-down page reads."""

    snapshot: Refresh | None

    if TYPE_CHECKING:  # GpuApp's own

        @property
        def view(self) -> TableView: ...
        def drill(self) -> Drill: ...

    def pod_in_focus(self) -> ObjectRef | None:
        """The pod `l` reads: the selected row's on the main screen, else the page's subject (None: none)."""
        if len(self.screen_stack) == 1:
            row = self.view.grid.cursor_row if self.view.composed else None
            ref = row.ref if row is not None else None
        else:
            ref = getattr(self.screen, "subject", None)
        return ref if isinstance(ref, ObjectRef) and ref.kind == "Pod" else None

    def action_logs(self) -> None:
        from kubectl_gpu.tui.screens.pod import find_pod, show_logs

        ref = self.pod_in_focus()
        if ref is None or self.snapshot is None:
            return
        drill = self.drill()
        show_logs(self.screen, drill, ref, find_pod(drill, ref))
