"""kubectl's rules for a bracket in a JSONPath expression, where python-jsonpath's differ (render.jsonpath).

kubectl's parser (client-go util/jsonpath/parser.go, `parseArray`) takes the text up to the first `]`:
`*`; a union, members split on `,` and each trimmed of spaces; a name in single quotes (`['app']`); or a
slice or index (`[0]`, `[1:3]`, `[-1]`). Anything else, a name in double quotes (`["app"]`) or a space
inside the brackets (`[ 0 ]`) included, is `invalid array index TEXT`. A quoted name is read as kubectl
reads it, as the path `.NAME`: `['a.b']` is `.a.b`, the key `a` then `b` (a dot in a key is escaped,
`['kubernetes\\.io/arch']`), so it is handed to the library as one bracketed name per step. Filters
(`[?(...)]`) are checked on both sides of their operator, as kubectl parses each side.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["PATH", "bracket_error", "quoted_names_as_paths"]

PATH = "\x00"  # starts a union member's name that is a path of steps, and separates them (no key holds it)

_DICT_KEY = lazy_pattern(r"^'([^']*)'$")
_SLICE = lazy_pattern(r"^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$")
_FILTER = lazy_pattern(r"^([^!<>=]+)([!<>=]+)(.+?)$")
# Where kubectl's field name or identifier ends (`isTerminator`).
_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")


def _word_end(text: str, i: int) -> int:
    """The end of a field name or identifier starting at `i`; a backslash escapes the next character."""
    while i < len(text) and text[i] not in _TERMINATORS:
        i += 2 if text[i] == "\\" else 1
    return min(i, len(text))


def _quote_end(text: str, i: int) -> int | None:
    """The index after the quoted string opened at `i` (kubectl's parseQuote); None when unterminated."""
    quote = text[i]
    for j in range(i + 1, len(text)):
        if text[j] == "\n":
            return None
        if text[j] == quote and text[j - 1] != "\\":
            return j + 1
    return None


def _filter_end(text: str, start: int) -> int | None:
    """The index of the `)` that closes a filter whose text starts at `start` (kubectl's parseFilter)."""
    begin = end = False
    pair = ""
    for j in range(start, len(text)):
        char = text[j]
        if char == "\n":
            return None
        if char in "\"'":
            if not begin:
                begin, pair = True, char
                continue
            if text[j - 1] != "\\" and char == pair:
                end = True
        elif char == ")" and begin == end:
            return j
    return None


def _brackets(text: str) -> Iterator[tuple[str, int, int]]:
    """("filter" or "index", start, end) of each bracket's text, as kubectl's parser meets them; the scan
    stops where kubectl's parser would fail for another reason (the library then says what is wrong)."""
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith("[?(", i):
            close = _filter_end(text, i + 3)
            if close is None or not text.startswith("]", close + 1):
                return
            yield "filter", i + 3, close
            i = close + 2
        elif char == "[":
            close = text.find("]", i)
            if close < 0 or "\n" in text[i:close]:
                return
            yield "index", i + 1, close
            i = close + 1
        elif char in "\"'":
            after = _quote_end(text, i)
            if after is None:
                return
            i = after
        elif char == ".":
            i = _word_end(text, i + 1)
        elif char not in _TERMINATORS and (char.isalnum() or char == "_"):
            i = _word_end(text, i)
        else:
            i += 1


def _index_error(text: str) -> str | None:
    if text == "*":
        return None
    members = text.split(",")
    if len(members) > 1:
        return next((e for m in members if (e := _index_error(m.strip(" "))) is not None), None)
    if _DICT_KEY.match(text):
        return None
    found = _SLICE.match(text)
    if found is None:
        return f"invalid array index {text}"
    for position, value in enumerate(found.groups()):
        number = (value or "")[1:] if position else value
        if number and not number.lstrip("-").isdigit():
            return f"array index {number} is not a number"
    return None


def bracket_error(expression: str) -> str | None:
    """kubectl's reason for refusing a bracket of `expression`, or None when kubectl takes them all."""
    for kind, start, end in _brackets(expression):
        text = expression[start:end]
        if kind == "index":
            reason = _index_error(text)
        else:
            sides = _FILTER.match(text)
            parts = (sides[1], sides[3]) if sides else (text,)
            reason = next((e for part in parts if (e := bracket_error(part)) is not None), None)
        if reason is not None:
            return reason
    return None


def _steps(name: str) -> list[str]:
    """kubectl's `.NAME` as field names: split at each dot a backslash does not escape, then every
    backslash dropped (parseField)."""
    steps, begin, i = [], 0, 0
    while i < len(name):
        if name[i] == "\\":
            i += 2
        elif name[i] == ".":
            steps.append(name[begin:i])
            begin = i = i + 1
        else:
            i += 1
    return [step.replace("\\", "") for step in [*steps, name[begin:]]]


def _as_library_name(name: str) -> str | None:
    """A quoted name's steps as one name for the library: the step itself, or the steps after `PATH`
    (render.jsonpath_eval walks them); None where kubectl would not read it as plain field names."""
    if ".." in "." + name or any(c in _TERMINATORS and c != "." for c in name):
        return None  # `..` would be kubectl's recursive descent, a space an identifier: left to the library
    steps = _steps(name)
    return json.dumps(steps[0] if len(steps) == 1 else PATH + PATH.join(steps), ensure_ascii=False)


def quoted_names_as_paths(expression: str) -> str:
    """Each `['NAME']` as kubectl reads it, `.NAME`: written for the library as one `["STEP"]` per field,
    and in a union (`['a.b','c']`) as one name holding the steps (render.jsonpath_eval walks them). A name
    with a character that ends a field name in kubectl other than a dot, or that makes a `..`, is left."""
    out, position = [], 0
    for kind, start, end in _brackets(expression):
        if kind != "index":
            continue
        members = [m.strip(" ") for m in expression[start:end].split(",")]
        keys = [_DICT_KEY.match(m) for m in members]
        if len(members) == 1:
            found = keys[0]
            if found is None or _as_library_name(found[1]) is None:
                continue
            written = "".join(f"[{json.dumps(step, ensure_ascii=False)}]" for step in _steps(found[1]))
        else:
            names = [_as_library_name(k[1]) if k else m for k, m in zip(keys, members, strict=True)]
            if any(n is None for n in names):
                continue
            written = "[" + ", ".join(n for n in names if n is not None) + "]"
        out.append(expression[position : start - 1] + written)
        position = end + 1
    return "".join(out) + expression[position:]
