"""No import cycle between modules: every strongly connected component of the import graph is one module.

Imports inside functions count (a lazy import hides a cycle, it does not remove it); imports under
`if TYPE_CHECKING:` do not, as they never run, except inside the pending analysis, where every import counts
and its parts import one way (issue 39).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import grimp


def strongly_connected_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the package is deep enough to matter for recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the component's first module (one exists: it is strongly connected)."""
    start = component[0]
    members = set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for target in sorted(graph[module] & members):
                if target == start:
                    path = [module]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if target not in came_from:
                    came_from[target] = module
                    following.append(target)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def _import_graph() -> dict[str, set[str]]:
    built = grimp.build_graph("kubectl_gpu", exclude_type_checking_imports=True)
    return {m: set(built.find_modules_directly_imported_by(m)) & built.modules for m in built.modules}


def test_tarjan_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert sorted(strongly_connected_components(graph)) == [["a", "b", "c"], ["d"], ["e"]]
    assert _cycle_in(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_module_import_cycles() -> None:
    graph = _import_graph()
    assert "kubectl_gpu.core.k8s.models" in graph  # the graph is the package's, not empty
    cycles = [c for c in strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(_cycle_in(c, graph)) for c in cycles)


# --- the pending analysis: every import counts ---------------------------------------------------------
# Its modules once imported each other in a circle hidden under `if TYPE_CHECKING:` (issue 39). Inside it,
# every import counts, wherever it is written (module level, in a function, under TYPE_CHECKING), and its
# parts (pod/, checks/, targets/nodes, targets/pools, verify/ and the top modules) import one way too.

PENDING = "kubectl_gpu.core.analyses.pending"


def imported_modules(source: str, module: str, *, is_package: bool = False) -> set[str]:
    """Every module `source` imports, relative imports resolved, wherever the import statement is."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return found


def _pending_graph() -> dict[str, set[str]]:
    root = Path(importlib.import_module(PENDING).__file__ or "").parent
    files = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join([PENDING, *parts[:-1]] if is_package else [PENDING, *parts])
        files[name] = (path, is_package)
    return {
        name: imported_modules(path.read_text(encoding="utf-8"), name, is_package=is_package) & files.keys()
        for name, (path, is_package) in files.items()
    }


def _part(module: str) -> str:
    """The part of the pending analysis a module belongs to: its subpackage (targets/ by its own children),
    or the module itself at the top."""
    parts = module.removeprefix(PENDING + ".").split(".")
    return ".".join(parts[:2]) if parts[0] == "targets" and len(parts) > 1 else parts[0]


def test_every_import_is_found() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import sibling\n"
        "if TYPE_CHECKING:\n"
        "    from a.b.hidden import Name\n"
        "def late():\n"
        "    from ..up import thing\n"
        "    import a.lazy\n"
    )
    found = imported_modules(source, "a.b.c")
    assert {"a.b.sibling", "a.b.hidden", "a.up", "a.up.thing", "a.lazy"} <= found


def test_the_pending_analysis_has_no_cycle_even_under_type_checking() -> None:
    graph = _pending_graph()
    assert f"{PENDING}.targets.pools.target" in graph  # the subpackages are seen
    cycles = [c for c in strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(_cycle_in(c, graph)) for c in cycles)


def test_the_pending_analysis_parts_import_one_way() -> None:
    modules = _pending_graph()
    graph: dict[str, set[str]] = {}
    for module, imported in modules.items():
        if module == PENDING:
            continue  # the package's entry points import the whole analysis
        graph.setdefault(_part(module), set()).update(_part(m) for m in imported if m != PENDING)
    for part, imported in graph.items():
        imported.discard(part)
    cycles = [c for c in strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, "parts that import each other:\n" + "\n".join(
        " -> ".join(_cycle_in(c, graph)) for c in cycles
    )
