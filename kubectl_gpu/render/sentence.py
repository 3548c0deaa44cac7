"""A table cell holds at most a sentence: `first_sentence` is what a REASON, MESSAGE or FIX cell shows (the
CLI's tables, the TUI's grid); the whole text stays in `explain`, the TUI's detail pane and JSON/YAML.

A sentence ends at `.`, `!` or `?` followed by a space (or a line break) and a word that does not start in
lower case, outside brackets and double quotes: `1.5`, `0000:3E:00.0`, `e.g. a pod`, `(A GPU error
occurred. Reboot.)` and `"it failed. Retry"` do not end one. A blank line ends one too.
"""

from __future__ import annotations

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["first_sentence"]

#: abbreviations a capitalised word may follow without a sentence ending (`e.g. Karpenter`)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "no", "fig", "mr", "dr"})
_OPEN = "([{"
_CLOSE = ")]}"
_TOKEN_BEFORE = lazy_pattern(r"(\S+)$")


def _abbreviation(text: str, end: int) -> bool:
    """The word that ends at `end` (the `.`) is an abbreviation, or one letter (an initial: `J. Smith`)."""
    match = _TOKEN_BEFORE.search(text, 0, end)
    word = match.group(1).lstrip("([{\"'").lower() if match else ""
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _ends_at(text: str, index: int) -> int | None:
    """Where the sentence whose stop is at `index` ends (after its closing quote or bracket), or None when
    the stop does not end a sentence."""
    end = index + 1
    while end < len(text) and text[end] in "\"')]":
        end += 1
    if end == len(text):
        return end
    if not text[end].isspace():
        return None  # 1.5, a.b, file.txt
    following = text[end:].lstrip()
    if not following:
        return end
    if "\n\n" in text[end : len(text) - len(following)]:
        return end  # a paragraph
    if following[0].islower():
        return None  # e.g. a pod; v1. then
    if text[index] == "." and _abbreviation(text, index):
        return None
    return end


def first_sentence(text: str) -> str:
    """`text`'s first sentence (the whole text when it has one); surrounding space removed."""
    stripped = text.strip()
    depth = 0
    quoted = False
    for index, char in enumerate(stripped):
        if char == '"':
            quoted = not quoted
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth = max(0, depth - 1)
        elif char == "\n" and stripped.startswith("\n", index + 1) and not depth:
            return stripped[:index].rstrip()
        elif char in ".!?" and not depth and not quoted:
            end = _ends_at(stripped, index)
            if end is not None:
                return stripped[:end]
    return stripped
