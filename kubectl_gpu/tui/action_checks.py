"""Which of the app's keys work on the page shown (Textual's `check_action`): `:` on every page, `l` where a
pod is in focus, `0` under a namespace scope; the footer and `?` list only those, and a key that would do nothing is not run (tests/tui/test_pilot_keys.py presses every one listed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import App
from textual.css.query import NoMatches

from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS

if TYPE_CHECKING:
    from kubectl_gpu.core.report import ObjectRef
    from kubectl_gpu.tui.config import TuiConfig
    from kubectl_gpu.tui.debug.jobs import ShellJob
    from kubectl_gpu.tui.views.base import TableView

__all__ = ["ActionChecks"]


class ActionChecks(App[int]):
    """What `GpuApp` gives it: the view shown, the views gone through, a starting shell, the debug rule."""

    current: str
    history: list[str]
    shell_job: ShellJob | None
    config: TuiConfig

    if TYPE_CHECKING:  # GpuApp's and DebugKeys' own (a definition here would shadow DebugKeys')

        @property
        def view(self) -> TableView: ...

        def debug_allowed(self, what: str) -> bool: ...

        def pod_in_focus(self) -> ObjectRef | None: ...

    #: actions about the main screen's selection, off on the pages pushed over it
    MAIN_ONLY: ClassVar[frozenset[str]] = frozenset({"smi", "shell", "filter", "yaml", "events", "go_back"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only what works on the page shown: the main screen's keys there, `s` and `y` where rows are
        nodes and objects, `esc` when there is something to go back from (the footer lists no dead key)."""
        if action in TEXTUAL_DEFAULTS:
            return False
        if action == "logs":  # a pod in focus: the row under the cursor, or the page's
            return self.pod_in_focus() is not None
        if action == "all_namespaces":  # a namespace in scope to widen
            return self.config.namespace is not None
        if len(self.screen_stack) > 1:
            return action not in self.MAIN_ONLY
        try:
            grid = self.view.grid
        except NoMatches:  # composing
            return True
        if action == "view":  # the view shown: its key would do nothing
            return parameters[:1] != (self.current,)
        if action in ("smi", "shell"):
            return grid.table.has_nodes and self.debug_allowed(action)
        if action in ("yaml", "events"):
            return grid.table.has_refs
        if action == "go_back":
            starting = self.shell_job is not None and not self.shell_job.done.is_set()
            return starting or bool(grid.filter_text or grid.marks or self.history)
        if action == "history_back":  # on the main screen: a view to go back to
            return bool(self.history)
        return True
