"""The pending analysis' indexes give the plain path's answers (issue 38), on small clusters of the bench's own
shapes (bench/shapes.py: many-pending, pools300, nodeclaims, taints-labels) with three seeds each:

On each, some nodes are tainted or cordoned, some pods tolerate, and DaemonSets add overhead to some pools
(`_stirred`), so that the groups the indexes make are not all one.

* `StateNodes._passing` looks at one target per signature (cordon, taints, what is free of the resources the
  shape asks): it picks exactly the positions the plain `_may_fit`, node by node, picks;
* `fitting_types` shares its answer and `failure` its per-type answers by the types' fit classes
  (`PoolFacts.type_class`) across pools: each equals the plain computation for the pool itself;
* the fit classes of a pool's admitted types are kept once per admitted-types tuple, and the taints a shape
  leaves untolerated once per shape and pools' taints (`PoolMemo.untolerated`): each is the pool's own.
"""

from __future__ import annotations

import copy
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import analysis
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape, shape_of
from kubectl_gpu.core.analyses.pending.targets.nodes.existing import StateNodes, _may_fit
from kubectl_gpu.core.analyses.pending.targets.pools.facts import _fit_check, failure
from kubectl_gpu.core.catalog.loader import load_catalog
from kubectl_gpu.core.scheduling.requirements import Requirements
from kubectl_gpu.core.scheduling.taints import BLOCKING_EFFECTS, PREFER_NO_SCHEDULE, untolerated
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[4]
shapes = load_script(ROOT / "bench" / "shapes.py", "bench_shapes")
NOW = datetime(2026, 11, 28, 9, tzinfo=UTC)
CASES = [
    (shape, seed)
    for shape in ("many-pending", "pools300", "nodeclaims", "taints-labels")
    for seed in (1, 2, 3)
]


TAINTS = [
    {"key": "team", "value": "a", "effect": "NoSchedule"},
    {"key": "team", "value": "b", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "effect": "NoSchedule"},
    {"key": "soft", "effect": "PreferNoSchedule"},
]


def _stirred(items: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The shape with more variety where the indexes group: taints and cordons on some nodes, tolerations on
    some pods, and DaemonSets whose overhead differs by NodePool (so pools' types fit differently)."""
    rng = random.Random(seed)
    pools = [i["metadata"]["name"] for i in items if i["kind"] == "NodePool"]
    gpu_node = next(
        i for i in items if i["kind"] == "Node" and "nvidia.com/gpu" in i["status"]["allocatable"]
    )
    for n in range(10):  # nothing bound on these: alike but for their taints and cordon
        clone = copy.deepcopy(gpu_node)
        clone["metadata"]["name"] = clone["metadata"]["labels"]["kubernetes.io/hostname"] = f"idle-{n}"
        items.append(clone)
    for item in items:
        spec = item.setdefault("spec", {})
        if item["kind"] == "Node":
            if rng.random() < 0.5:
                spec["taints"] = [*spec.get("taints", []), *rng.sample(TAINTS, rng.randint(1, 2))]
            if rng.random() < 0.15:
                spec["unschedulable"] = True
        elif item["kind"] == "Pod" and rng.random() < 0.5:
            spec["tolerations"] = [
                *spec.get("tolerations", []),
                *({"key": t["key"], "operator": "Exists"} for t in rng.sample(TAINTS, rng.randint(1, 3))),
            ]
    for n, pool in enumerate(rng.sample(pools, min(3, len(pools)))):
        container = {
            "name": "agent",
            "image": "agent",
            "resources": {"requests": {"cpu": f"{n + 1}", "memory": "8Gi"}},
        }
        items.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {"name": f"agent-{n}", "namespace": "kube-system"},
                "spec": {
                    "template": {
                        "spec": {
                            "nodeSelector": {"karpenter.sh/nodepool": pool},
                            "tolerations": [{"operator": "Exists"}],
                            "containers": [container],
                        }
                    }
                },
            }
        )
    return items


