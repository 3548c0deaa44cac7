"""unnamed.py: shapes that name a NodePool by nodeSelector share the stand-ins' templates for ranking.

The reference is the analysis with `share_unnamed=False`, which evaluates each such shape against every kind
on its own: the shared evaluation must give the same report and the same evaluations, target by target, on
the real scenarios and the demo bundle, whichever pools their Pending pods name.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import PendingReport, analyse_pending
from kubectl_gpu.core.analyses.pending.targets.pools import kinds as pool_kinds
from kubectl_gpu.core.analyses.pending.targets.pools.memo import NODEPOOL
from kubectl_gpu.core.analyses.pending.targets.pools.unnamed import OTHER_POOL
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.analyses.pending._scenarios import NAMES, NOW, Obj, catalog, items, state_of
from tests.core.analyses.pending.test_ranking import extra_pools
from tests.core.analyses.pending.test_shapes import DEMO, DEMO_NOW


def _pending(objects: list[Obj]) -> list[Obj]:
    return [o for o in objects if o["kind"] == "Pod" and o["status"].get("phase") == "Pending"]


def _pools(objects: list[Obj]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objects if o["kind"] == "NodePool")


def _naming(objects: list[Obj], names: list[str | None]) -> list[Obj]:
    """Each Pending pod, once per name: a replica (its own name and uid) that selects that NodePool."""
    out = []
    for number, original in enumerate(_pending(objects)):
        for i, name in enumerate(names):
            pod = copy.deepcopy(original)
            pod["metadata"]["name"] = f"{original['metadata']['name']}-n{number}-{i}"
            pod["metadata"]["uid"] = f"{pod['metadata'].get('uid', 'u')}-n{number}-{i}"
            selector = pod["spec"].setdefault("nodeSelector", {})
            if name is None:
                selector.pop(NODEPOOL, None)
            else:
                selector[NODEPOOL] = name
            out.append(pod)
    return out


def _reports(state: ClusterState, now: datetime) -> tuple[PendingReport, PendingReport]:
    shared = analyse_pending(state, catalog(), now, all_pending=True)
    alone = analyse_pending(state, catalog(), now, all_pending=True, share_unnamed=False)
    return shared, alone


def _assert_same(shared: PendingReport, alone: PendingReport) -> None:
    assert shared.to_dict() == alone.to_dict()
    assert {d.key: d.evaluations for d in shared.pods} == {d.key: d.evaluations for d in alone.pods}


class _Counted:
    """`unnamed_shape`, counting its calls: one per shape shared by others, not one per shape."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = pool_kinds.unnamed_shape

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.real(*args)


@pytest.mark.parametrize("scenario", [n for n in NAMES if n != "no-karpenter"])
def test_pods_naming_each_pool_get_the_answers_of_shapes_evaluated_one_by_one(
    scenario: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects = items(scenario)
    objects += extra_pools_copies(objects)
    names: list[str | None] = [*_pools(objects), "no-such-pool", OTHER_POOL, None]
    objects += _naming(objects, names)
    counted = _Counted()
    monkeypatch.setattr(pool_kinds, "unnamed_shape", counted)
    shared, alone = _reports(state_of(objects), NOW)
    assert 0 < counted.calls < len(_pending(items(scenario))) * (len(names) - 1)  # it shared, and it ran
    _assert_same(shared, alone)


def extra_pools_copies(objects: list[Obj]) -> list[Obj]:
    """Two more of each NodePool under other names, so that kinds have members a pod does not name."""
    out = []
    for pool in [o for o in objects if o["kind"] == "NodePool"]:
        for i in range(2):
            twin = copy.deepcopy(pool)
            twin["metadata"]["name"] = f"{pool['metadata']['name']}-copy{i}"
            out.append(twin)
    return out


def test_the_demo_bundle_with_pods_naming_its_pools() -> None:
    objects = [dict(o) for o in load_snapshot([DEMO], keep_manifests=True).manifests.values()]
    assert _pending(objects) and _pools(objects)
    objects += _naming(objects, [*_pools(objects), "no-such-pool", None])
    _assert_same(*_reports(state_of(objects), DEMO_NOW))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.data())
def test_shared_unnamed_equals_shape_by_shape_on_random_pools_and_names(
    scenario: str, data: st.DataObject
) -> None:
    objects = items(scenario)
    objects += data.draw(extra_pools(auto=scenario.startswith("automode")))
    pool_names = _pools(objects)
    names = data.draw(
        st.lists(st.sampled_from([*pool_names, "no-such-pool", OTHER_POOL]), min_size=1, max_size=6)
    )
    objects += _naming(objects, names)
    _assert_same(*_reports(state_of(objects), NOW))
