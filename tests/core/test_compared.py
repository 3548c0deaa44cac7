"""`core/compared.py`: a Struct's equality, hash and repr without some fields, as the dataclass's
`field(compare=False)` / `hash=False` / `repr=False` it replaced."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubectl_gpu.core.analyses.pending.verdicts import Blocker, BlockerClass, TargetRef, Verdict
from kubectl_gpu.core.compared import compared_without, hashed_without


@compared_without("detail", shown=False)
class Shown(msgspec.Struct, frozen=True, eq=False):
    name: str
    sizes: tuple[int, ...]
    detail: dict[str, Any] = msgspec.field(default_factory=dict)


@hashed_without("labels")
class Labelled(msgspec.Struct, frozen=True):
    name: str
    labels: dict[str, str]


def test_equality_and_hash_leave_the_field_out() -> None:
    a, b = Shown("a", (1,), {"x": 1}), Shown("a", (1,), {"y": 2})
    assert a == b and (a != b) is False and hash(a) == hash(b) and len({a, b}) == 1  # `!=` as well
    assert Shown("a", (2,)) != a and (Shown("a", (2,)) == a) is False
    assert a != ("a", (1,)) and a.__eq__(("a", (1,))) is NotImplemented  # another type is never equal


def test_the_repr_leaves_it_out_when_asked() -> None:
    assert repr(Shown("a", (1,), {"secret": 1})) == "Shown(name='a', sizes=(1,))"
    assert "detail={}" in repr(Blocker(Verdict.MISSING_TOLERATION, BlockerClass.SPEC, TargetRef("NodePool", "p"), "m"))


def test_a_hash_without_a_mapping_still_compares_it() -> None:
    a, b = Labelled("n", {"k": "1"}), Labelled("n", {"k": "2"})
    assert a != b and hash(a) == hash(b)
    assert Labelled("n", {"k": "1"}) == a


def test_an_unhashable_field_left_in_still_raises_as_a_dataclass_did() -> None:
    @compared_without("detail")
    class Holder(msgspec.Struct, frozen=True, eq=False):
        data: dict[str, int]
        detail: int = 0

    assert Holder({"a": 1}, 1) == Holder({"a": 1}, 2)
    with pytest.raises(TypeError, match="unhashable"):
        hash(Holder({}))


def test_a_field_the_struct_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match="has no field"):

        @hashed_without("nope")
        class Bad(msgspec.Struct, frozen=True):
            name: str


def test_blockers_compare_as_before() -> None:
    ref = TargetRef("NodePool", "p")
    one = Blocker(Verdict.MISSING_TOLERATION, BlockerClass.SPEC, ref, "m", "f", {"taints": ["a"]})
    two = Blocker(Verdict.MISSING_TOLERATION, BlockerClass.SPEC, ref, "m", "f", {"taints": ["b"]})
    assert one == two and hash(one) == hash(two)
    assert one != Blocker(Verdict.MISSING_TOLERATION, BlockerClass.SPEC, ref, "m", "other fix")
