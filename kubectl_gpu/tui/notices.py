"""What the App says about the data it shows, once each: the notes of a read (a kind forbidden, pods read in
one namespace only, watching forbidden so the cluster is polled) and whether the namespace in scope exists."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from kubectl_gpu.render.page_lines import scope_note
from kubectl_gpu.tui import data
from kubectl_gpu.tui.background import ShowsWorkerFailures
from kubectl_gpu.tui.config import TuiConfig

if TYPE_CHECKING:
    from kubectl_gpu.tui.views import TableView

__all__ = ["DataNotices"]


class DataNotices(App[int], ShowsWorkerFailures):
    """What `GpuApp` gives it: its config, its views, and the notes and namespace answer already said.
    Its workers' failures are said by `ShowsWorkerFailures` (the refresh's also in the header)."""

    config: TuiConfig
    error: str | None
    loading: bool
    _notes_seen: set[str]
    _namespace_said: tuple[str, str] | None

    if TYPE_CHECKING:  # given by GpuApp (a stub here would shadow it in the MRO)

        def views(self) -> list[TableView]: ...

        def _header(self) -> None: ...

    def show_failure(self, group: str, line: str) -> str | None:
        """A failed worker of the app's: the refresh's in the header (the data shown kept, marked stale, as
        a refresh that fails), a debug job's on its page (the smi page); the others' in the notice alone."""
        if group == "refresh":
            self.loading, self.error = False, line
            self._header()
        elif group == "debug" and isinstance(self.screen, ShowsWorkerFailures):
            return self.screen.show_failure(group, line)
        return None

    def _notify_notes(self, refresh: data.Refresh) -> None:
        for note in refresh.state.notes:
            if note.code in ("FORBIDDEN", "PARTIAL", "POLLING") and note.message not in self._notes_seen:
                self._notes_seen.add(note.message)
                self.notify(
                    note.message,
                    title=f"{note.code.lower()}: {note.kind or 'data'}",
                    severity="warning",
                    timeout=8,
                )

    def _scope_said(self, refresh: data.Refresh) -> None:
        """The namespace in scope does not exist (or could not be checked): every view's title says so,
        and a notification, once per namespace and answer."""
        check = refresh.namespace
        missing = refresh.namespace_missing
        note = scope_note(missing) if missing else ""
        for view in self.views():
            view.set_scope_note(note)
        said = (check.name, check.status) if check is not None else None
        if said == self._namespace_said:
            return
        self._namespace_said = said
        if check is not None and check.status == "missing":
            where = "in this snapshot" if not self.config.live else "in this cluster"
            self.notify(
                f'namespace "{check.name}" not found {where}: no pod to show\n:ns all shows every namespace',
                title=":ns",
                severity="error",
                timeout=10,
            )
        elif check is not None and check.status == "unknown":
            self.notify(
                check.why or "could not check the namespace", title=":ns", severity="warning", timeout=8
            )
