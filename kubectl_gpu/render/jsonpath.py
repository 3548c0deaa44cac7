"""kubectl's JSONPath templates (`-o jsonpath=`, `custom-columns=`, `--sort-by`) over python-jsonpath.

kubectl's dialect is a template: literal text and `{...}` actions, where an action is an expression
(`{.items[*].metadata.name}`), a quoted literal (`{"\\n"}`), or `{range EXPR}`...`{end}`. This module is the
thin template layer only: it splits the template into those parts and hands each expression to the
python-jsonpath library (filters `?(@.x=="y")`, slices, unions, `..` are the library's). An expression that
starts with `.` or `@` is relative to the current object (the document, or the item of the enclosing
range), one that starts with `$` to the document; kubectl's escaped dots (`.labels.kubernetes\\.io/arch`)
become bracketed names. Values print as kubectl prints them (but for terminal controls in cluster text,
shown escaped by `render.safe`, as everywhere else): strings bare, several results of one
expression separated by a space, maps and lists as JSON. A missing key prints nothing (kubectl's
`--allow-missing-template-keys=true`), or is an error when that is false. Evaluation is kubectl's
(render.jsonpath_eval: unions grouped by member, an index out of range an error); `=~`, `&&` and `||` are
refused as kubectl's lexer refuses them, and brackets are read by kubectl's rules (render.jsonpath_brackets:
`["name"]` refused, `['a.b']` the path `.a.b`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.render.jsonpath_brackets import bracket_error, quoted_names_as_paths
from kubectl_gpu.render.safe import safe_block

__all__ = ["Expression", "Template", "parse_expression", "parse_template", "text_of"]


class Expression(msgspec.Struct, frozen=True):
    """One compiled expression; `absolute`: it starts at the document (`$`), not the current object."""

    source: str
    query: Any  # jsonpath.JSONPath or jsonpath.CompoundJSONPath
    absolute: bool

    def values(self, current: Any, root: Any = None, *, allow_missing: bool = True) -> list[Any]:
        """The expression's results, as kubectl finds them (render.jsonpath_eval); InvalidInput (kubectl's
        `error executing jsonpath`) for an index out of range or, unless `allow_missing`, a missing key."""
        from kubectl_gpu.render.jsonpath_eval import JsonPathFailure, evaluate

        start = root if self.absolute and root is not None else current
        try:
            return evaluate(self.query, start, allow_missing=allow_missing)
        except JsonPathFailure as failure:
            raise failure.named(
                self.source if self.source.startswith("{") else "{" + self.source + "}"
            ) from None


class Literal(msgspec.Struct, frozen=True):
    text: str


class Range(msgspec.Struct, frozen=True):
    over: Expression
    body: tuple[Node, ...]


Node = Literal | Expression | Range


class Template(msgspec.Struct, frozen=True):
    source: str
    nodes: tuple[Node, ...]

    def render(self, document: Any, *, allow_missing: bool = True) -> str:
        """The template over `document`; `allow_missing`: kubectl's --allow-missing-template-keys."""
        from kubectl_gpu.render.jsonpath_eval import JsonPathFailure

        try:
            return "".join(_render(self.nodes, document, document, allow_missing))
        except JsonPathFailure as failure:
            raise failure.named(self.source) from None


def _render(nodes: Sequence[Node], current: Any, root: Any, allow_missing: bool) -> list[str]:
    from kubectl_gpu.render.jsonpath_eval import evaluate

    out: list[str] = []
    for node in nodes:
        if isinstance(node, Literal):
            out.append(node.text)
            continue
        expression = node if isinstance(node, Expression) else node.over
        start = root if expression.absolute else current
        found = evaluate(expression.query, start, allow_missing=allow_missing)
        if isinstance(node, Expression):  # cluster text: controls escaped (render.safe), lines kept
            out.append(safe_block(" ".join(text_of(v) for v in found)))
        else:
            for item in found:
                out.extend(_render(node.body, item, root, allow_missing))
    return out


