from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.scheduling.requirements import (
    CORE_WELL_KNOWN_LABELS,
    Conflict,
    NormalizedRequirement,
    Requirement,
    RequirementError,
    Requirements,
    UnknownLabel,
    go_atoi,
    intersects,
    label_hint,
    nodepool_requirements,
)

K = "k"


def r(op: str, *values: str, key: str = K, min_values: int | None = None) -> NormalizedRequirement:
    return Requirement(key, op, values, min_values).normalize()


SPECS: dict[str, NormalizedRequirement] = {
    "In[a b]": r("In", "a", "b"),
    "In[b c]": r("In", "b", "c"),
    "In[c]": r("In", "c"),
    "NotIn[a]": r("NotIn", "a"),
    "NotIn[a b]": r("NotIn", "a", "b"),
    "Exists": r("Exists"),
    "DoesNotExist": r("DoesNotExist"),
    "Gt 4": r("Gt", "4"),
    "Lt 4": r("Lt", "4"),
    "Gte 4": r("Gte", "4"),
    "Lte 4": r("Lte", "4"),
    "In[3 5]": r("In", "3", "5"),
    "In[4]": r("In", "4"),
    "In[04]": r("In", "04"),
    "In[x]": r("In", "x"),
}

# (left, right, intersects) - every row is also checked the other way round.
PAIRS: list[tuple[str, str, bool]] = [
    ("In[a b]", "In[b c]", True),
    ("In[a b]", "In[c]", False),
    ("In[a b]", "NotIn[a]", True),
    ("In[a b]", "NotIn[a b]", False),
    ("In[c]", "NotIn[a b]", True),
    ("In[a b]", "Exists", True),
    ("In[a b]", "DoesNotExist", False),
    ("In[a b]", "Gt 4", False),  # strings never satisfy bounds
    ("In[x]", "Gte 4", False),
    ("In[x]", "Exists", True),
    ("NotIn[a]", "NotIn[a b]", True),  # NotIn vs NotIn always intersect
    ("NotIn[a b]", "NotIn[a b]", True),
    ("NotIn[a]", "Exists", True),
    ("NotIn[a]", "DoesNotExist", True),  # both tolerate an absent label
    ("NotIn[a]", "Gt 4", True),
    ("Exists", "Exists", True),
    ("Exists", "DoesNotExist", False),
    ("DoesNotExist", "DoesNotExist", True),
    ("DoesNotExist", "Gt 4", False),
    ("DoesNotExist", "Lt 4", False),
    ("DoesNotExist", "Gte 4", False),
    ("DoesNotExist", "In[4]", False),
    ("Gt 4", "Lt 4", False),  # >=5 and <=3
    ("Gt 4", "Gte 4", True),
    ("Gt 4", "Lte 4", False),  # >=5 and <=4
    ("Gte 4", "Lte 4", True),  # exactly 4
    ("Lt 4", "Lte 4", True),
    ("Gt 4", "Exists", True),
    ("Lt 4", "Exists", True),
    ("Gt 4", "NotIn[a b]", True),
    ("Gt 4", "In[3 5]", True),  # 5
    ("Lt 4", "In[3 5]", True),  # 3
    ("Gte 4", "In[4]", True),
    ("Gt 4", "In[4]", False),
    ("Lte 4", "In[4]", True),
    ("Lt 4", "In[4]", False),
    ("Gte 4", "In[04]", True),  # Go Atoi("04") == 4
    ("In[4]", "In[04]", False),  # ...but In compares strings
]


@pytest.mark.parametrize(("left", "right", "expected"), PAIRS, ids=[f"{a} x {b}" for a, b, _ in PAIRS])
def test_operator_pairs(left: str, right: str, expected: bool) -> None:
    a, b = SPECS[left], SPECS[right]
    assert intersects(a, b) is expected
    assert intersects(b, a) is expected
    pool, pod = Requirements.of(a), Requirements.of(b)
    conflicts = pool.compatible(pod, allow_undefined=frozenset())
    assert (conflicts == []) is expected


