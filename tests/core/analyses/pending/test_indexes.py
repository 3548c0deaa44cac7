"""The pending analysis' indexes give the plain path's answers (issue 38), on small clusters of the bench's own
shapes (bench/shapes.py: many-pending, pools300, nodeclaims, taints-labels) with three seeds each:

On each, some nodes are tainted or cordoned, some pods tolerate, and DaemonSets add overhead to some pools
(`_stirred`), so that the groups the indexes make are not all one.

* `StateNodes._passing` looks at one target per signature (cordon, taints, what is free of the resources the
  shape asks): it picks exactly the positions the plain `may_fit`, node by node, picks;
* `StateNodes._selected` matches selectors by label index (`LabelIndex`): it picks exactly the positions the
  plain selector match (`selects`, kube-scheduler's filter), node by node, picks, for the shapes' own
  selectors and for odd ones added (every operator, absent keys, invalid values, empty and several terms);
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
from kubectl_gpu.core.analyses.pending.targets.nodes.existing import StateNodes
from kubectl_gpu.core.analyses.pending.targets.nodes.selection import may_fit, reads_node_name, selects
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


AFFINITIES: list[dict[str, Any]] = [
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "DoesNotExist"}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "Exists"}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Lt", "values": ["4"]}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "eks.amazonaws.com/instance-gpu-count", "operator": "Gt", "values": ["x"]}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": ["not a value!"]}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": []}]}]},
    {"nodeSelectorTerms": []},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "acme.io/role", "operator": "Exists"}]}]},
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "acme.io/role", "operator": "In", "values": [""]}]}]},
    {"nodeSelectorTerms": [{}, {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]}]},
    {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                                  {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2a", "us-west-2b"]}]},
            {"matchExpressions": [{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6", "p5"]}]},
        ]
    },
]


def _with_affinity(items: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Some Pending pods with one of `AFFINITIES` for their required node affinity, some with a nodeSelector
    on a key no node has or a zone (on top of what the shape gives them); half the nodes with a label whose
    value is empty (a role label)."""
    rng = random.Random(seed)
    for item in items:
        if item["kind"] == "Node" and rng.random() < 0.5:
            item["metadata"]["labels"]["acme.io/role"] = ""
        if item["kind"] != "Pod" or item.get("spec", {}).get("nodeName") or rng.random() < 0.5:
            continue
        spec = item["spec"]
        pick = rng.random()
        if pick < 0.6:
            node = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
            node["requiredDuringSchedulingIgnoredDuringExecution"] = rng.choice(AFFINITIES)
        elif pick < 0.8:
            spec["nodeSelector"] = {**spec.get("nodeSelector", {}), "topology.kubernetes.io/zone": "us-west-2a"}
        else:
            spec["nodeSelector"] = {**spec.get("nodeSelector", {}), "no.such/label": "x"}
    return items


def _analyser(tmp_path: Path, shape: str, seed: int, *, affinity: bool = False) -> analysis._Analyser:
    path = tmp_path / f"{shape}-{seed}.json"
    items = _stirred(shapes.build(shape, seed, 12), seed)
    if affinity:
        items = _with_affinity(items, seed)
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
            plain = [i for i in positions if may_fit(target(i), pod_shape)]
            assert nodes._passing(which, pod_shape) == plain, (which, pod_shape.key)
            looked += len(positions)
    assert looked > 0


@pytest.mark.parametrize(("shape", "seed"), CASES)
def test_state_nodes_by_label_index_select_what_each_node_selects(tmp_path: Path, shape: str, seed: int) -> None:
    analyser = _analyser(tmp_path, shape, seed, affinity=True)
    nodes = analyser.state_nodes
    assert isinstance(nodes, StateNodes)
    pod_shapes = _pod_shapes(analyser)
    with_affinity = [s for s in pod_shapes if s.node_affinity.has_required]
    assert len(with_affinity) >= 5
    matched = 0
    for pod_shape in pod_shapes:
        for which, (target, positions) in nodes._lists.items():
            passing = nodes._passing(which, pod_shape)
            plain = [i for i in passing if selects(pod_shape, target(i).node)]
            assert nodes._selected(which, pod_shape) == plain, (which, pod_shape.key)
            if not reads_node_name(pod_shape):  # the index itself, over every position
                every = [i for i in positions if selects(pod_shape, target(i).node)]
                assert sorted(nodes._labels[which].matching(pod_shape)) == every, (which, pod_shape.key)
                matched += len(every)
    assert matched > 0  # some selector matches some node: not every answer is empty


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
