"""`normalized`: `Requirement.from_dict(d).normalize()`, once per distinct requirement. Whatever was read before,
each answer is `from_dict`'s own, error for error: values Python holds equal but `from_dict` reads differently
(4 and "4" alike, `true` refused, 1.0 refused) are never answered from one another."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.scheduling.requirements import Requirement, RequirementError, normalized

_VALUES = st.one_of(
    st.sampled_from(["4", "g5", "spot", "", "1"]),
    st.sampled_from([4, 1, 1.0, True, False, None, 4.0]),
    st.lists(st.sampled_from(["a", 1]), max_size=2),
)
_REQS = st.fixed_dictionaries(
    {
        "key": st.sampled_from(["karpenter.sh/capacity-type", "node.kubernetes.io/instance-type", "", 1]),
        "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"]),
    },
    optional={
        "values": st.one_of(st.lists(_VALUES, max_size=3), st.none(), st.just("x")),
        "minValues": st.sampled_from([None, 1, 2, True, 1.0, 0]),
    },
)


def _answer(read: Any, d: dict[str, Any]) -> tuple[str, object]:
    try:
        return "ok", read(d)
    except RequirementError as exc:
        return "error", str(exc)


@settings(max_examples=400, deadline=None)
@given(st.lists(_REQS, min_size=1, max_size=6))
def test_each_answer_is_from_dicts_whatever_came_before(reqs: list[dict[str, Any]]) -> None:
    for d in reqs:
        expected = _answer(lambda r: Requirement.from_dict(r).normalize(), d)
        assert _answer(normalized, d) == expected
        assert _answer(normalized, d) == expected  # the second from the memo, where it kept one


def test_equal_values_of_other_types_are_read_for_themselves() -> None:
    text = {"key": "k", "operator": "In", "values": ["4"], "minValues": 1}
    assert normalized(text).values == frozenset({"4"})
    assert normalized({**text, "values": [4]}).values == frozenset({"4"})  # `from_dict` reads 4 as "4"
    for bad in ({**text, "values": [True]}, {**text, "values": [4.0]}, {**text, "minValues": True}):
        assert _answer(normalized, bad)[0] == "error"
    assert normalized(text) is normalized(dict(text))  # once per distinct requirement
