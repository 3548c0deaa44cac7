"""The one boundary for untrusted text: every string that came from a cluster, a bundle or a probe is made
safe here before either front end draws it (the view model's constructors call these).

Anyone who can write an Event, a condition message, an annotation or a bundle chooses these strings. Sent
raw, an ESC starts a terminal command (OSC 52 writes the clipboard, OSC 8 makes links, CSI 2J clears the
screen), a C1 byte does the same on 8-bit terminals, a bidi override (U+202E) reverses what a line appears
to say, and a newline in a one-line cell forges a line that starts at column 0. So each such character is
*shown*, escaped as Python writes it (`\\x1b`, `\\u202e`, `\\n`), never interpreted: the SRE sees that
something odd was there, and the text cannot drive the terminal. No front end reads markup from these
strings (the view model holds plain text and a style name, never a markup string).

JSON and YAML output come from the reports, not from here: they keep the exact values.
"""

from __future__ import annotations

import re

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["safe_block", "safe_line"]

# C0 but tab and newline (handled per kind of text), DEL, C1; bidi embeddings, overrides and isolates, the
# directional marks and the Arabic letter mark; the line and paragraph separators (a line break to some
# terminals and to Textual's text layout).
_UNSAFE_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_BLOCK_UNSAFE = lazy_pattern(f"[{_UNSAFE_CHARS}]")
_LINE_UNSAFE = lazy_pattern(f"[{_UNSAFE_CHARS}\t\n]")
_SHOWN = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    shown = _SHOWN.get(char)
    if shown is not None:
        return shown
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(text: str) -> str:
    """`text` for a one-line place (a table cell, a title): every control, bidi control and line break
    shown escaped. Plain printable ASCII, nearly every string, is returned as it is."""
    if text.isascii() and text.isprintable():
        return text
    return _LINE_UNSAFE.sub(_escape, text)


def safe_block(text: str) -> str:
    """`text` for a multi-line place (a message, a fix as YAML): newlines and tabs kept, every other
    control and bidi control shown escaped (a carriage return too: it would overwrite the line)."""
    if text.isascii() and (text.isprintable() or not _BLOCK_UNSAFE.search(text)):
        return text
    return _BLOCK_UNSAFE.sub(_escape, text)
