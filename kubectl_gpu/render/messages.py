"""The one error seam: every message either front end shows (an error line, a notice, a warning, a
`--debug` traceback) passes the credential scrubber (`kube.secret_text`) and the text boundary
(`render.safe`) here; `say` is the CLI's one writer of such lines. Light on purpose: `cli.app.main`
imports it while printing an error (rich is imported only to colour a line on a terminal)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from kubectl_gpu.kube.secret_text import scrub
from kubectl_gpu.render.safe import safe_block, safe_line
from kubectl_gpu.render.terminal import use_color

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["error_line", "notice", "say", "scrub", "shown", "shown_block"]


def shown(text: str) -> str:
    """A one-line message as it may be shown: no credential, no control, no line break."""
    return safe_line(scrub(text))


def shown_block(text: str) -> str:
    """A multi-line message (a traceback) as it may be shown: no credential, no control."""
    return safe_block(scrub(text))


def error_line(exc: BaseException) -> str:
    """What went wrong, in one line: a `KubectlGpuError`'s own line (what, then the hint), else the
    exception's type and text (an internal error)."""
    line = getattr(exc, "line", None)
    if callable(line):
        return shown(str(line()))
    detail = " ".join(str(exc).split())
    return shown(f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__)


def notice(message: str, title: str = "") -> tuple[str, str]:
    """A notification's (message, title) as the TUI shows it: no credential, no control; the message's
    line breaks kept (a traceback), the title on one line."""
    return shown_block(message), shown(title)


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
