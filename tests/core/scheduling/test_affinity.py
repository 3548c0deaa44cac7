from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.scheduling.affinity import (
    NO_NODE_AFFINITY,
    NodeAffinity,
    NodeSelectorTerm,
    node_matches,
    pod_requirements,
    scheduling_requirements,
    selector_matches,
)
from kubectl_gpu.core.scheduling.requirements import (
    CORE_WELL_KNOWN_LABELS,
    NormalizedRequirement,
    RequirementError,
    Requirements,
)

GPU_NAME = "eks.amazonaws.com/instance-gpu-name"


def in_(key: str, *values: str) -> NormalizedRequirement:
    return NormalizedRequirement(key, False, frozenset(values))


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d


def spec(
    node_selector: dict[str, str] | None = None,
    terms: list[dict[str, Any]] | None = None,
    preferred: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    s: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node_selector is not None:
        s["nodeSelector"] = node_selector
    node_affinity: dict[str, Any] = {}
    if terms is not None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    if preferred is not None:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    if node_affinity:
        s["affinity"] = {"nodeAffinity": node_affinity}
    return s


def test_plain_pod_has_no_requirements() -> None:
    req = pod_requirements(spec())
    assert req.strict == Requirements()
    assert req.preferred is None
    assert req.required_terms == ()
    assert not req.has_required_affinity
    assert req.notes == ()
    assert req.alternatives() == (Requirements(),)


def test_node_selector_and_first_term_only() -> None:
    terms = [
        {"matchExpressions": [expr(GPU_NAME, "In", "l40s", "l4")]},
        {"matchExpressions": [expr(GPU_NAME, "In", "h100")]},
    ]
    req = pod_requirements(spec({"kubernetes.io/arch": "amd64"}, terms))
    assert req.strict == Requirements.of(
        in_("kubernetes.io/arch", "amd64"),
        in_(GPU_NAME, "l40s", "l4"),
    )
    assert len(req.required_terms) == 2
    assert any("2 OR-terms" in n for n in req.notes)
    alternatives = req.alternatives()
    assert alternatives[0] == req.strict
    assert alternatives[1] == Requirements.of(
        in_("kubernetes.io/arch", "amd64"),
        in_(GPU_NAME, "h100"),
    )
    assert req.for_term(1) == alternatives[1]


def test_node_selector_and_affinity_on_same_key_intersect() -> None:
    req = pod_requirements(spec({"team": "a"}, [{"matchExpressions": [expr("team", "In", "b")]}]))
    # Karpenter quirk: In [a] ∩ In [b] is an empty In, which reads as DoesNotExist
    assert req.strict.get("team") == NormalizedRequirement("team", False)  # DoesNotExist


def test_preferred_heaviest_term_is_separate() -> None:
    preferred = [
        {"weight": 10, "preference": {"matchExpressions": [expr(GPU_NAME, "In", "l4")]}},
        {"weight": 50, "preference": {"matchExpressions": [expr(GPU_NAME, "In", "l40s")]}},
        {"weight": 50, "preference": {"matchExpressions": [expr(GPU_NAME, "In", "a10g")]}},
    ]
    req = pod_requirements(spec({"kubernetes.io/arch": "amd64"}, preferred=preferred))
    # the first of the heaviest terms
    assert req.preferred == Requirements.of(in_(GPU_NAME, "l40s"))
    assert req.preferred_weight == 50
    assert GPU_NAME not in req.strict  # never enforced by strict
    assert req.with_preferences.get(GPU_NAME) == in_(GPU_NAME, "l40s")
    assert len(req.preferred_terms) == 3
    assert any("weight 50" in n for n in req.notes)


def test_match_fields_are_ignored_by_karpenter_but_noted() -> None:
    terms = [
        {
            "matchFields": [expr("metadata.name", "In", "i-0abc")],
            "matchExpressions": [expr("kubernetes.io/os", "In", "linux")],
        }
    ]
    req = pod_requirements(spec(terms=terms))
    assert req.strict == Requirements.of(in_("kubernetes.io/os", "linux"))
    assert req.required_terms[0].pinned_node_names == ("i-0abc",)
    assert any("matchFields" in n and "i-0abc" in n for n in req.notes)
    labels = {"kubernetes.io/os": "linux"}
    assert node_matches(spec(terms=terms), labels, node_name="i-0abc") == (True, "")
    ok, why = node_matches(spec(terms=terms), labels, node_name="i-0def")
    assert not ok
    assert "metadata.name" in why
    assert node_matches(spec(terms=terms), labels)[0]  # no node name given: matchFields not checked
    not_in = [{"matchFields": [expr("metadata.name", "NotIn", "i-0abc")]}]
    assert not node_matches(spec(terms=not_in), {}, node_name="i-0abc")[0]
    assert node_matches(spec(terms=not_in), {}, node_name="i-0def")[0]


def test_empty_terms() -> None:
    req = pod_requirements(spec(terms=[]))
    assert req.has_required_affinity
    assert req.strict == Requirements()
    assert any("no nodeSelectorTerms" in n for n in req.notes)
    ok, why = node_matches(spec(terms=[]), {"a": "b"})
    assert not ok
    assert "matches no node" in why
    # a list of empty terms matches nothing either; an empty term next to a real one is skipped
    assert not node_matches(spec(terms=[{}, {"matchExpressions": []}]), {"a": "b"})[0]
    assert node_matches(spec(terms=[{}, {"matchExpressions": [expr("a", "In", "b")]}]), {"a": "b"})[0]
    req = pod_requirements(spec(terms=[{}, {"matchExpressions": [expr("a", "In", "b")]}]))
    assert req.strict == Requirements()  # Karpenter uses term 0 only, which is empty
    assert any("nodeSelectorTerms[0] is empty" in n for n in req.notes)


@pytest.mark.parametrize(
    ("node_selector", "terms", "labels", "expected"),
    [
        ({"a": "1"}, None, {"a": "1", "b": "2"}, True),
        ({"a": "1"}, None, {"a": "2"}, False),
        ({"a": "1"}, None, {}, False),
        (None, [{"matchExpressions": [expr("a", "In", "1", "2")]}], {"a": "2"}, True),
        (None, [{"matchExpressions": [expr("a", "NotIn", "1")]}], {}, True),
        (None, [{"matchExpressions": [expr("a", "Exists")]}], {}, False),
        (None, [{"matchExpressions": [expr("a", "DoesNotExist")]}], {}, True),
        (None, [{"matchExpressions": [expr("gen", "Gt", "4")]}], {"gen": "5"}, True),
        (None, [{"matchExpressions": [expr("gen", "Gt", "4")]}], {"gen": "4"}, False),
        (None, [{"matchExpressions": [expr("gen", "Gt", "4")]}], {"gen": "x"}, False),
        (None, [{"matchExpressions": [expr("gen", "Lt", "4")]}], {"gen": "3"}, True),
        (None, [{"matchExpressions": [expr("gen", "Lt", "4")]}], {}, False),
        # Gte/Lte are Karpenter-only operators: kube-scheduler rejects the term, which then matches nothing
        (None, [{"matchExpressions": [expr("gen", "Gte", "4")]}], {"gen": "5"}, False),
        # In without values is invalid for kube-scheduler
        (None, [{"matchExpressions": [expr("a", "In")]}], {"a": ""}, False),
        # expressions in a term are ANDed, terms are ORed
        (None, [{"matchExpressions": [expr("a", "In", "1"), expr("b", "In", "2")]}], {"a": "1"}, False),
        (
            None,
            [{"matchExpressions": [expr("a", "In", "9")]}, {"matchExpressions": [expr("b", "In", "2")]}],
            {"a": "1", "b": "2"},
            True,
        ),
        # nodeSelector AND affinity
        ({"a": "1"}, [{"matchExpressions": [expr("b", "In", "2")]}], {"a": "1", "b": "3"}, False),
        # verbatim keys: no Karpenter normalisation on the kube-scheduler side
        ({"beta.kubernetes.io/arch": "amd64"}, None, {"kubernetes.io/arch": "amd64"}, False),
    ],
)
def test_node_matches(
    node_selector: dict[str, str] | None,
    terms: list[dict[str, Any]] | None,
    labels: dict[str, str],
    expected: bool,
) -> None:
    ok, why = node_matches(spec(node_selector, terms), labels)
    assert ok is expected
    assert (why == "") is expected


def test_node_matches_reasons() -> None:
    ok, why = node_matches(spec({"nvidia.com/gpu.present": "true"}), {})
    assert (ok, why) == (
        False,
        "nodeSelector nvidia.com/gpu.present=true not satisfied (node has no nvidia.com/gpu.present label)",
    )
    terms = [
        {"matchExpressions": [expr(GPU_NAME, "In", "h100")]},
        {"matchExpressions": [expr("g", "Gt", "5")]},
    ]
    ok, why = node_matches(spec(terms=terms), {GPU_NAME: "l4", "g": "5"})
    assert not ok
    assert why == (
        "required node affinity not satisfied: term 0: eks.amazonaws.com/instance-gpu-name In [h100] not "
        "satisfied (node has eks.amazonaws.com/instance-gpu-name=l4); "
        "term 1: g Gt 5 not satisfied (node has g=5)"
    )
    ok, why = node_matches(spec(terms=[{"matchExpressions": [expr("g", "Lte", "5")]}]), {"g": "5"})
    assert not ok
    assert "not a valid node selector operator" in why


def test_whole_pod_object_is_accepted() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec({"a": "1"})}
    assert pod_requirements(pod).strict == Requirements.from_node_selector({"a": "1"})
    assert node_matches(pod, {"a": "1"}) == (True, "")


