"""NodePools that fit alike share their per-shape work (pool_groups.py), and sharing changes no answer.

Each case copies the `gpu` NodePool of the automode-gpu scenario, changes one scheduling field of the copy
(or none), and evaluates every Pending pod of the scenario against both: once with the pools sharing one
`PoolMemo`, as the analysis does, and once with a memo per pool (no sharing, the way it was before). The two
must give equal evaluations for every pod, and the copy joins the original's groups exactly when nothing that
the group signature covers differs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.analyses.pending.pod.shape import shape_of
from kubectl_gpu.core.analyses.pending.ranking import TargetEvaluation
from kubectl_gpu.core.analyses.pending.targets.pools.memo import PoolMemo
from kubectl_gpu.core.analyses.pending.targets.pools.target import PoolTarget
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from tests.core.analyses.pending._scenarios import NOW, Obj, analyse, catalog, find, items, state_of

COPY = "gpu-copy"


def _spec(pool: Obj) -> Any:
    return pool["spec"]["template"]["spec"]


def _family(pool: Obj, *families: str) -> None:
    reqs = _spec(pool)["requirements"]
    for req in reqs:
        if req["key"] == "eks.amazonaws.com/instance-family":
            req["values"] = list(families)


def _label(pool: Obj) -> None:
    pool["spec"]["template"]["metadata"] = {"labels": {"team": "research"}}


def _node_class(pool: Obj) -> None:
    _spec(pool)["nodeClassRef"]["name"] = "gpu-class"  # not in the data: ephemeral storage unknown


def _taint(pool: Obj) -> None:
    _spec(pool)["taints"] = [{"key": "dedicated", "value": "research", "effect": "NoSchedule"}]


def _limits(pool: Obj) -> None:
    pool["spec"]["limits"] = {"nvidia.com/gpu": "0"}


def _weight(pool: Obj) -> None:
    pool["spec"]["weight"] = 50


# (case, change to the copy, same fit group, same requirement group)
CASES: list[tuple[str, Callable[[Obj], None], bool, bool]] = [
    ("identical", lambda pool: None, True, True),
    ("instance family", lambda pool: _family(pool, "p5"), False, False),
    ("template label", _label, True, False),  # the label is a requirement; the same types fit
    ("nodeClassRef", _node_class, False, False),
    ("taints", _taint, True, True),  # taints are judged per pool (and no DaemonSet here tells them apart)
    ("limits", _limits, True, True),  # limits are judged per pool
    ("weight", _weight, True, True),  # weight is per pool
]


def _objects(change: Callable[[Obj], None]) -> list[Obj]:
    objects = items("automode-gpu")
    pool = copy.deepcopy(find(objects, "NodePool", "gpu"))
    pool["metadata"]["name"] = COPY
    change(pool)
    objects.append(pool)
    # A pod that selects a NodePool by name: its answer depends on the pool's name, never shared.
    named = copy.deepcopy(find(objects, "Pod", "wrong-value"))
    named["metadata"].update(name="named-pool", uid="uid-named-pool")
    named["spec"]["nodeSelector"] = {"karpenter.sh/nodepool": "gpu"}
    named["spec"]["tolerations"] = [{"operator": "Exists"}]
    objects.append(named)
    return objects


def _targets(objects: list[Obj], shared: bool) -> tuple[PoolMemo, dict[str, PoolTarget]]:
    state = state_of(objects)
    index = InstanceIndex(catalog(), "auto")
    memo = PoolMemo()
    targets = {
        p.name: PoolTarget(p, state, catalog(), index, NOW, memo if shared else None) for p in state.nodepools
    }
    return memo, targets


def _evaluations(objects: list[Obj], shared: bool) -> dict[tuple[str, str], TargetEvaluation]:
    _, targets = _targets(objects, shared)
    state = state_of(objects)
    out = {}
    for pod in state.pods:
        if pod.phase != "Pending":
            continue
        shape = shape_of(pod)
        for name, target in targets.items():
            out[(pod.name, name)] = target.evaluate(shape)
    return out


@pytest.mark.parametrize(("case", "change", "same_fit", "same_reqs"), CASES, ids=[c for c, *_ in CASES])
def test_sharing_gives_the_evaluations_of_one_pool_at_a_time(
    case: str, change: Callable[[Obj], None], same_fit: bool, same_reqs: bool
) -> None:
    objects = _objects(change)
    alone = _evaluations(objects, shared=False)
    together = _evaluations(objects, shared=True)
    assert together.keys() == alone.keys()
    assert len(alone) > 20
    for key, evaluation in alone.items():
        assert together[key] == evaluation, key


@pytest.mark.parametrize(("case", "change", "same_fit", "same_reqs"), CASES, ids=[c for c, *_ in CASES])
def test_pools_join_a_group_only_when_their_scheduling_content_is_equal(
    case: str, change: Callable[[Obj], None], same_fit: bool, same_reqs: bool
) -> None:
    _, targets = _targets(_objects(change), shared=True)
    original, other = targets["gpu"], targets[COPY]
    assert (original.group == other.group) is same_fit
    assert (original.requirement_group == other.requirement_group) is same_reqs


def test_one_evaluation_per_group_and_shape() -> None:
    objects = _objects(lambda pool: None)
    memo, targets = _targets(objects, shared=True)
    pod = next(p for p in state_of(objects).pods if p.name == "wrong-value")
    shape = shape_of(pod)
    targets["gpu"].evaluate(shape)
    before = memo.computed
    copied = targets[COPY].evaluate(shape)
    assert memo.computed == before  # the copy reused the term, its incompatibilities and the instance fit
    assert copied.target.name == COPY and copied.fitting_types
    named = next(p for p in state_of(objects).pods if p.name == "named-pool")
    named_shape = shape_of(named)
    targets["gpu"].evaluate(named_shape)
    before = memo.computed
    targets[COPY].evaluate(named_shape)
    # A pod that names NodePools: what depends on the copy's term is its own (the term, its compatibility
    # with the pod's requirements, which reads the copy's own name, the requirement blockers, their words and
    # their interned answer, the template for the shape and the one it is interned as); the fit of its types
    # is still shared, and so are the instance blockers, which read the term only through that fit. The
    # node's requirements are not made: no check of this pod reads them (no minValues, placement, volumes).
    assert memo.computed == before + 7


def test_the_analysis_names_each_pool_in_its_own_blockers() -> None:
    report = analyse(_objects(_limits))
    found = {
        (e.target.name, str(b.code), b.message)
        for d in report.pods
        for e in d.evaluations
        for b in e.blockers
        if e.target.name in ("gpu", COPY)
    }
    limited = {m for name, code, m in found if code == Verdict.NODEPOOL_LIMIT_REACHED}
    assert limited and all(f"NodePool {COPY} " in m for m in limited)
    assert any(name == "gpu" and "NodePool gpu " in m for name, _, m in found)
    assert not any(name == "gpu" and COPY in m for name, _, m in found)


def _selector_variants() -> list[Obj]:
    """The scenario with copies of `many-gpus` that differ only in a nodeSelector: two the `gpu` pool
    answers as it answers none (it requires both already), one it rules out (it launches on-demand only)."""
    objects = items("automode-gpu")
    base = find(objects, "Pod", "many-gpus")
    for name, selector in (
        ("arch-amd64", {"kubernetes.io/arch": "amd64"}),
        ("on-demand", {"karpenter.sh/capacity-type": "on-demand"}),
        ("spot", {"karpenter.sh/capacity-type": "spot"}),
    ):
        twin = copy.deepcopy(base)
        twin["metadata"].update(name=name, uid=f"uid-{name}")
        twin["spec"]["nodeSelector"] = selector
        objects.append(twin)
    return objects


def test_shapes_a_pool_answers_alike_share_its_template_and_entries() -> None:
    from kubectl_gpu.core.analyses.pending.analysis import _Analyser

    state = state_of(_selector_variants())
    analyser = _Analyser(state, catalog(), NOW)
    pods = {p.name: p for p in state.pods}

    def gpu_entry(name: str) -> Any:
        entries = analyser.kinds.entries(shape_of(pods[name]))
        return next(e for e in entries if any(m.pool.name == "gpu" for _, m in e.members))

    plain, amd64, on_demand, spot = (gpu_entry(n) for n in ("many-gpus", "arch-amd64", "on-demand", "spot"))
    assert amd64 is plain and on_demand is plain  # one entry, and so one template, for the three shapes
    assert spot is not plain and spot.sample.template is not plain.sample.template
    assert Verdict.REQUIREMENT_CONFLICT in spot.sample.code_set
    assert Verdict.REQUIREMENT_CONFLICT not in plain.sample.code_set


def test_shared_templates_answer_as_one_shape_alone_does() -> None:
    """Every pod's answer in one analysis (templates shared across its shapes) is the one it gets analysed on
    its own (one shape: nothing shared with another)."""
    from kubectl_gpu.core.analyses.pending import analyse_pending

    for objects in (_selector_variants(), *(items(n) for n in ("automode-capacity", "karpenter-gpu"))):
        state = state_of(objects)
        together = analyse_pending(state, catalog(), NOW, all_pending=True)
        assert len(together.pods) > 5
        for diag in together.pods:
            pod = next(p for p in state.pods if (p.namespace, p.name) == (diag.namespace, diag.name))
            alone = analyse_pending(state, catalog(), NOW, all_pending=True, pods=[pod]).pods[0]
            assert (diag.verdict, diag.reason, diag.fix, diag.fix_check) == (
                alone.verdict,
                alone.reason,
                alone.fix,
                alone.fix_check,
            ), diag.key
            assert diag.evaluations == alone.evaluations, diag.key


def test_a_plain_template_is_the_one_the_evaluation_finds() -> None:
    """`PoolTarget.plain_template` reads and stores by the evaluation's own keys: whichever of it and `template`
    asks first for a kind and shape, both give the very same object; where other shapes found every part
    first, it computes nothing."""
    from kubectl_gpu.core.analyses.pending.analysis import _Analyser

    nothing_computed = 0
    scenarios = (
        _selector_variants(),
        _other_tolerations(),
        *(items(n) for n in ("automode-capacity", "karpenter-gpu")),
    )
    for objects in scenarios:
        state = state_of(objects)
        analyser = _Analyser(state, catalog(), NOW)
        kinds = [k for k in analyser.kinds.kinds if k.simple]
        assert kinds
        memo = kinds[0].stand_in.memo
        for n, pod in enumerate(state.pods):
            shape = shape_of(pod)
            if shape.requirements is None or shape.placement:
                continue
            for number, kind in enumerate(analyser.kinds.kinds):
                if not kind.simple:
                    continue
                computed = memo.computed
                if (n + number) % 2:
                    plain = kind.stand_in.plain_template(memo.ids(shape))
                    nothing_computed += memo.computed == computed
                    made = kind.stand_in.template(shape, ("kind", number))
                else:
                    made = kind.stand_in.template(shape, ("kind", number))
                    plain = kind.stand_in.plain_template(memo.ids(shape))
                assert plain is made, (pod.name, number)
    assert nothing_computed > 0  # shapes that other shapes answered first: the path is taken


def _other_tolerations() -> list[Obj]:
    """The scenario with copies of `many-gpus` that differ only in a toleration no pool's taint matches: the
    same templates, found by another shape first; twice more with a preferred node affinity (Karpenter relaxes
    such a pod, so its answers are kept per requests too), and two whose preference only one of them meets."""
    objects = items("automode-gpu")
    base = find(objects, "Pod", "many-gpus")
    preferred = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 1,
                    "preference": {
                        "matchExpressions": [
                            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}
                        ]
                    },
                }
            ]
        }
    }
    for n in range(4):
        twin = copy.deepcopy(base)
        twin["metadata"].update(name=f"tolerating-{n}", uid=f"uid-tolerating-{n}")
        extra = {"key": f"example.com/other-{n % 2}", "operator": "Exists", "effect": "NoSchedule"}
        twin["spec"]["tolerations"] = [*twin["spec"].get("tolerations", []), extra]
        if n >= 2:
            twin["spec"]["affinity"] = preferred
        objects.append(twin)
    # Two that prefer a 1-GPU type: with 1 GPU requested the preference holds on the gpu pool, with 4 only
    # Karpenter's relaxed attempt fits (the same selectors, another attempt: the term is kept per requests)
    one_gpu = {"key": "eks.amazonaws.com/instance-gpu-count", "operator": "In", "values": ["1"]}
    for gpus in ("1", "4"):
        twin = copy.deepcopy(base)
        twin["metadata"].update(name=f"prefers-one-{gpus}", uid=f"uid-prefers-one-{gpus}")
        twin["spec"]["tolerations"] = [{"operator": "Exists", "key": k} for k in ("nvidia.com/gpu", "workload")]
        twin["spec"]["affinity"] = {
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {"matchExpressions": [one_gpu]}}
                ]
            }
        }
        twin["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = gpus
        objects.append(twin)
    return objects


def test_a_conflict_is_worded_once_for_every_pod_that_has_it() -> None:
    """Pods that select a capacity type the pool rules out, each in another zone (which the pool does not
    constrain): their requirements differ, so does each one's term, but the conflict is one and so are its
    words (and the blockers: one object)."""
    objects = items("automode-gpu")
    base = find(objects, "Pod", "spot-only")
    for n, zone in enumerate(("us-west-2a", "us-west-2b", "us-west-2c")):
        pod = copy.deepcopy(base)
        pod["metadata"].update(name=f"spot-{zone}", uid=f"uid-spot-{n}")
        pod["spec"]["nodeSelector"] = {"karpenter.sh/capacity-type": "spot", "topology.kubernetes.io/zone": zone}
        objects.append(pod)
    memo, targets = _targets(objects, shared=True)
    pods = [p for p in state_of(objects).pods if p.name.startswith("spot-us")]
    evaluations = [targets["gpu"].evaluate(shape_of(pod)) for pod in pods]
    conflicts = [b for e in evaluations for b in e.blockers if b.code == Verdict.REQUIREMENT_CONFLICT]
    assert len(conflicts) == 3 and len({b.message for b in conflicts}) == 1
    assert "karpenter.sh/capacity-type" in conflicts[0].message
    terms = [k for k in memo.known if isinstance(k, tuple) and k[0] == "term"]
    words = [k for k in memo.known if isinstance(k, tuple) and k[0] == "conflict words"]
    assert len(terms) == 3 and len(words) == 1
