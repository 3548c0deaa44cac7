"""How much of a long text a page shows: an object's YAML, a pod's log lines.

Textual lays a page out by wrapping all of its text, on the UI thread, at every draw of a new page and
every resize: a node with a 250 KiB annotation (the API allows 256 KiB) froze the keys for seconds. A page
therefore shows at most `LINE_CHARS` of a line and `PAGE_CHARS` in all, and says where it cut, in the
line itself (`… [248,000 more characters not shown: c copies the whole YAML]`); what `c` copies stays
whole. The cutting and the YAML's colours are worked out in a worker thread (`DetailScreen.fill`), never
on the UI thread.
"""

from __future__ import annotations

from typing import Any

import msgspec
from rich.syntax import Syntax
from rich.text import Text

from kubectl_gpu.render import theme
from kubectl_gpu.render.page_lines import page_lines

__all__ = ["LINE_CHARS", "PAGE_CHARS", "Shown", "bounded", "cut_line", "log_text", "yaml_text"]

#: the most of one line a page shows (25 lines at 80 columns)
LINE_CHARS = 2_000
#: the most a page shows in all (about a fifth of a second to lay out; a node's YAML is 10-20 KiB)
PAGE_CHARS = 64 * 1024


class Shown(msgspec.Struct, frozen=True):
    """What a page shows of a text (made safe, cut where marked) and the marks' places: (line, start, end)
    of each mark, lines counted from 1, as `Syntax.stylize_range` counts them."""

    text: str
    marks: tuple[tuple[int, int, int], ...] = ()

    @property
    def cut(self) -> bool:
        return bool(self.marks)


def _mark(count: int, unit: str, copies: str | None) -> str:
    return f"… [{count:,} {unit} not shown" + (f": c copies {copies}]" if copies else "]")


def cut_line(text: str, limit: int = LINE_CHARS) -> str:
    """One value (an event's message) at most `limit` characters, and a mark when cut (nothing to copy)."""
    return text if len(text) <= limit else text[:limit] + _mark(len(text) - limit, "more characters", None)


def bounded(text: str, copies: str, *, newest: bool = False) -> Shown:
    """`text` made safe (cluster text), each line cut at `LINE_CHARS`, the whole at `PAGE_CHARS`: the
    first lines (`newest`: the last ones, a log's) and a mark where the others were left out."""
    lines = page_lines(text)
    out: list[str] = []
    marks: list[tuple[int, int]] = []  # (index in out, column where the mark starts)
    used = 0
    order = range(len(lines) - 1, -1, -1) if newest else range(len(lines))
    for taken, index in enumerate(order):
        line = lines[index]
        if len(line) > LINE_CHARS:
            marks.append((len(out), LINE_CHARS))
            line = line[:LINE_CHARS] + _mark(len(line) - LINE_CHARS, "more characters", copies)
        if used + len(line) > PAGE_CHARS and out:
            if marks and marks[-1][0] == len(out):  # the line just cut is not shown after all
                marks.pop()
            left = len(lines) - taken
            marks.append((len(out), 0))
            out.append(_mark(left, "earlier lines" if newest else "more lines", copies))
            break
        out.append(line)
        used += len(line) + 1
    if newest:
        out.reverse()
        marks = [(len(out) - 1 - row, col) for row, col in marks]
    places = tuple(sorted((row + 1, col, len(out[row])) for row, col in marks))
    return Shown("\n".join(out), places)


def _dump(raw: dict[str, Any]) -> str:
    """The object as YAML, every scalar on one line (the page wraps it; a long one is cut in one place)."""
    import yaml  # as render.documents: only a YAML page pays for it

    return yaml.safe_dump(raw, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1 << 30)


def yaml_text(raw: dict[str, Any]) -> Text:
    """An object's YAML as the page shows it: coloured, long values cut with a visible mark."""
    shown = bounded(_dump(raw), "the whole YAML")
    syntax = Syntax(shown.text, "yaml", theme="ansi_dark", background_color="default", word_wrap=True)
    for line, start, end in shown.marks:
        syntax.stylize_range(theme.WARNING, (line, start), (line, end))
    return syntax.highlight(shown.text)


def log_text(text: str) -> Text:
    """A log's last lines as the page shows them: the newest kept, long lines cut with a visible mark."""
    shown = bounded(text, "every line read", newest=True)
    out = Text(shown.text)
    offsets = [0]
    for line in shown.text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    for line_no, start, end in shown.marks:
        out.stylize(theme.WARNING, offsets[line_no - 1] + start, offsets[line_no - 1] + end)
    return out
