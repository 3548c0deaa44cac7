"""Render a view the way a command writes it off a terminal, at a fixed width, and compare it with its
golden text file (`UPDATE_GOLDEN=1` rewrites the files, as in tests/golden)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from rich.console import Console, RenderableType

from kubectl_gpu.render.model import View
from kubectl_gpu.render.output import print_table

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
WIDTH = 120


def render(renderable: RenderableType | View, width: int = WIDTH) -> str:
    """The text `print_table` writes for `renderable` on a console `width` columns wide, without colour
    (the settings of `render.output.make_console`: no markup, no highlighting, no emoji)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        color_system=None,
        no_color=True,
        force_terminal=False,
        legacy_windows=False,
        markup=False,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    print_table(console, renderable)
    return buffer.getvalue()


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run UPDATE_GOLDEN=1 pytest tests/render"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs (UPDATE_GOLDEN=1 rewrites it)"