def test_all_pairs_symmetric() -> None:
    for a in SPECS.values():
        for b in SPECS.values():
            assert intersects(a, b) == intersects(b, a)
            assert a.has_intersection(b) == b.has_intersection(a)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        (Requirement(K, "In", ("b", "a")), NormalizedRequirement(K, False, frozenset({"a", "b"}))),
        (Requirement(K, "NotIn", ("a",)), NormalizedRequirement(K, True, frozenset({"a"}))),
        (Requirement(K, "Exists"), NormalizedRequirement(K, True)),
        (Requirement(K, "DoesNotExist"), NormalizedRequirement(K, False)),
        (Requirement(K, "Gt", ("4",)), NormalizedRequirement(K, True, gte=5)),
        (Requirement(K, "Lt", ("4",)), NormalizedRequirement(K, True, lte=3)),
        (Requirement(K, "Gte", ("4",)), NormalizedRequirement(K, True, gte=4)),
        (Requirement(K, "Lte", ("4",)), NormalizedRequirement(K, True, lte=4)),
        (Requirement(K, "Gt", ("-1",)), NormalizedRequirement(K, True, gte=0)),
        (Requirement(K, "Gt", ("9223372036854775807",)), NormalizedRequirement(K, False)),  # matches nothing
        (Requirement(K, "In", ("a",), 1), NormalizedRequirement(K, False, frozenset({"a"}), min_values=1)),
        (
            Requirement("beta.kubernetes.io/arch", "In", ("amd64",)),
            NormalizedRequirement("kubernetes.io/arch", False, frozenset({"amd64"})),
        ),
    ],
)
def test_normalize(raw: Requirement, normalized: NormalizedRequirement) -> None:
    assert raw.normalize() == normalized


