"""Label and field selectors with the API server's semantics, for the fake API server.

Label selectors: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>n`, `k<n`, AND-ed by
commas. As in apimachinery, `!=` and `notin` also match objects that lack the label.

Field selectors: `f=v`, `f==v`, `f!=v`, AND-ed by commas, `\\` escapes `,` `=` `!` and `\\` in values.
Only the field labels the real server supports for a kind are accepted; any other yields the server's own
error, `field label not supported: X`. Absent fields compare as "" (so `spec.nodeName=` finds unscheduled
pods), booleans as "true"/"false".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

Predicate = Callable[[Mapping[str, str]], bool]
FieldTerm = tuple[str, bool, str]  # (field label, equal?, value)
FieldMap = Mapping[str, tuple[str, str]]  # field label -> (JSON path, value when absent)

_KEY = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_SET = re.compile(r"^(\S+)\s+(in|notin)\s*\((.*)\)$")
_CMP = re.compile(r"^([^!=<>\s]+)\s*(==|!=|=|<|>)\s*(.*)$")


class SelectorError(ValueError):
    """A selector the real API server would reject with 400 BadRequest."""


def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _key(key: str, selector: str) -> str:
    if not _KEY.match(key):
        raise SelectorError(f"unable to parse requirement: invalid label key {key!r} in {selector!r}")
    return key


def _requirement(term: str, selector: str) -> Predicate:
    if term.startswith("!"):
        key = _key(term[1:].strip(), selector)
        return lambda labels: key not in labels
    if match := _SET.match(term):
        key, op = _key(match.group(1), selector), match.group(2)
        values = {v.strip() for v in match.group(3).split(",")}
        if op == "in":
            return lambda labels: labels.get(key) in values
        return lambda labels: labels.get(key) not in values
    if match := _CMP.match(term):
        key, op, value = _key(match.group(1), selector), match.group(2), match.group(3).strip()
        if op in ("<", ">"):
            try:
                bound = int(value)
            except ValueError:
                raise SelectorError(
                    f"for 'Gt', 'Lt' operators, the value must be an integer: {term!r}"
                ) from None
            if op == ">":
                return lambda labels: key in labels and labels[key].isdigit() and int(labels[key]) > bound
            return lambda labels: key in labels and labels[key].isdigit() and int(labels[key]) < bound
        if op == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: labels.get(key) == value
    key = _key(term, selector)
    return lambda labels: key in labels


def parse_label_selector(selector: str) -> Predicate:
    """Compile a label selector into a predicate over an object's labels."""
    if not selector.strip():
        return lambda labels: True
    terms = _split_top_level(selector)
    if not all(terms):
        raise SelectorError(f"unable to parse requirement: empty term in {selector!r}")
    reqs = [_requirement(term, selector) for term in terms]
    return lambda labels: all(req(labels) for req in reqs)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, current, i = [], "", 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            current += text[i : i + 2]
            i += 2
            continue
        if text[i] == sep:
            parts.append(current)
            current = ""
        else:
            current += text[i]
        i += 1
    parts.append(current)
    return parts


def parse_field_selector(selector: str, supported: frozenset[str] | tuple[str, ...]) -> list[FieldTerm]:
    """Parse a field selector, rejecting field labels outside `supported` like the real server does."""
    terms: list[FieldTerm] = []
    if not selector.strip():
        return terms
    for term in _split_unescaped(selector, ","):
        match = re.match(r"^((?:[^\\=!]|\\.)*)(!=|==|=)(.*)$", term)
        if not match:
            raise SelectorError(f"invalid selector: '{selector}'; can't understand '{term}'")
        field, op, value = match.group(1).strip(), match.group(2), _unescape(match.group(3))
        if field not in supported:
            raise SelectorError(f"field label not supported: {field}")
        terms.append((field, op != "!=", value))
    return terms


def field_value(obj: Mapping[str, Any], label: str, fields: FieldMap | None = None) -> str:
    """The string a field label has on `obj`. `fields` maps a label to (JSON path it reads, value when
    absent), for labels whose path or Go zero value differs from the plain dotted path and ""."""
    path, default = (fields or {}).get(label, (label, ""))
    node: Any = obj
    for part in path.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    if node is None:
        return default
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def field_matches(obj: Mapping[str, Any], terms: list[FieldTerm], fields: FieldMap | None = None) -> bool:
    """True when `obj` satisfies every parsed field selector term."""
    return all((field_value(obj, label, fields) == value) == equal for label, equal, value in terms)
