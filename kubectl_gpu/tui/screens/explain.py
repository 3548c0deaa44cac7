"""`enter` on a Pending pod: `kubectl gpu explain`: target by target what matches and what does not, the
scheduler's and provisioner's events, and the fix as YAML (`c` copies it)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.draw import rich_prose, rich_table
from kubectl_gpu.render.model import Part
from kubectl_gpu.render.model import Table as ModelTable
from kubectl_gpu.render.page_lines import no_longer_pending, page_title
from kubectl_gpu.render.pending_view import explain_view, fix_lines, fix_outcome
from kubectl_gpu.tui.drill import Drill
from kubectl_gpu.tui.screens.detail import DetailScreen
from kubectl_gpu.tui.screens.try_change import try_fix
from kubectl_gpu.tui.views.pending import fix_renderable

__all__ = ["ExplainScreen", "explain_parts"]


def explain_parts(diag: PodDiagnosis) -> list[RenderableType]:
    """`kubectl gpu explain`'s page with the fix moved up under the verdict (the first screenful shows what
    to do; the target-by-target checks and the events follow)."""
    parts = [_drawn(part) for part in explain_view(diag).parts]
    said = fix_outcome(diag)
    outcome = [Text(said, style=theme.MUTED)] if said else []
    head, rest = parts[:1], parts[1:]
    if diag.fix:  # explain_view's own fix block (and the blank line above it), shown above instead
        rest = rest[:-2]
    fix = [Text("Fix (c copies it):", style=theme.HEADER), fix_renderable(diag.fix), *outcome, Text("")]
    return [*head, *fix, *rest]


def _drawn(part: Part) -> RenderableType:
    return rich_table(part) if isinstance(part, ModelTable) else rich_prose(part)


class ExplainScreen(DetailScreen):
    """The pod's explanation; `y` and `e` (the detail page's subject keys) show its YAML and events; `t`
    tries its fix cluster-wide (`screens/try_change.py`)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("t", "try", "Try")]

    def __init__(self, diag: PodDiagnosis) -> None:
        body = Group(*explain_parts(diag))
        ref = ObjectRef("Pod", diag.name, diag.namespace)
        super().__init__(
            page_title("explain", diag.key),
            body,
            copy="\n".join(fix_lines(diag)) or None,
            copy_what="the fix",
            subject=ref,
        )
        self.diag = diag

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "try":  # a fix the verifier made as a change (not "wait for capacity")
            return bool(self.diag.fix_changes)
        return super().check_action(action, parameters)

    def action_try(self) -> None:
        try_fix(self.app, self.diag)

    def follow(self, drill: Drill) -> None:
        """A refresh: the pod's explanation now, or that it is no longer Pending (scheduled, or gone)."""
        found = next((d for d in drill.snapshot.pending.pods if d.key == self.diag.key), None)
        if found is None:
            self.show_body(Text(no_longer_pending(self.diag.key), style=theme.WARNING), None)
            return
        self.diag = found
        self.show_body(Group(*explain_parts(found)), "\n".join(fix_lines(found)) or None)
