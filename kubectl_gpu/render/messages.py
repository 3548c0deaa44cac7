"""The one error seam: every message either front end shows (an error line, a notice, a warning, a
`--debug` traceback) passes the credential scrubber (`kube.secret_text`) and the text boundary
(`render.safe`) here (the CLI writes them with `cli.say`). Light on purpose: `cli.app.main` imports it
while printing an error."""

from __future__ import annotations

from kubectl_gpu.kube.secret_text import scrub
from kubectl_gpu.render.safe import safe_block, safe_line

__all__ = ["error_line", "notice", "scrub", "shown", "shown_block"]


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
