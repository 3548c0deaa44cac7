"""Whether a stream gets colour: shared by the tables' console (`render.output`) and the one writer of
the CLI's messages (`cli.say`), which must stay light (no rich until it colours a line)."""

from __future__ import annotations

import os
from typing import IO

__all__ = ["use_color"]


def use_color(stream: IO[str], *, no_color: bool) -> bool:
    """Colour only on a terminal, never with --no-color or NO_COLOR set (https://no-color.org)."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
