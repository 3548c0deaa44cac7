"""The one exception every probe parser raises on input it cannot read."""

from __future__ import annotations

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["ProbeParseError", "snippet"]


def snippet(text: str, limit: int = 40) -> str:
    """A short, single-line, quoted excerpt of ``text`` for error messages."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return repr(flat)


class ProbeParseError(InvalidInput):
    """Input of a known format (``fmt``) that could not be parsed (``problem``).

    The message is one short line: ``"<format>: <problem>"``.
    """

    def __init__(self, fmt: str, problem: str) -> None:
        self.format = fmt
        self.problem = " ".join(problem.split())
        super().__init__(f"{fmt}: {self.problem}")
