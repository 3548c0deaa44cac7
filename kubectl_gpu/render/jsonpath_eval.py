"""kubectl's JSONPath evaluation over python-jsonpath's parsed segments (render.jsonpath parses).

kubectl evaluates an expression a step at a time over the list of current values, so a union
(`['name','status']`, `[0,2]`) gives each member's results over every value, member after member:
`{.items[*]['a','b']}` prints every `a`, then every `b`; a member that is kubectl's path (`['a.b','c']`,
render.jsonpath_brackets) walks its steps. An index or slice past the end of a list is an
error (`array index out of bounds: index 5, length 3`), as an index into something that is not a list is;
`[*]` is kubectl's array step (on a map, `is not array or slice`; an empty list ends the step, as kubectl's
evalArray does), `.*` a wildcard, over a map in key order (kubectl's own is unspecified; Go's JSON writes
maps in key order).
A key no value has is nothing, or with `allow_missing=False` (kubectl's --allow-missing-template-keys=false)
the error `NAME is not found`. Filters and `..` are the library's.
"""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.render.jsonpath_brackets import PATH

__all__ = ["JsonPathFailure", "evaluate"]


class JsonPathFailure(InvalidInput):
    """kubectl's `Error executing template: REASON`; `named(template)`: its whole first line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def named(self, template: str) -> InvalidInput:
        return InvalidInput(f'error executing jsonpath "{template}": Error executing template: {self.reason}')


def evaluate(query: Any, current: Any, *, allow_missing: bool = True) -> list[Any]:
    from jsonpath.path import JSONPath

    if not isinstance(query, JSONPath):  # a compound path: the library's own order
        found: list[Any] = query.findall(current)
        return found
    values = [current]
    for segment in query.segments:
        values = _segment(query, segment, values, allow_missing)
    return values


def _segment(query: Any, segment: Any, values: list[Any], allow_missing: bool) -> list[Any]:
    from jsonpath.segments import JSONPathChildSegment
    from jsonpath.selectors import IndexSelector, NameSelector, SliceSelector, WildcardSelector

    simple = (NameSelector, IndexSelector, SliceSelector, WildcardSelector)
    if not isinstance(segment, JSONPathChildSegment) or not all(
        isinstance(s, simple) for s in segment.selectors
    ):
        return _library(query, segment, values)
    out: list[Any] = []
    for selector in segment.selectors:  # a union: each member over every value, member after member
        if isinstance(selector, NameSelector) and selector.name.startswith(PATH):  # `['a.b']` in a union
            out.extend(_path(selector.name[1:].split(PATH), values, allow_missing))
        elif isinstance(selector, NameSelector):
            out.extend(_field(selector.name, values, allow_missing))
        elif isinstance(selector, WildcardSelector) and getattr(segment.token, "value", "") == "[":
            out.extend(_array(slice(None, None), values, single=False))  # `[*]`: kubectl's array step
        elif isinstance(selector, WildcardSelector):
            out.extend(_wildcard(values))
        elif isinstance(selector, IndexSelector):
            out.extend(_array(slice(selector.index, None), values, single=True))
        elif isinstance(selector, SliceSelector):
            out.extend(_array(selector.slice, values, single=False))
    return out


def _library(query: Any, segment: Any, values: list[Any]) -> list[Any]:
    from jsonpath.path import JSONPath

    path = JSONPath(env=query.env, segments=(segment,), pseudo_root=False)
    out: list[Any] = []
    for value in values:
        out.extend(path.findall(value))
    return out


def _field(name: str, values: list[Any], allow_missing: bool) -> list[Any]:
    found = [v[name] for v in values if isinstance(v, dict) and name in v]
    if not found and values and not allow_missing:
        raise JsonPathFailure(f"{name} is not found")
    return found


def _path(steps: list[str], values: list[Any], allow_missing: bool) -> list[Any]:
    """A union member that is a path (kubectl reads `'a.b'` as `.a.b`): each step over the last's results."""
    for step in steps:
        values = _field(step, values, allow_missing)
    return values


def _wildcard(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, dict):
            out.extend(value[k] for k in sorted(value))
        elif isinstance(value, list):
            out.extend(value)
    return out


def _array(bounds: slice, values: list[Any], *, single: bool) -> list[Any]:
    """kubectl's evalArray: an index is the slice [i:i+1]; bounds checked against each list."""
    out: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise JsonPathFailure(f"{_go_type(value)} is not array or slice")
        length = len(value)
        start = bounds.start or 0
        start += length if start < 0 else 0
        if single:
            stop = start + 1
        else:
            stop = length if bounds.stop is None else bounds.stop
            stop += length if stop < 0 else 0
        if stop == start:  # kubectl: asking for no element is allowed, and ends the step
            return out
        if start >= length or start < 0:
            raise JsonPathFailure(f"array index out of bounds: index {start}, length {length}")
        if stop > length or stop < 0:
            raise JsonPathFailure(f"array index out of bounds: index {stop - 1}, length {length}")
        if start > stop:
            raise JsonPathFailure(f"starting index {start} is greater than ending index {stop}")
        out.extend(value[start : stop : bounds.step or 1])
    return out


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "float64" if isinstance(value, int | float) else "interface {}"
