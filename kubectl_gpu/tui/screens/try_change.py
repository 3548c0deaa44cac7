"""`t` (try): what a change would do to the whole cluster, before anyone applies it: `kubectl gpu simulate`'s
report, drawn with its view model (`render.simulate_view`), computed in a worker on the refresh's state.

The change is a pod's fix (`PodDiagnosis.fix_changes`: the change the fix verifier made on its copy, on an
explain page or a Pending pod's row) or a NodePool as edited in `$EDITOR` (`edit_nodepool`: a copy of its
YAML in a temporary file, the TUI suspended around the editor as `kubectl edit` does, the file deleted
after). A file that does not parse, or a change the API server would refuse, is said on the page.
Nothing is read from the cluster and nothing is created: `--readonly` allows it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import App, SuspendNotSupported

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.changes import Change
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.render import theme
from kubectl_gpu.render.draw import rich_prose, rich_table
from kubectl_gpu.render.messages import notice
from kubectl_gpu.render.model import Table as ModelTable
from kubectl_gpu.render.page_lines import message_line, page_title
from kubectl_gpu.tui.data import Refresh
from kubectl_gpu.tui.screens.detail import Body, DetailScreen

__all__ = ["TryScreen", "edit_nodepool", "editor_command", "try_fix"]


class TryScreen(DetailScreen):
    """The difference a change makes, cluster-wide (`esc` back); what could not be tried, said instead."""

    def __init__(
        self, refresh: Refresh | None, changes: Sequence[Change], what: str, refused: str | None = None
    ) -> None:
        waiting = f"trying {what} on a copy of the cluster (every analysis, before and after)..."
        super().__init__(page_title("try", what), Text(message_line(waiting), style=theme.MUTED), shows="try")
        self.snapshot = refresh
        self.changes = tuple(changes)
        self.what = what
        self.refused = refused

    def on_mount(self) -> None:
        super().on_mount()
        if self.refused is not None:
            self.show_body(_refusal(self.refused), None)
        elif self.snapshot is None:
            self.show_body(
                Text("nothing read yet: try again once the cluster is read", style=theme.WARNING), None
            )
        else:
            self.fill(self._difference, "the difference")

    def _difference(self) -> Body:
        """In the worker: simulate on the refresh's state, at its instant, with the TUI's price book."""
        from kubectl_gpu.core.analyses.simulate import simulate
        from kubectl_gpu.core.catalog import load_catalog
        from kubectl_gpu.render.simulate_view import simulate_view

        assert self.snapshot is not None
        try:
            report = simulate(self.snapshot.state, self.changes, load_catalog(), self.snapshot.now)
        except InvalidInput as exc:  # refused (a CRD rule), or a change that cannot be made
            return _refusal(exc.line()), None
        parts: list[RenderableType] = [
            rich_table(p) if isinstance(p, ModelTable) else rich_prose(p)
            for p in simulate_view(report, wide=True).parts
        ]
        return Group(*parts), None


def try_fix(app: App[object], diag: PodDiagnosis) -> None:
    """`t` on a pod's fix: the page of what the fix does cluster-wide, over the screen."""
    refresh = getattr(app, "snapshot", None)
    app.push_screen(TryScreen(refresh, diag.fix_changes, f"the fix of {diag.key}"))


def _refusal(line: str) -> Text:
    """Why the change was not tried (its text may quote the cluster's or the edit's: made safe here, once)."""
    return Text(message_line(f"not tried: {line}"), style=theme.ERROR)


def editor_command() -> list[str]:
    """kubectl edit's editor: $KUBE_EDITOR, else $EDITOR, else vi."""
    chosen = os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR") or "vi"
    return shlex.split(chosen)


def _run_editor(app: App[object], argv: list[str]) -> int:
    """The editor on the terminal, the TUI suspended meanwhile; where there is no terminal to hand over (a
    headless app, tests), the editor is run without one (an editor that needs it gives up)."""
    if not app.is_headless:
        try:
            with app.suspend():
                return subprocess.run(argv, check=False).returncode
        except SuspendNotSupported:
            pass
    return subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True).returncode


def edit_nodepool(app: App[object], refresh: Refresh | None, name: str) -> TryScreen | None:
    """Edit a copy of NodePool `name`'s YAML in the editor; the page of what the edit does (None: not edited,
    said as a notice)."""
    from kubectl_gpu.kube.change_files import read_changes
    from kubectl_gpu.render.output import dump_yaml

    found = refresh.state.manifest("NodePool", name) if refresh is not None else None
    if found is None:
        message, title = notice(f"NodePool {name}: no copy of it was read to edit")
        app.notify(message, title=title, severity="warning")
        return None
    text = dump_yaml(dict(found))
    handle, path = tempfile.mkstemp(prefix=f"kubectl-gpu-edit-{name}-", suffix=".yaml")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        if app.is_headless and not (os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR")):
            said = "no terminal to run vi in: set $KUBE_EDITOR or $EDITOR"
            return TryScreen(refresh, (), f"NodePool {name} as edited", said)
        try:
            code = _run_editor(app, [*editor_command(), path])
        except OSError as exc:
            return TryScreen(refresh, (), f"NodePool {name} as edited", f"the editor did not start: {exc}")
        edited = Path(path).read_text()
        if code != 0:
            return TryScreen(refresh, (), f"NodePool {name} as edited", f"the editor exited with {code}")
        if edited == text:
            app.notify("Edit cancelled, no changes made.", timeout=3)
            return None
        try:
            changes = read_changes([path])
        except InvalidInput as exc:
            said = exc.line().replace(path, "the edited copy")
            return TryScreen(refresh, (), f"NodePool {name} as edited", said)
    finally:
        Path(path).unlink(missing_ok=True)
    return TryScreen(refresh, [_named(c, name) for c in changes], f"NodePool {name} as edited")


def _named(change: Change, name: str) -> Change:
    """The change with its source said as the edit (the temporary file is gone)."""
    import msgspec

    return msgspec.structs.replace(change, source=f"$EDITOR (NodePool {name})")