@pytest.mark.parametrize(
    ("d", "match"),
    [
        ({"key": K, "operator": "Gt", "values": ["abc"]}, "exactly one integer"),
        ({"key": K, "operator": "Gt", "values": ["1", "2"]}, "exactly one integer"),
        ({"key": K, "operator": "Lt", "values": []}, "exactly one integer"),
        ({"key": K, "operator": "Gte", "values": ["4.5"]}, "exactly one integer"),
        ({"key": K, "operator": "Lte", "values": ["9223372036854775808"]}, "exactly one integer"),
        ({"key": K, "operator": "Gt", "values": ["1_000"]}, "exactly one integer"),
        ({"key": K, "operator": "Gt", "values": [" 4"]}, "exactly one integer"),
        ({"key": K, "operator": "Between", "values": ["1"]}, "unknown operator"),
        ({"key": K, "operator": "in", "values": ["a"]}, "unknown operator"),
        ({"operator": "In", "values": ["a"]}, "key"),
        ({"key": "", "operator": "In", "values": ["a"]}, "empty"),
        ({"key": K, "operator": "In", "values": "a"}, "list"),
        ({"key": K, "operator": "In", "values": [None]}, "strings"),
        ({"key": K, "operator": "In", "values": ["a"], "minValues": True}, "minValues"),
        ({"key": K, "operator": "In", "values": ["a"], "minValues": 0}, "minValues"),
    ],
)
def test_bad_requirements(d: dict[str, Any], match: str) -> None:
    with pytest.raises(RequirementError, match=match) as info:
        Requirement.from_dict(d)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_from_dict_and_lenient_ints() -> None:
    d = {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"], "minValues": 2}
    req = Requirement.from_dict(d)
    assert req == Requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", ("0",), 2)
    assert req.bound == 0
    assert Requirement.from_dict({"key": K, "operator": "Gt", "values": [4]}).values == ("4",)
    assert Requirement.from_dict({"key": K, "operator": "Exists"}).values == ()


def test_go_atoi() -> None:
    assert go_atoi("42") == 42
    assert go_atoi("+42") == 42
    assert go_atoi("-042") == -42
    assert go_atoi("9223372036854775807") == 2**63 - 1
    assert go_atoi("9223372036854775808") is None
    for bad in ("", "+", "4.0", "1e3", " 1", "1 ", "0x10", "1_0", "٣"):
        assert go_atoi(bad) is None, bad


@pytest.mark.parametrize(
    ("reqs", "expected"),
    [
        ([r("In", "a", "b"), r("NotIn", "a")], NormalizedRequirement(K, False, frozenset({"b"}))),
        ([r("In", "a"), r("In", "b")], NormalizedRequirement(K, False)),  # In [] reads as DoesNotExist
        ([r("NotIn", "a"), r("NotIn", "b")], NormalizedRequirement(K, True, frozenset({"a", "b"}))),
        ([r("Gt", "4"), r("Lt", "4")], NormalizedRequirement(K, False)),
        ([r("Gt", "4"), r("Lte", "8")], NormalizedRequirement(K, True, gte=5, lte=8)),
        ([r("Gt", "4"), r("Gt", "6")], NormalizedRequirement(K, True, gte=7)),
        ([r("Gt", "4"), r("In", "3", "5", "x")], NormalizedRequirement(K, False, frozenset({"5"}))),
        ([r("Exists"), r("DoesNotExist")], NormalizedRequirement(K, False)),
        (
            [r("In", "a", "b", min_values=1), r("In", "a", "b", "c", min_values=2)],
            NormalizedRequirement(K, False, frozenset({"a", "b"}), min_values=2),
        ),
    ],
)
def test_intersection(reqs: list[NormalizedRequirement], expected: NormalizedRequirement) -> None:
    a, b = reqs
    assert a.intersection(b) == expected
    assert b.intersection(a) == expected
    assert Requirements.of(a, b).get(K) == expected
    assert Requirements.of(a).intersection(Requirements.of(b)).get(K) == expected


@pytest.mark.parametrize(
    ("req", "text", "legacy"),
    [
        (r("In", "l4", "a10g"), "k In [a10g l4]", "k In [a10g l4]"),
        (r("NotIn", "b", "a"), "k NotIn [a b]", "k NotIn [a b]"),
        (r("Exists"), "k Exists", "k Exists"),
        (r("DoesNotExist"), "k DoesNotExist", "k DoesNotExist"),
        (r("Gt", "4"), "k Exists >=5", "k Exists >4"),
        (r("Lt", "4"), "k Exists <=3", "k Exists <4"),
        (r("Gte", "4"), "k Exists >=4", "k Exists >3"),
        (r("Gt", "4").intersection(r("Lt", "9")), "k Exists >=5 <=8", "k Exists >4 <9"),
        (r("Gt", "4").intersection(r("NotIn", "7")), "k NotIn [7] >=5", "k NotIn [7] >4"),
        (r("In", *"gfedcba"), "k In [a b c d e and 2 others]", "k In [a b c d e and 2 others]"),
        (r("In", "a", "b", min_values=2), "k In [a b] minValues 2", "k In [a b] minValues 2"),
    ],
)
def test_render(req: NormalizedRequirement, text: str, legacy: str) -> None:
    assert req.render() == text
    assert str(req) == text
    assert req.render(legacy_bounds=True) == legacy
    assert req.render(with_key=False) == text.removeprefix("k ")


def test_render_requirements() -> None:
    reqs = Requirements.of(
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["i-1"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]},
        {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
    )
    # upstream Requirements.String(): sorted, hostname left out
    assert reqs.render() == (
        "eks.amazonaws.com/instance-generation Exists >=5, karpenter.sh/capacity-type In [on-demand spot]"
    )
    # the v0.31 rendering seen in aws/karpenter-provider-aws#4738
    assert Requirements.of(r("Gt", "2", key="karpenter.k8s.aws/instance-generation")).render(
        legacy_bounds=True
    ) == ("karpenter.k8s.aws/instance-generation Exists >2")


GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"


def test_conflict_message_matches_karpenter() -> None:
    pool = Requirements.of({"key": GPU_NAME, "operator": "In", "values": ["l4", "a10g"]})
    pod = Requirements.from_node_selector({GPU_NAME: "h100"})
    (conflict,) = pool.compatible(pod, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert isinstance(conflict, Conflict)
    assert conflict.key == GPU_NAME
    # EKS-FACTS §2.2 example, which prints each side without its key
    assert conflict.summary == "key karpenter.k8s.aws/instance-gpu-name, In [h100] not in In [a10g l4]"
    # upstream badKeyError: `key %s, %s not in %s` with Requirement.String() (which includes the key)
    assert conflict.message == (
        "key karpenter.k8s.aws/instance-gpu-name, karpenter.k8s.aws/instance-gpu-name In [h100] "
        "not in karpenter.k8s.aws/instance-gpu-name In [a10g l4]"
    )


def test_conflict_on_nodepool_label_real_world_string() -> None:
    # kubernetes-sigs/karpenter#3272 log line
    pool = nodepool_requirements("default", [])
    pod = Requirements.from_node_selector({"karpenter.sh/nodepool": "non-existent-zone"})
    (conflict,) = pool.compatible(pod, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert str(conflict) == (
        "key karpenter.sh/nodepool, karpenter.sh/nodepool In [non-existent-zone] "
        "not in karpenter.sh/nodepool In [default]"
    )


def test_unknown_label() -> None:
    pool = nodepool_requirements("gpu", [{"key": GPU_NAME, "operator": "In", "values": ["l4"]}])
    pod = Requirements.from_node_selector({"nvidia.com/gpu.present": "true"})
    (unknown,) = pool.compatible(pod, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert unknown == UnknownLabel("nvidia.com/gpu.present", None)
    # karpenter_messages.json example (after Karpenter's "incompatible requirements, ")
    assert unknown.message == 'label "nvidia.com/gpu.present" does not have known values'


def test_unknown_label_exemptions_and_template_labels() -> None:
    pool = nodepool_requirements("gpu", [], {"team": "ml"})
    allow = CORE_WELL_KNOWN_LABELS | {GPU_NAME}
    ok = [
        Requirements.from_node_selector({"team": "ml"}),  # template labels are known values
        Requirements.of({"key": "workload", "operator": "NotIn", "values": ["batch"]}),
        Requirements.of({"key": "workload", "operator": "DoesNotExist"}),
        Requirements.from_node_selector({GPU_NAME: "h100"}),  # well-known, undefined on the pool: allowed
        Requirements.from_node_selector({"kubernetes.io/arch": "arm64"}),
    ]
    for pod in ok:
        assert pool.compatible(pod, allow_undefined=allow) == [], pod
    bad = Requirements.from_node_selector({"team": "web"})
    (conflict,) = pool.compatible(bad, allow_undefined=allow)
    assert conflict.message == "key team, team In [web] not in team In [ml]"
    exists = Requirements.of({"key": "workload", "operator": "Exists"})
    assert pool.compatible(exists, allow_undefined=allow) == [UnknownLabel("workload")]
    # a bounded NotIn still reads as NotIn upstream, so it is exempt from the unknown-label check
    bounded = Requirements.of(
        {"key": "slots", "operator": "NotIn", "values": ["3"]},
        {"key": "slots", "operator": "Gt", "values": ["1"]},
    )
    assert pool.compatible(bounded, allow_undefined=allow) == []


def test_compatible_reports_every_unknown_label_then_the_conflicts() -> None:
    pool = Requirements.of({"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]})
    pod = Requirements.from_node_selector({"zeta": "1", "alpha": "2", "kubernetes.io/arch": "arm64"})
    incompat = pool.compatible(pod, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert [type(i).__name__ for i in incompat] == ["UnknownLabel", "UnknownLabel", "Conflict"]
    assert [i.key for i in incompat] == ["alpha", "zeta", "kubernetes.io/arch"]


def test_label_hint() -> None:
    # Auto Mode key used against self-managed Karpenter: the suffix matches the AWS well-known label
    allow = CORE_WELL_KNOWN_LABELS | {GPU_NAME}
    key = "eks.amazonaws.com/instance-gpu-name"
    assert label_hint([], key, allow) == GPU_NAME
    assert UnknownLabel(key, GPU_NAME).message == (
        'label "eks.amazonaws.com/instance-gpu-name" does not have known values '
        '(typo of "karpenter.k8s.aws/instance-gpu-name"?)'
    )
    pool = Requirements()
    (unknown,) = pool.compatible(Requirements.from_node_selector({key: "l4"}), allow_undefined=allow)
    assert unknown == UnknownLabel(key, GPU_NAME)
    assert label_hint([], "nodepool", CORE_WELL_KNOWN_LABELS) == "karpenter.sh/nodepool"  # contained
    # an existing (NodePool) key with the same suffix
    assert label_hint(["example.com/team"], "other.io/team", frozenset()) == "example.com/team"
    assert label_hint([], "nvidia.com/gpu.present", allow) is None


def test_normalized_keys_in_compatibility() -> None:
    pool = Requirements.of({"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]})
    pod = Requirements.from_node_selector({"beta.kubernetes.io/arch": "arm64"})
    (conflict,) = pool.compatible(pod, allow_undefined=CORE_WELL_KNOWN_LABELS)
    assert conflict.key == "kubernetes.io/arch"


def test_auto_mode_general_purpose_vs_gpu_pod() -> None:
    # EKS-FACTS §3.2 built-in general-purpose pool
    pool = nodepool_requirements(
        "general-purpose",
        [
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
            {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["c", "m", "r"]},
            {"key": "eks.amazonaws.com/instance-generation", "operator": "Gt", "values": ["4"]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
            {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        ],
        node_class_label=("eks.amazonaws.com/nodeclass", "default"),
    )
    assert pool.get("eks.amazonaws.com/nodeclass") == r("In", "default", key="eks.amazonaws.com/nodeclass")
    allow = CORE_WELL_KNOWN_LABELS | {
        "eks.amazonaws.com/instance-category",
        "eks.amazonaws.com/instance-generation",
        "eks.amazonaws.com/instance-gpu-name",
    }
    pod = Requirements.of(
        {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["g", "p"]}
    )
    (conflict,) = pool.compatible(pod, allow_undefined=allow)
    assert conflict.message == (
        "key eks.amazonaws.com/instance-category, eks.amazonaws.com/instance-category In [g p] "
        "not in eks.amazonaws.com/instance-category In [c m r]"
    )
    old = Requirements.of({"key": "eks.amazonaws.com/instance-generation", "operator": "Lt", "values": ["5"]})
    (conflict,) = pool.compatible(old, allow_undefined=allow)
    assert isinstance(conflict, Conflict)
    assert conflict.summary == "key eks.amazonaws.com/instance-generation, Exists <=4 not in Exists >=5"
    gpu = Requirements.from_node_selector({"eks.amazonaws.com/instance-gpu-name": "l40s"})
    assert pool.compatible(gpu, allow_undefined=allow) == []  # fails later, on instance types
    combined = pool.intersection(gpu)
    category = combined.get("eks.amazonaws.com/instance-category")
    assert category is not None
    assert not category.matches_value("g")  # a g6e (l40s) is not in the pool's c/m/r
    assert category.matches_value("c")
    assert combined.get("eks.amazonaws.com/instance-gpu-name") == r(
        "In", "l40s", key="eks.amazonaws.com/instance-gpu-name"
    )


@pytest.mark.parametrize(
    ("req", "labels", "expected"),
    [
        (r("In", "a", "b"), {K: "a"}, True),
        (r("In", "a", "b"), {K: "c"}, False),
        (r("In", "a", "b"), {}, False),
        (r("NotIn", "a"), {}, True),
        (r("NotIn", "a"), {K: "a"}, False),
        (r("NotIn", "a"), {K: "b"}, True),
        (r("Exists"), {K: ""}, True),
        (r("Exists"), {}, False),
        (r("DoesNotExist"), {}, True),
        (r("DoesNotExist"), {K: "x"}, False),
        (r("Gt", "4"), {K: "5"}, True),
        (r("Gt", "4"), {K: "4"}, False),
        (r("Gt", "4"), {K: "05"}, True),
        (r("Gt", "4"), {K: "five"}, False),
        (r("Gt", "4"), {}, False),
        (r("Lt", "4"), {K: "3"}, True),
        (r("Lt", "4"), {K: "4"}, False),
        (r("Lt", "4"), {K: "-7"}, True),
        (r("Gte", "4"), {K: "4"}, True),
        (r("Lte", "4"), {K: "4"}, True),
        (r("Lte", "4"), {K: "4.0"}, False),
        (r("Gt", "4").intersection(r("NotIn", "7")), {K: "7"}, False),
        (r("Gt", "4").intersection(r("NotIn", "7")), {K: "8"}, True),
        (r("Gt", "4").intersection(r("NotIn", "7")), {}, False),  # bounds need the label
    ],
)
def test_matches_value(req: NormalizedRequirement, labels: dict[str, str], expected: bool) -> None:
    assert req.matches_value(labels.get(K)) is expected


def test_requirements_value_semantics() -> None:
    a = Requirements.from_node_selector({"x": "1", "y": "2"})
    b = Requirements.of(Requirement("y", "In", ("2",)), Requirement("x", "In", ("1",)))
    assert a == b
    assert hash(a) == hash(b)
    assert len(a) == 2
    assert set(a.keys()) == {"x", "y"}
    assert "x" in a
    assert a.get("z") is None
    assert not Requirements()
    assert a.get("x") == r("In", "1", key="x")
    assert "Requirements(" in repr(a)
