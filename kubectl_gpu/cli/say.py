"""The CLI's one writer of the lines it prints that are not its data: a warning, an error, a note, progress.
Each passes the error seam (`render.messages`: no credential, no terminal control, no forged line) here.
Light on purpose: `cli.app.main` imports it while printing an error (rich only to colour a line on a
terminal)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from kubectl_gpu.render.messages import shown, shown_block
from kubectl_gpu.render.terminal import use_color

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["say"]


def say(
    text: str,
    *,
    style: str = "",
    stdout: bool = False,
    block: bool = False,
    no_color: bool = False,
    console: Console | None = None,
) -> None:
    """Write one message line (a warning, an error, a note, progress) as the CLI shows it: through the
    credential scrubber and the text boundary (`shown`; `block=True` keeps the line breaks of a traceback),
    on stderr (`stdout=True` for the lines that are a command's answer, as cleanup's "deleted POD"), in
    `style` on a terminal. The one writer of such lines (tests/cli/test_one_writer.py keeps raw prints out
    of kubectl_gpu/cli); the data (tables, JSON, YAML, CSV) has its own writers. `console`: the one a
    live progress display is drawn on, so that the line is written above it."""
    stream = sys.stdout if stdout else sys.stderr
    line = shown_block(text) if block else shown(text)
    if console is None and style and use_color(stream, no_color=no_color):
        from kubectl_gpu.render.output import make_console

        console = make_console(stderr=not stdout, no_color=no_color)
    if console is not None:
        console.print(line, style=style or None, markup=False, highlight=False, soft_wrap=True)
        return
    stream.write(line if block and line.endswith("\n") else f"{line}\n")
    stream.flush()
