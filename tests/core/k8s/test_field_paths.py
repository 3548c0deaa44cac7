"""`field_paths` (what lint's unknown-field check reads of a NodePool) against a plain recursive definition
of it, on the real NodePools the tests hold and on any JSON-like object."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.k8s.parse.karpenter import field_paths
from tests.helpers import FIXTURES, load_yaml_docs


def _reference(obj: dict[str, Any]) -> tuple[str, ...]:
    """Every path the object sets, `[]` for list items, `metadata` and `status` left out: by recursion."""
    out: set[str] = set()

    def walk(path: str, value: object) -> None:
        out.add(path)
        if isinstance(value, dict):
            for key, child in value.items():
                if isinstance(key, str):
                    walk(f"{path}.{key}", child)
        elif isinstance(value, list):
            for child in value:
                if isinstance(child, dict | list):
                    walk(f"{path}[]", child)

    for key, value in obj.items():
        if isinstance(key, str) and key not in ("metadata", "status"):
            walk(f".{key}", value)
    return tuple(sorted(out))


def test_real_nodepools() -> None:
    pools = [
        doc
        for path in sorted((FIXTURES / "karpenter").glob("*.yaml"))
        for doc in load_yaml_docs(path)
        if isinstance(doc, dict) and doc.get("kind") == "NodePool"
    ]
    assert len(pools) >= 3
    for pool in pools:
        found = field_paths(pool)
        assert found == _reference(pool)
        assert ".spec.template.spec.requirements[].key" in found
        assert not any(p.startswith((".metadata", ".status")) for p in found)


_LEAVES = st.none() | st.booleans() | st.integers() | st.text(max_size=3)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["spec", "metadata", "status", "kind", "x"]), _VALUES, max_size=5))
def test_any_object(obj: dict[str, Any]) -> None:
    assert field_paths(obj) == _reference(obj)