def text_of(value: Any) -> str:
    """A value as kubectl prints it: strings bare, booleans and null in JSON's spelling, others as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _error(template: str, reason: str) -> InvalidInput:
    return InvalidInput(f"error parsing jsonpath {template}, {reason}")


# A dotted name with kubectl's escaped dots in it: `.kubernetes\.io/arch`.
_ESCAPED_NAME = lazy_pattern(r"\.((?:[^.\[\]\\\s]|\\\.)*\\\.(?:[^.\[\]\\\s]|\\\.)*)")


def _query_text(expression: str) -> tuple[str, bool]:
    text = quoted_names_as_paths(expression.strip())
    if "\\." in text:
        text = _ESCAPED_NAME.sub(lambda m: "[" + json.dumps(m.group(1).replace("\\.", ".")) + "]", text)
    if text.startswith("$"):
        return text, True
    if text.startswith("@"):
        return "$" + text[1:], False
    if text in ("", "."):
        return "$", False
    return ("$" + text if text.startswith((".", "[")) else "$." + text), False


def compile_expression(expression: str, template: str) -> Expression:
    import jsonpath  # ~70 ms to import: only a command given a JSONPath pays for it

    _refuse_what_kubectl_refuses(expression, template)
    reason = bracket_error(expression)
    if reason is not None:  # kubectl's brackets: `["name"]` and `[ 0 ]` are not kubectl's
        raise _error(template, reason)
    text, absolute = _query_text(expression)
    try:
        query = jsonpath.compile(text)
    except jsonpath.JSONPathError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _error(template, reason) from None
    return Expression(expression, query, absolute)


def _refuse_what_kubectl_refuses(expression: str, template: str) -> None:
    """kubectl's lexer knows no `=~` (regular expressions), `&&` or `||`: the character is refused as kubectl
    refuses it, where python-jsonpath would take it."""
    quote = ""
    for char in expression:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "~&|":
            raise _error(template, f"unrecognized character in action: U+{ord(char):04X} '{char}'")


def _actions(template: str) -> list[tuple[bool, str]]:
    """The template as (is_action, text) parts; a `{` inside a quoted string does not open or close."""
    parts: list[tuple[bool, str]] = []
    position = 0
    while position < len(template):
        start = template.find("{", position)
        if start < 0:
            parts.append((False, template[position:]))
            break
        if start > position:
            parts.append((False, template[position:start]))
        end, quote = start + 1, ""
        while end < len(template) and (quote or template[end] != "}"):
            char = template[end]
            if quote and char == "\\":
                end += 1
            elif char in "\"'" and (not quote or quote == char):
                quote = "" if quote else char
            end += 1
        if end >= len(template):
            raise _error(template, "unclosed action")
        parts.append((True, template[start + 1 : end]))
        position = end + 1
    return parts


def _literal(text: str, template: str) -> Literal:
    try:
        value = json.loads(text, strict=False) if text.startswith('"') else text[1:-1]
    except json.JSONDecodeError:
        raise _error(template, f"bad string literal {text}") from None
    return Literal(str(value))


def parse_template(template: str) -> Template:
    """Parse kubectl's JSONPath template; InvalidInput (exit 2) with kubectl's wording when it is malformed."""
    stack: list[tuple[Expression | None, list[Node]]] = [(None, [])]
    for is_action, text in _actions(template):
        body = stack[-1][1]
        action = text.strip()
        if not is_action:
            body.append(Literal(text))
        elif action == "end":
            if len(stack) == 1:
                raise _error(template, "not in range, nothing to end")
            over, nodes = stack.pop()
            assert over is not None
            stack[-1][1].append(Range(over, tuple(nodes)))
        elif action.startswith("range ") or action.startswith("range\t"):
            stack.append((compile_expression(action[6:], template), []))
        elif len(action) >= 2 and action[0] == action[-1] and action[0] in "\"'":
            body.append(_literal(action, template))
        else:
            body.append(compile_expression(action, template))
    if len(stack) > 1:
        raise _error(template, "unclosed range: expect {end}")
    return Template(template, tuple(stack[0][1]))


# kubectl's relaxed form for custom-columns and --sort-by: `{.a.b}`, `.a.b`, `{a.b}` or `a.b`.
_RELAXED = lazy_pattern(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


def parse_expression(text: str, what: str) -> Expression:
    """One expression in kubectl's relaxed form (custom-columns, --sort-by)."""
    match = _RELAXED.match(text.strip())
    if match is None:
        raise InvalidInput(
            f"{what}: unexpected path string {text!r}, expected a 'name1.name2' or '.name1.name2' or "
            "'{name1.name2}' or '{.name1.name2}'"
        )
    body = match.group(1) or match.group(2)
    return compile_expression("." + body if not body.startswith(("[", "$", "@")) else body, "{" + text + "}")
