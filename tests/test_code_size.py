"""Size limits of the package: no module under kubectl_gpu/ over 500 lines, no function over 80.

A module over the limit is split along its seams into a package or sibling modules; a function over it into
named steps. Lines are physical lines: a module's as `wc -l` counts them, a function's from its `def` line
to its last line (decorators not counted).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import kubectl_gpu

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

PACKAGE = Path(kubectl_gpu.__file__).parent

# The allow-lists: what is over the limits and being split on a branch right now. Empty: every module and
# function is within the limits. test_allow_lists_hold_only_what_is_still_over fails as soon as an entry is
# no longer over its limit (or no longer exists), so an entry is removed in the change that splits it.
# Never add one.
# Paths are relative to kubectl_gpu/; a function is `path::qualified.name` (`Class.method`, `f.<locals>.g`).
MODULES_OVER: frozenset[str] = frozenset()
FUNCTIONS_OVER: frozenset[str] = frozenset()


def _modules() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """`(qualified name, lines)` of every function and method under `node`, nested ones included."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            assert child.end_lineno is not None
            yield f"{prefix}{child.name}", child.end_lineno - child.lineno + 1
            yield from _functions(child, f"{prefix}{child.name}.<locals>.")
        else:
            yield from _functions(child, prefix)


def _module_sizes() -> dict[str, int]:
    return {name: len(text.splitlines()) for name, text in _modules()}


def _function_sizes() -> dict[str, int]:
    sizes: dict[str, int] = {}
    for name, text in _modules():
        for qualname, lines in _functions(ast.parse(text, filename=name)):
            sizes[f"{name}::{qualname}"] = lines
    return sizes


def test_no_module_over_the_limit() -> None:
    over = {
        name: n for name, n in _module_sizes().items() if n > MAX_MODULE_LINES and name not in MODULES_OVER
    }
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split them along their seams): {over}"


def test_no_function_over_the_limit() -> None:
    over = {
        name: n
        for name, n in _function_sizes().items()
        if n > MAX_FUNCTION_LINES and name not in FUNCTIONS_OVER
    }
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps): {over}"


def test_allow_lists_hold_only_what_is_still_over() -> None:
    modules = _module_sizes()
    functions = _function_sizes()
    stale = sorted(name for name in MODULES_OVER if modules.get(name, 0) <= MAX_MODULE_LINES)
    stale += sorted(name for name in FUNCTIONS_OVER if functions.get(name, 0) <= MAX_FUNCTION_LINES)
    assert not stale, f"no longer over the limit (or gone): remove from the allow-list in {__name__}: {stale}"


def test_the_measure_counts_nested_functions_and_methods() -> None:
    tree = ast.parse(
        "class C:\n    def m(self):\n        def inner():\n            pass\n\n\ndef f():\n    pass\n"
    )
    assert dict(_functions(tree)) == {"C.m": 3, "C.m.<locals>.inner": 2, "f": 2}
