"""The instance-type answer of a pool for a pod is shared by every pod requirement that admits the same types
(`PoolTarget._interned`), and sharing it changes no evaluation.

Each Pending pod of a scenario is copied with selectors that change no pool's instance types (a label no
type has, the capacity type) and with one that does (an instance family): every pool is evaluated for every
copy once with one memo for all, as the analysis does, and once with a fresh memo per pool and shape (nothing
shared). The evaluations must be equal, and the selectors that admit the same types must share one computed
answer.
"""

from __future__ import annotations

import copy

import pytest

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape, shape_of
from kubectl_gpu.core.analyses.pending.targets.pools.memo import PoolMemo
from kubectl_gpu.core.analyses.pending.targets.pools.target import PoolTarget
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from tests.core.analyses.pending._scenarios import NOW, Obj, catalog, items, state_of

SELECTORS: tuple[dict[str, str], ...] = (
    {},
    {"team": "a"},
    {"team": "b"},
    {"karpenter.sh/capacity-type": "on-demand"},
    {"eks.amazonaws.com/instance-family": "g5"},
    {"karpenter.k8s.aws/instance-family": "p5"},
)


def _objects(name: str) -> list[Obj]:
    objects = items(name)
    copies = []
    for obj in objects:
        if obj["kind"] != "Pod" or obj.get("status", {}).get("phase") != "Pending":
            continue
        for number, selector in enumerate(SELECTORS):
            pod = copy.deepcopy(obj)
            pod["metadata"].update(name=f"{obj['metadata']['name']}-sel{number}", uid=f"uid-sel{number}")
            pod["spec"]["nodeSelector"] = {**pod["spec"].get("nodeSelector", {}), **selector}
            copies.append(pod)
    return objects + copies


def _targets(state: ClusterState, memo: PoolMemo | None) -> list[PoolTarget]:
    index = InstanceIndex(catalog(), cluster_provider(state))
    return [PoolTarget(p, state, catalog(), index, NOW, memo) for p in state.nodepools]


def _shapes(state: ClusterState) -> list[PodShape]:
    return [shape_of(p) for p in state.pods if p.phase == "Pending"]


@pytest.mark.parametrize("name", ["automode-gpu", "automode-capacity", "karpenter-gpu"])
def test_shared_fit_answers_give_the_evaluations_of_nothing_shared(name: str) -> None:
    state = state_of(_objects(name))
    shapes = _shapes(state)
    targets = _targets(state, PoolMemo())  # one memo for every pool and shape, as the analysis has
    compared = 0
    for shape in shapes:
        for number, target in enumerate(targets):
            alone = _targets(state, PoolMemo())[number].evaluate(shape)
            assert target.evaluate(shape) == alone, (shape.node_selector, alone.target)
            compared += 1
    assert compared > 30


def _evaluated_alike() -> tuple[PoolMemo, list[PodShape]]:
    """The first pool evaluated for every accelerator shape that requests what the first does (the copies
    with other selectors among them); its memo and those shapes."""
    state = state_of(_objects("automode-gpu"))
    memo = PoolMemo()
    target = _targets(state, memo)[0]
    shapes = [s for s in _shapes(state) if s.wants_accelerator]
    alike = [s for s in shapes if s.requests == shapes[0].requests]
    for shape in alike:
        target.evaluate(shape)
    return memo, alike


def test_selectors_that_admit_the_same_types_share_one_answer() -> None:
    memo, alike = _evaluated_alike()
    assert len({tuple(sorted(s.node_selector.items())) for s in alike}) >= len(SELECTORS)
    answers = [k for k in memo._shared if isinstance(k, tuple) and k[0] == "instance blockers"]
    fits = [k for k in memo._shared if isinstance(k, tuple) and k[0] == "fit"]
    # one fit per pod requirement; the label no type has, the capacity type and none share one answer
    assert len(answers) < len(fits)


def test_requirements_that_admit_the_same_types_compute_their_fit_once() -> None:
    """Which types fit and the check are computed once per admitted types (and the keys the catalog may not
    know), not once per pod requirement."""
    memo, _ = _evaluated_alike()
    fits = [k for k in memo._shared if isinstance(k, tuple) and k[0] == "fit"]
    computed = [k for k in memo._shared if isinstance(k, tuple) and k[0] == "fits"]
    assert 0 < len(computed) < len(fits)
