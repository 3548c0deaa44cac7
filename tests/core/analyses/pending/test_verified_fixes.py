"""Verified fixes (issue 20): every fix `pending` offers as verified does what it says.

The check is independent of the machinery that verifies (kubectl_gpu/core/analyses/pending/verify.py): the
fix is applied here to the objects themselves, from its own text (the `tolerations:` or `nodeSelector:` YAML,
the label it names, the NodePool it proposes, the limits it says to raise), the cluster is analysed again,
and the blocker the fix names must be gone from the target it names. Over 25 random clusters of 40 random
pods each: 1,000 pods.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending.verify.verifier import TRIED
from tests.core.analyses.pending._scenarios import NAMES, Obj, analyse, diagnosis, find, items
from tests.core.analyses.pending.test_properties import pods

PODS_PER_CLUSTER = 40
CLUSTERS = 25


def _named(pod: Obj, n: int) -> Obj:
    out = copy.deepcopy(pod)
    out["metadata"] = {**out["metadata"], "name": f"random-{n}", "uid": f"uid-random-{n}"}
    return out


def _drop_key(spec: Obj, key: str) -> None:
    spec.get("nodeSelector", {}).pop(key, None)


def _apply_to_pod(spec: Obj, diag: PodDiagnosis) -> bool:
    """The pod fix of `diag`, made from its own words; False when it is not a fix to the pod."""
    fix = diag.fix or ""
    if fix.startswith("tolerations:"):
        spec.setdefault("tolerations", []).extend(yaml.safe_load(fix)["tolerations"])
        return True
    if fix.startswith("nodeSelector:"):
        was = re.search(r"# was (\S+)", fix)
        assert was is not None, fix
        value = spec.get("nodeSelector", {}).get(was.group(1))
        _drop_key(spec, was.group(1))
        for key, shown in yaml.safe_load(fix)["nodeSelector"].items():
            spec["nodeSelector"][key] = value if value is not None else shown
        return True
    if diag.verdict in (V.UNKNOWN_LABEL, V.REQUIREMENT_CONFLICT):
        key = re.search(r"(?:pod selects label |key )(\S+?)[,\s]", diag.reason)
        assert key is not None, diag.reason
        _drop_key(spec, key.group(1))
        return True
    return False


def _blocker_gone(report: Any, key: str, diag: PodDiagnosis) -> bool:
    after = diagnosis(report, key)
    target = next((e for e in after.evaluations if e.target == diag.nearest), None)
    return target is None or diag.verdict not in {b.code for b in target.blockers}


@pytest.mark.slow
@settings(
    max_examples=CLUSTERS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: 40 pods shrink for minutes
)
@given(st.sampled_from(NAMES), st.lists(pods(), min_size=PODS_PER_CLUSTER, max_size=PODS_PER_CLUSTER))
def test_every_verified_fix_removes_its_blocker(scenario: str, drawn: list[Obj]) -> None:
    base = items(scenario)
    random_pods = [_named(p, n) for n, p in enumerate(drawn)]
    report = analyse([*base, *random_pods], all_pending=True)
    by_key = {p.key: p for p in report.pods}
    changed = copy.deepcopy(random_pods)
    on_pods: list[str] = []
    on_pools: dict[str, list[str]] = defaultdict(list)
    new_pools: list[tuple[str, Obj, list[Obj]]] = []
    for pod in changed:
        key = f"t/{pod['metadata']['name']}"
        diag = by_key[key]
        check = diag.fix_check
        if check is None or check.verified is None:
            continue
        if check.verified is False:  # never offered as a fix
            assert (diag.fix or "").startswith("no change found"), (key, diag.fix)
            continue
        assert diag.nearest is not None or diag.verdict is V.NO_ACCELERATOR_NODEPOOL
        assert diag.nearest is None or diag.nearest in [e.target for e in diag.evaluations[:TRIED]]
        if diag.verdict is V.NODEPOOL_LIMIT_REACHED:
            assert diag.nearest is not None
            on_pools[diag.nearest.name].append(key)
        elif diag.verdict is V.NO_ACCELERATOR_NODEPOOL:
            text = diag.fix or ""
            manifest = "apiVersion: karpenter.sh/v1" + text.split("apiVersion: karpenter.sh/v1", 1)[1]
            pool = yaml.safe_load(manifest.split("\nand let the pod", 1)[0])
            extra = (
                yaml.safe_load(text.split("tolerate the pool's taint:\n", 1)[1])
                if "tolerate" in text
                else None
            )
            new_pools.append((key, pool, (extra or {}).get("tolerations", [])))
        else:
            assert _apply_to_pod(pod["spec"], diag), (key, diag.verdict, diag.fix)
            on_pods.append(key)
    if on_pods:
        again = analyse([*base, *changed], only=on_pods)
        for key in on_pods:
            assert _blocker_gone(again, key, by_key[key]), (key, by_key[key].verdict, by_key[key].fix)
    for pool, keys in on_pools.items():
        objects = copy.deepcopy([*base, *random_pods])
        find(objects, "NodePool", pool)["spec"].pop("limits", None)
        again = analyse(objects, only=keys)
        for key in keys:
            assert _blocker_gone(again, key, by_key[key]), (key, pool)
    for key, pool, tolerations in new_pools[:3]:  # one new NodePool per analysis: a few suffice
        objects = copy.deepcopy([*base, *random_pods, pool])
        target = next(o for o in objects if o.get("metadata", {}).get("name") == key.split("/", 1)[1])
        target["spec"].setdefault("tolerations", []).extend(tolerations)
        after = diagnosis(analyse(objects, only=[key]), key)
        assert after.verdict is not V.NO_ACCELERATOR_NODEPOOL, (key, after.reason)
        offered = [e.target for e in after.evaluations if e.offers]
        assert any(t.name == pool["metadata"]["name"] for t in offered), (
            key,
            after.verdict,
            offered,
            after.reason,
        )