def test_karpenter_view_normalises_keys() -> None:
    req = pod_requirements(spec({"beta.kubernetes.io/arch": "arm64"}))
    pool = Requirements.of({"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]})
    (conflict,) = pool.compatible(req.strict, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert (
        conflict.message
        == "key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]"
    )


def test_parse_errors_name_the_field() -> None:
    bad = spec(
        terms=[{"matchExpressions": [expr("a", "In", "1")]}, {"matchExpressions": [expr("g", "Gt", "x")]}]
    )
    with pytest.raises(RequirementError, match=r"nodeSelectorTerms\[1\]\.matchExpressions\[0\]"):
        pod_requirements(bad)
    with pytest.raises(RequirementError, match="weight"):
        pod_requirements(spec(preferred=[{"weight": "10", "preference": {}}]))
    with pytest.raises(RequirementError, match="nodeSelector"):
        pod_requirements({"nodeSelector": {"a": 1}})


def test_term_object() -> None:
    term = NodeSelectorTerm.from_dict({"matchExpressions": [expr("a", "In", "1")]})
    assert not term.is_empty
    assert term.matches({"a": "1"})
    assert term.mismatch({"a": "2"}) == "a In [1] not satisfied (node has a=2)"
    assert NodeSelectorTerm().is_empty
    assert not NodeSelectorTerm().matches({})


def test_node_affinity_is_read_once_and_hashable() -> None:
    assert NodeAffinity.from_spec(spec({"a": "1"})) is NO_NODE_AFFINITY
    assert NodeAffinity.from_spec({"affinity": {"podAntiAffinity": {}}}) is NO_NODE_AFFINITY
    terms = [{"matchExpressions": [expr(GPU_NAME, "In", "l40s")]}]
    preferred = [{"weight": 5, "preference": {"matchExpressions": [expr("zone", "In", "a")]}}]
    affinity = NodeAffinity.from_spec(spec(terms=terms, preferred=preferred))
    assert affinity == NodeAffinity.from_spec(spec(terms=terms, preferred=preferred))
    assert hash(affinity) == hash(NodeAffinity.from_spec(spec(terms=terms, preferred=preferred)))
    assert affinity.required() == (True, (NodeSelectorTerm.from_dict(terms[0]),))
    assert [p.weight for p in affinity.preferred()] == [5]
    # the typed entry points give what the dict ones give
    assert scheduling_requirements({}, affinity) == pod_requirements(spec(terms=terms, preferred=preferred))
    labels = {GPU_NAME: "l4"}
    assert selector_matches({}, affinity, labels) == node_matches(spec(terms=terms), labels)


def test_node_affinity_keeps_each_parse_error_for_its_part() -> None:
    bad_required = [{"matchExpressions": [expr("g", "Gt", "x")]}]
    affinity = NodeAffinity.from_spec(spec(terms=bad_required))
    assert affinity.required_error is not None and affinity.preferred_error is None
    with pytest.raises(RequirementError, match=r"nodeSelectorTerms\[0\]\.matchExpressions\[0\]"):
        affinity.required()
    with pytest.raises(RequirementError, match=r"nodeSelectorTerms\[0\]"):
        scheduling_requirements({}, affinity)
    # kube-scheduler's filter reads the selector first: a mismatch is reported before the broken terms
    assert selector_matches({"a": "1"}, affinity, {})[0] is False
    with pytest.raises(RequirementError):
        selector_matches({"a": "1"}, affinity, {"a": "1"})
    broken_weight = NodeAffinity.from_spec(spec(preferred=[{"weight": "10", "preference": {}}]))
    assert broken_weight.preferred_error is not None
    assert selector_matches({}, broken_weight, {}) == (True, "")  # the filter never reads preferences
    with pytest.raises(RequirementError, match="weight"):
        scheduling_requirements({}, broken_weight)
