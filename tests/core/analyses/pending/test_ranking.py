"""Many NodePools: one evaluation per kind of pool (pool_template.py), the nearest targets listed in full and
the rest summed up per blocker code (ranking.py).

The reference is the analysis with `share_pools=False`, which evaluates each NodePool on its own: the shared
evaluation must give the same report, target by target, whatever pools are added.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import PendingReport, analyse_pending
from kubectl_gpu.core.analyses.pending.ranking import LISTED_TARGETS, NAMED_TARGETS, nearness
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL
from tests.core.analyses.pending._scenarios import NAMES, NOW, Obj, catalog, find, items, state_of
from tests.core.analyses.pending.test_properties import nodepools

COPIES = 24


def _report(objects: list[Obj], *, share: bool) -> PendingReport:
    return analyse_pending(state_of(objects), catalog(), NOW, all_pending=True, share_pools=share)


def _with_copies(scenario: str, pool: str, copies: int) -> list[Obj]:
    objects = items(scenario)
    original = find(objects, "NodePool", pool)
    for i in range(copies):
        twin = copy.deepcopy(original)
        twin["metadata"]["name"] = f"{pool}-{i:02d}"
        if (
            i % 3 == 0
        ):  # some with their own limits used up (by as much or more): ranked alike, each in its words
            twin["spec"]["limits"] = {"nvidia.com/gpu": str(i % 2)}
        elif i % 3 == 1:  # some with as much left as their own
            twin["spec"]["limits"] = {"nvidia.com/gpu": str(64 + i)}
        objects.append(twin)
    # Pods that name pools (one by nodeSelector, some by NotIn): those pools are evaluated on their own.
    base = find(objects, "Pod", "wrong-value")
    named = copy.deepcopy(base)
    named["metadata"].update(name="named-pool", uid="uid-named-pool")
    named["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": f"{pool}-03"}
    named["spec"]["tolerations"] = [{"operator": "Exists"}]
    not_in = copy.deepcopy(named)
    not_in["metadata"].update(name="not-in-pools", uid="uid-not-in-pools")
    not_in["spec"]["nodeSelector"] = {}
    not_in["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "karpenter.sh/nodepool",
                                "operator": "NotIn",
                                "values": [pool, f"{pool}-01"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    objects += [named, not_in]
    return objects


def _all_evaluations(report: PendingReport) -> dict[str, Any]:
    return {d.key: d.evaluations for d in report.pods}


def test_copies_of_a_pool_give_the_answers_of_pools_evaluated_one_by_one() -> None:
    objects = _with_copies("automode-gpu", "gpu", COPIES)
    shared, alone = _report(objects, share=True), _report(objects, share=False)
    assert shared.to_dict() == alone.to_dict()
    assert _all_evaluations(shared) == _all_evaluations(alone)


def test_a_pod_lists_its_nearest_targets_and_sums_up_the_others() -> None:
    report = _report(_with_copies("automode-gpu", "gpu", COPIES), share=True)
    pools = len(state_of(_with_copies("automode-gpu", "gpu", COPIES)).nodepools)
    assert pools > LISTED_TARGETS + NAMED_TARGETS
    for diag in report.pods:
        data = diag.shape_dict()
        every = [b for e in diag.evaluations for b in e.blockers]
        nearest = [b for e in diag.evaluations[:LISTED_TARGETS] for b in e.blockers]
        assert data["targetCount"] == len(diag.evaluations)
        if diag.evaluations[0].target.kind == "NodePool":
            assert data["targetCount"] == pools
        assert [b["target"]["name"] for b in data["blockers"]] == [b.target.name for b in nearest]
        assert data["blockersOmitted"] == len(every) - len(nearest)
        per_code = Counter(str(b.code) for b in every)
        assert {s["code"]: s["targetCount"] for s in data["blockerSummary"]} == per_code
        for entry in data["blockerSummary"]:
            with_code = [
                e.target.name
                for e in diag.evaluations
                if any(str(b.code) == entry["code"] for b in e.blockers)
            ]
            assert [t["name"] for t in entry["targets"]] == with_code[:NAMED_TARGETS]
            assert entry["targetsOmitted"] == len(with_code) - len(entry["targets"])
    limited = [d for d in report.pods if any(s.code == "NODEPOOL_LIMIT_REACHED" for s in d.blocker_summary)]
    assert limited, "the copies with used-up limits show in the summary"


def test_the_rank_of_a_target_is_the_rank_of_its_evaluation() -> None:
    report = _report(_with_copies("automode-gpu", "gpu", COPIES), share=True)
    for diag in report.pods:
        for candidate in diag.ranked.candidates:
            assert candidate.key == nearness(candidate.evaluation())
            codes = sorted((str(code), str(cls)) for code, cls, _ in candidate.codes())
            assert codes == sorted((str(b.code), str(b.cls)) for b in candidate.evaluation().blockers)


def test_no_placeholder_is_left_in_any_words() -> None:
    report = _report(_with_copies("automode-gpu", "gpu", COPIES), share=True)
    for diag in report.pods:
        for evaluation in diag.evaluations:
            for b in evaluation.blockers:
                assert POOL not in b.message and POOL not in (b.fix or "")
                assert b.target == evaluation.target
            assert all(POOL not in c.detail for c in evaluation.checks)


@st.composite
def extra_pools(draw: st.DrawFn, auto: bool) -> list[Obj]:
    count = draw(st.integers(min_value=1, max_value=14))
    kinds = draw(st.lists(nodepools(auto=auto), min_size=1, max_size=3))
    out = []
    for i in range(count):
        pool = copy.deepcopy(kinds[i % len(kinds)])
        pool["metadata"]["name"] = f"zz-{i:02d}"
        out.append(pool)
    return out


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.data())
def test_shared_evaluation_equals_pool_by_pool_on_random_pools(scenario: str, data: st.DataObject) -> None:
    objects = items(scenario)
    objects += data.draw(extra_pools(auto=scenario.startswith("automode")))
    shared, alone = _report(objects, share=True), _report(objects, share=False)
    assert shared.to_dict() == alone.to_dict()
    assert _all_evaluations(shared) == _all_evaluations(alone)


def test_the_nearest_targets_are_evaluated_once_however_often_they_are_asked() -> None:
    """`nearest`, `first` (the fixes tried) and `listed` (the JSON's blockers) ask for the same targets."""
    report = _report(_with_copies("automode-gpu", "gpu", COPIES), share=True)
    for diag in report.pods:
        ranked = diag.ranked
        first = ranked.first(LISTED_TARGETS)
        assert first[0] is ranked.nearest
        assert [id(e) for e in ranked.first(LISTED_TARGETS)] == [id(e) for e in first]
        assert [id(b) for b in ranked.listed] == [id(b) for e in first for b in e.blockers]


class _Sample:
    """A candidate of the parts `Entry` reads: its rank key, codes and blockers."""

    def __init__(self, prefix: int, tail: tuple[int, str]) -> None:
        self.key = (False, False, prefix, 0, 0, *tail)
        self.code_set: frozenset[Any] = frozenset()
        self.blocker_total = 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=2),  # the shared rank: few values, so that entries tie
            st.lists(st.tuples(st.integers(-2, 0), st.sampled_from("abc")), min_size=1, max_size=4),
        ),
        min_size=1,
        max_size=30,
    ),
    st.integers(min_value=1, max_value=12),
)
def test_the_first_targets_are_those_of_a_sort_of_every_target(
    drawn: list[tuple[int, list[tuple[int, str]]]], count: int
) -> None:
    """`_first` looks at no more of a tie than it needs: it gives what sorting every (entry, member) gives."""
    from kubectl_gpu.core.analyses.pending.ranking import Entry, _first

    entries = []
    for prefix, tails in drawn:
        members = [(tail, object()) for tail in sorted(tails)]
        entries.append(Entry(_Sample(prefix, members[0][0]), members, lambda m: m, lambda m: m))
    entries.sort(key=lambda e: e.order)
    every = [
        (entry.prefix, tail, position, n, entry, member)
        for position, entry in enumerate(entries)
        for n, (tail, member) in enumerate(entry.members)
    ]
    every.sort(key=lambda t: t[:4])
    assert [(e, m) for *_, e, m in every[:count]] == _first(entries, count)
