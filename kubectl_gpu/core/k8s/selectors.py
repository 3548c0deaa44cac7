"""Kubernetes label selectors (`-l`), so snapshots filter exactly as the API server would."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["SelectorError", "matches_selector", "parse_selector"]


class SelectorError(InvalidInput):
    """A label selector we cannot parse."""


class Term(msgspec.Struct, frozen=True):
    key: str
    op: str  # = != in notin exists !exists
    values: frozenset[str] = frozenset()


_SET = lazy_pattern(r"^\s*([A-Za-z0-9_./-]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")
_EQ = lazy_pattern(r"^\s*([A-Za-z0-9_./-]+)\s*(==|=|!=)\s*([A-Za-z0-9_.-]*)\s*$")
_EXISTS = lazy_pattern(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*$")


def _split(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def parse_selector(text: str) -> tuple[Term, ...]:
    terms = []
    for part in _split(text):
        if m := _SET.match(part):
            values = frozenset(v.strip() for v in m[3].split(",") if v.strip())
            terms.append(Term(m[1], m[2], values))
        elif m := _EQ.match(part):
            terms.append(Term(m[1], "!=" if m[2] == "!=" else "=", frozenset({m[3]})))
        elif m := _EXISTS.match(part):
            terms.append(Term(m[2], "!exists" if m[1] else "exists"))
        else:
            raise SelectorError(f"cannot parse label selector {text!r} near {part.strip()!r}")
    return tuple(terms)


def matches_selector(terms: tuple[Term, ...], labels: Mapping[str, str]) -> bool:
    for term in terms:
        value = labels.get(term.key)
        if term.op == "=" and value not in term.values:
            return False
        if term.op == "!=" and value in term.values:
            return False
        if term.op == "in" and value not in term.values:
            return False
        if term.op == "notin" and value in term.values:
            return False
        if term.op == "exists" and value is None:
            return False
        if term.op == "!exists" and value is not None:
            return False
    return True
