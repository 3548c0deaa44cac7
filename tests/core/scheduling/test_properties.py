"""Property tests for the requirement algebra (moderate example counts: the folder must stay fast)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.scheduling.requirements import (
    NormalizedRequirement,
    Requirement,
    Requirements,
    intersects,
)
from kubectl_gpu.core.scheduling.taints import Taint, Toleration, suggest_toleration

SETTINGS = settings(max_examples=250, deadline=None)
KEY = "k"

# A small alphabet so that value sets collide often; integers as strings (incl. "007"-style) and words.
small_ints = st.integers(min_value=-3, max_value=12)
int_values = small_ints.map(str)
word_values = st.sampled_from(["a", "b", "c", "x", "07", "+3", "-0"])
values = st.one_of(int_values, word_values)
value_sets = st.lists(values, min_size=1, max_size=4).map(tuple)


@st.composite
def raw_requirements(draw: st.DrawFn, key: str = KEY) -> Requirement:
    op = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"]))
    if op in ("In", "NotIn"):
        return Requirement(key, op, draw(value_sets))
    if op in ("Exists", "DoesNotExist"):
        return Requirement(key, op)
    return Requirement(key, op, (str(draw(small_ints)),))


@st.composite
def normalized(draw: st.DrawFn, key: str = KEY) -> NormalizedRequirement:
    """A normalised requirement, sometimes the intersection of two or three raw ones."""
    reqs = draw(st.lists(raw_requirements(key), min_size=1, max_size=3))
    out = reqs[0].normalize()
    for req in reqs[1:]:
        out = out.intersection(req.normalize())
    return out


label_values = st.one_of(st.none(), values)


def satisfies(reqs: Requirements, labels: dict[str, str]) -> bool:
    """Does a concrete label set satisfy every requirement (an absent label read as such)?"""
    return all(req.matches_value(labels.get(key)) for key, req in reqs.items())


@pytest.mark.slow
@SETTINGS
@given(normalized(), normalized())
def test_intersection_is_symmetric(a: NormalizedRequirement, b: NormalizedRequirement) -> None:
    assert intersects(a, b) == intersects(b, a)
    assert a.has_intersection(b) == b.has_intersection(a)
    assert a.intersection(b) == b.intersection(a)


@SETTINGS
@given(normalized())
def test_intersection_with_itself_and_exists(a: NormalizedRequirement) -> None:
    assert a.intersection(a) == a
    assert a.intersection(NormalizedRequirement(KEY, True)) == a  # Exists is the identity
    assert intersects(a, a)  # DoesNotExist too: both sides accept an absent label


@SETTINGS
@given(small_ints, normalized(), label_values)
def test_gt_is_gte_plus_one_and_lt_is_lte_minus_one(
    n: int, other: NormalizedRequirement, v: str | None
) -> None:
    gt = Requirement(KEY, "Gt", (str(n),)).normalize()
    gte = Requirement(KEY, "Gte", (str(n + 1),)).normalize()
    lt = Requirement(KEY, "Lt", (str(n),)).normalize()
    lte = Requirement(KEY, "Lte", (str(n - 1),)).normalize()
    assert gt == gte
    assert lt == lte
    assert gt.render() == gte.render()
    assert intersects(gt, other) == intersects(gte, other)
    assert gt.matches_value(v) == gte.matches_value(v)
    assert lt.matches_value(v) == lte.matches_value(v)
    # the raw (kube-scheduler) reading agrees with the normalised one on present labels
    labels = {} if v is None else {KEY: v}
    assert Requirement(KEY, "Gt", (str(n),)).matches(labels) == gt.matches_value(v)
    assert Requirement(KEY, "Lte", (str(n - 1),)).matches(labels) == lte.matches_value(v)


@SETTINGS
@given(
    st.lists(st.one_of(int_values, word_values), min_size=1, max_size=5),
    st.one_of(st.none(), small_ints),
    st.one_of(st.none(), small_ints),
)
def test_in_vs_bounds_agrees_with_checking_each_value(
    vals: list[str], lo: int | None, hi: int | None
) -> None:
    bounds: list[Requirement] = []
    if lo is not None:
        bounds.append(Requirement(KEY, "Gte", (str(lo),)))
    if hi is not None:
        bounds.append(Requirement(KEY, "Lte", (str(hi),)))
    if not bounds:
        bounds.append(Requirement(KEY, "Exists"))
    bounded = Requirements.of(*bounds).get(KEY)
    assert bounded is not None
    in_req = Requirement(KEY, "In", tuple(vals)).normalize()

    def ok(v: str) -> bool:
        if lo is None and hi is None:
            return True
        if not re.fullmatch(r"[+-]?[0-9]+", v):
            return False
        n = int(v)
        return (lo is None or n >= lo) and (hi is None or n <= hi)

    expected = any(ok(v) for v in vals)
    if lo is not None and hi is not None and lo > hi:
        # contradictory bounds collapse to DoesNotExist, which an In never intersects
        expected = False
    assert intersects(in_req, bounded) is expected
    assert intersects(bounded, in_req) is expected
    narrowed = in_req.intersection(bounded)
    assert narrowed.values == frozenset(v for v in vals if ok(v))


@pytest.mark.slow
@SETTINGS
@given(
    st.lists(raw_requirements(KEY), min_size=1, max_size=3),
    st.lists(raw_requirements(KEY), min_size=1, max_size=3),
    st.lists(raw_requirements("j"), max_size=2),
    label_values,
    label_values,
)
def test_intersection_is_sound(
    a_reqs: list[Requirement],
    b_reqs: list[Requirement],
    extra: list[Requirement],
    v: str | None,
    w: str | None,
) -> None:
    a = Requirements.of(*a_reqs, *extra)
    b = Requirements.of(*b_reqs)
    labels = {name: val for name, val in ((KEY, v), ("j", w)) if val is not None}
    if satisfies(a, labels) and satisfies(b, labels):
        # a concrete witness exists: Karpenter must call them compatible, per key and overall
        for key in a.keys() & b.keys():
            ra, rb = a.get(key), b.get(key)
            assert ra is not None and rb is not None
            assert intersects(ra, rb)
        assert a.compatible(b, allow_undefined=frozenset(b.keys())) == []
        # and the combined requirements accept the same labels
        assert satisfies(a.intersection(b), labels)


@SETTINGS
@given(value_sets, values, value_sets)
def test_not_in_and_in_are_complements(s: tuple[str, ...], v: str, t: tuple[str, ...]) -> None:
    in_s = Requirement(KEY, "In", s).normalize()
    not_in_s = Requirement(KEY, "NotIn", s).normalize()
    not_in_t = Requirement(KEY, "NotIn", t).normalize()
    # every present value is allowed by exactly one of In S / NotIn S
    assert in_s.has(v) != not_in_s.has(v)
    # In S and NotIn S never overlap; In S vs NotIn T overlap iff S has a value outside T
    assert not intersects(in_s, not_in_s)
    assert intersects(in_s, not_in_t) == bool(set(s) - set(t))
    # their intersection is empty (reads DoesNotExist), and In ∩ NotIn T == In (S - T)
    assert in_s.intersection(not_in_s).operator == "DoesNotExist"
    assert in_s.intersection(not_in_t).values == frozenset(s) - frozenset(t)
    # an absent label satisfies NotIn, never In
    assert not_in_s.matches_value(None)
    assert not in_s.matches_value(None)


@SETTINGS
@given(
    st.sampled_from(["nvidia.com/gpu", "CriticalAddonsOnly", "k"]),
    st.sampled_from(["", "true", "1"]),
    st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
)
def test_suggested_toleration_tolerates(key: str, value: str, effect: str) -> None:
    taint = Taint(key, value, effect)
    toleration = Toleration.from_dict(suggest_toleration(taint))
    assert toleration.tolerates(taint)
    # ...and nothing with another effect or key
    assert not toleration.tolerates(Taint(key + "x", value, effect))
    other_effect = "NoExecute" if effect != "NoExecute" else "NoSchedule"
    assert not toleration.tolerates(Taint(key, value, other_effect))
