"""`lazy_pattern` answers as the compiled pattern does, compiles on first use only, once; and no module of
the package compiles a regular expression at import (each costs 0.2-0.5 ms of every command's start-up)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import kubectl_gpu
from kubectl_gpu.core.lazy_pattern import lazy_pattern

PACKAGE = Path(kubectl_gpu.__file__).parent


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (r"(?P<key>[a-z]+)=(?P<value>\d+)", 0, "a=1, b=22, C=3"),
        (r"insufficient ?capacity", re.IGNORECASE, "Insufficient Capacity; INSUFFICIENTCAPACITY"),
        (r"^line$", re.MULTILINE, "line\nother\nline"),
        (rb"\x00+", 0, b"a\x00\x00b\x00"),
    ],
)
def test_it_answers_as_the_compiled_pattern(pattern: str | bytes, flags: int, text: str | bytes) -> None:
    lazy, real = lazy_pattern(pattern, flags), re.compile(pattern, flags)
    empty = text[:0]
    assert lazy.pattern == real.pattern
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.findall(text) == real.findall(text)
    assert lazy.sub(empty, text) == real.sub(empty, text) and lazy.subn(empty, text) == real.subn(empty, text)
    assert lazy.split(text) == real.split(text)
    for method in ("match", "search", "fullmatch"):
        found, expected = getattr(lazy, method)(text), getattr(real, method)(text)
        assert (found and found.span()) == (expected and expected.span())
    assert (lazy.flags, lazy.groups, lazy.groupindex) == (real.flags, real.groups, real.groupindex)


def test_it_compiles_on_first_use_and_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real_compile = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: calls.append(args) or real_compile(*args))
    lazy = lazy_pattern(r"a+")
    assert calls == [] and lazy.pattern == "a+"
    assert lazy.search("baa") is not None
    assert lazy.sub("-", "baa") == "b-" and lazy.match("a") is not None
    assert len(calls) == 1
    assert "search" in vars(lazy)  # later calls are the compiled pattern's own methods


def _module_level_compiles(path: Path) -> list[int]:
    found: list[int] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            deeper = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            func = getattr(child, "func", None)
            if (
                not inside
                and isinstance(child, ast.Call)
                and isinstance(func, ast.Attribute)
                and func.attr == "compile"
                and isinstance(func.value, ast.Name)
                and func.value.id == "re"
            ):
                found.append(child.lineno)
            visit(child, deeper)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def test_no_module_compiles_a_pattern_at_import() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "lazy_pattern.py"
        for line in _module_level_compiles(path)
    ]
    assert not offenders, f"use lazy_pattern (core/lazy_pattern.py) at module level: {offenders}"


def test_the_scan_finds_one(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text("import re\nA = re.compile('a')\n\ndef f():\n    return re.compile('b')\n")
    assert _module_level_compiles(path) == [2]