def _analyser(tmp_path: Path, shape: str, seed: int) -> analysis._Analyser:
    path = tmp_path / f"{shape}-{seed}.json"
    items = _stirred(shapes.build(shape, seed, 12), seed)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return analysis._Analyser(load_snapshot([path]), load_catalog(), NOW)


def _pod_shapes(analyser: analysis._Analyser) -> list[PodShape]:
    pending = [p for p in analyser.state.listed_pods if analysis.in_scope(p, all_pending=True)]
    found: dict[object, PodShape] = {}
    for pod in pending:
        shape = shape_of(pod)
        found.setdefault(shape.key, shape)
    return list(found.values())


@pytest.mark.parametrize(("shape", "seed"), CASES)
def test_state_nodes_by_signature_pass_what_each_node_passes(tmp_path: Path, shape: str, seed: int) -> None:
    analyser = _analyser(tmp_path, shape, seed)
    nodes = analyser.state_nodes
    assert isinstance(nodes, StateNodes)
    pod_shapes = _pod_shapes(analyser)
    assert pod_shapes
    looked = 0
    for pod_shape in pod_shapes:
        for which, (target, positions) in nodes._lists.items():
            plain = [i for i in positions if _may_fit(target(i), pod_shape)]
            assert nodes._passing(which, pod_shape) == plain, (which, pod_shape.key)
            looked += len(positions)
    assert looked > 0


@pytest.mark.parametrize(("shape", "seed"), CASES)
def test_fit_answers_by_type_class_are_each_pools_own(tmp_path: Path, shape: str, seed: int) -> None:
    analyser = _analyser(tmp_path, shape, seed)
    checked = 0
    for pod_shape in _pod_shapes(analyser)[:40]:
        if not pod_shape.wants_accelerator:
            continue
        for pool in analyser.pools:
            reqs = (
                pool._term_requirements(pod_shape) if pod_shape.requirements is not None else Requirements()
            )
            with_pod, fitting, known, check = pool.fitting(pod_shape, reqs)
            plain = tuple(e for e in with_pod if pool.fit.failure(e, pod_shape) is None)
            plain_known = tuple(e for e in plain if not pool.unverified(e, reqs))
            assert fitting == plain and known == plain_known, (pool.pool.name, pod_shape.key)
            assert check == _fit_check(pool, pod_shape, reqs, plain, plain_known)
            for e in with_pod:
                assert failure(pool, e, pod_shape) == pool.fit.failure(e, pod_shape)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize(("shape", "seed"), CASES)
def test_shared_classes_and_untolerated_taints_are_each_pools_own(
    tmp_path: Path, shape: str, seed: int
) -> None:
    analyser = _analyser(tmp_path, shape, seed)
    pod_shapes = _pod_shapes(analyser)[:20]
    checked = 0
    # each shape twice, the others between: the memo's per-shape answers are made again for each
    for pod_shape in [*pod_shapes, *reversed(pod_shapes)]:
        for pool in analyser.pools:
            memo, taints = pool.memo, pool.pool.taints
            for effects in (BLOCKING_EFFECTS, frozenset({PREFER_NO_SCHEDULE})):
                found = memo.untolerated(pod_shape, taints, effects)
                assert found == untolerated(pod_shape.tolerations, taints, effects), (
                    pool.pool.name,
                    pod_shape.key,
                )
            if not pod_shape.wants_accelerator or pod_shape.requirements is None:
                continue
            reqs = pool._term_requirements(pod_shape)
            pool.fitting(pod_shape, reqs)
            # the tuple per fit group that the classes are kept by (not the interned answer's, which any group may hold)
            with_pod = memo._shared[("with pod", pool.group, reqs)]
            classes = memo._shared[("classes", id(with_pod))]
            assert classes == tuple(map(pool.type_class, with_pod)), (pool.pool.name, pod_shape.key)
            checked += 1
    assert checked > 0
