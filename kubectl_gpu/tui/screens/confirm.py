"""The question before `s` or `x` creates a privileged debug pod: on which node(s), from which image, in
which namespace. Only `y` creates it; `n`, `esc` and `enter` do not: the answer defaults to no, so that
`enter` (the most pressed key, often pressed again out of habit) never starts a privileged pod.
`tui: {confirm: false}` in the config file skips the question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from kubectl_gpu.render import theme
from kubectl_gpu.render.page_lines import cluster_names
from kubectl_gpu.tui.keys import TEXTUAL_DEFAULTS
from kubectl_gpu.tui.widgets.key_bar import KeyBar

__all__ = ["ConfirmPod", "question"]

#: nodes named in the question; the rest are counted
SHOWN_NODES = 6


def question(what: str, nodes: Sequence[str], images: Sequence[str], namespace: str) -> Text:
    """`Create 2 privileged debug pods (nvidia-smi)?` then the nodes, the image(s), the namespace."""
    count = len(nodes)
    pods = "a privileged debug pod" if count == 1 else f"{count} privileged debug pods"
    out = Text(f"Create {pods} ({what})?\n\n", style=theme.WARNING)
    names = ", ".join(cluster_names(nodes[:SHOWN_NODES]))
    if count > SHOWN_NODES:
        names += f" and {count - SHOWN_NODES} more"
    for label, value in (
        ("node" if count == 1 else "nodes", names),
        ("image", ", ".join(cluster_names(dict.fromkeys(images))) or "?"),
        ("namespace", ", ".join(cluster_names([namespace]))),
    ):
        out.append(f"{label}: ", style=theme.HEADER)
        out.append(f"{value}\n")
    out.append(
        "\nThe pod runs privileged in the host's namespaces; it is deleted when done.\n", style=theme.MUTED
    )
    out.append("\ny", style=theme.HEADER)
    out.append(" creates it   ")
    out.append("n esc enter", style=theme.HEADER)
    out.append(" no (the default)")
    return out


class ConfirmPod(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Create it"),
        # enter is no: the default answer, never the one that creates a privileged pod
        Binding("n,escape,enter", "answer(False)", "Cancel"),
    ]
    DEFAULT_CSS = """
    ConfirmPod { align: center middle; }
    ConfirmPod > Vertical {
        width: 76; max-width: 100%; height: auto; max-height: 90%;
        border: thick $warning; background: $panel; padding: 0 1;
    }
    ConfirmPod .confirm-text { height: auto; }
    """

    def __init__(self, what: str, nodes: Sequence[str], images: Sequence[str], namespace: str) -> None:
        super().__init__(classes="confirm-screen")
        self.text = question(what, nodes, images, namespace)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.text, classes="confirm-text")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in TEXTUAL_DEFAULTS

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
