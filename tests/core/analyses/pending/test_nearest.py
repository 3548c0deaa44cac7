"""Issue 11 item 9: the nearest target. A target that fails only on the pod's own nodeSelector or affinity
ranks below the target the pod points at, whatever their names and weights.

Built from Karpenter's own case, `suite_test.go` "Weighted NodePools": "should schedule to explicitly
selected nodepool even if other nodePools are higher priority" (kubernetes-sigs/karpenter
pkg/controllers/provisioning/scheduling/suite_test.go): three NodePools, unweighted, weight 20 and weight
100, and a pod whose nodeSelector names the unweighted one. Karpenter launches from the selected pool;
when that pool has a blocker of its own (here a taint the pod does not tolerate), that blocker is the answer,
not the selector conflict of a heavier pool the pod never meant."""

from __future__ import annotations

import copy
from typing import Any

from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.analyses.pending.ranking import excluded_by_pod, nearness
from tests.core.analyses.pending._scenarios import Obj, analyse, diagnosis, items

TAINT = {"key": "dedicated", "value": "research", "effect": "NoSchedule"}


def _base() -> tuple[list[Obj], Obj]:
    objects = [o for o in items("karpenter-gpu") if o["kind"] in ("EC2NodeClass",)]
    gpu = next(
        o for o in items("karpenter-gpu") if o["kind"] == "NodePool" and o["metadata"]["name"] == "gpu"
    )
    spec = gpu["spec"]["template"]["spec"]
    spec["taints"] = []
    gpu.pop("status", None)
    gpu["spec"].pop("limits", None)
    gpu["spec"].pop("weight", None)
    return objects, gpu


def _pool(template: Obj, name: str, weight: int | None = None, **changes: Any) -> Obj:
    pool = copy.deepcopy(template)
    pool["metadata"] = {"name": name}
    if weight is not None:
        pool["spec"]["weight"] = weight
    pool["spec"]["template"]["spec"].update(changes)
    return pool


def _pod(node_selector: dict[str, str]) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "job", "namespace": "t", "uid": "uid-job"},
        "spec": {
            "schedulerName": "default-scheduler",
            "nodeSelector": node_selector,
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        },
        "status": {"phase": "Pending"},
    }


def _nearest(objects: list[Obj]) -> tuple[Verdict, str | None, list[str]]:
    diag = diagnosis(analyse(objects), "t/job")
    return (
        diag.verdict,
        diag.nearest.name if diag.nearest else None,
        [e.target.name for e in diag.evaluations],
    )


def test_the_explicitly_selected_nodepool_is_nearest_even_if_others_weigh_more() -> None:
    objects, gpu = _base()
    objects += [
        _pool(gpu, "zz-targeted", taints=[TAINT]),  # sorts last by name, no weight
        _pool(gpu, "weight-20", 20),
        _pool(gpu, "weight-100", 100),
        _pod({"karpenter.sh/nodepool": "zz-targeted"}),
    ]
    verdict, nearest, order = _nearest(objects)
    assert (verdict, nearest) == (Verdict.MISSING_TOLERATION, "zz-targeted")
    assert order == ["zz-targeted", "weight-100", "weight-20"]  # the excluded ones keep Karpenter's order


def test_a_pool_the_pod_excludes_by_instance_family_does_not_win_on_weight() -> None:
    objects, gpu = _base()
    family = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}]
    objects += [
        _pool(
            gpu, "heavy-g5", 100, requirements=gpu["spec"]["template"]["spec"]["requirements"][:3] + family
        ),
        _pool(gpu, "light", 10, taints=[TAINT]),
        _pod({"karpenter.k8s.aws/instance-family": "g6e"}),
    ]
    verdict, nearest, _ = _nearest(objects)
    assert (verdict, nearest) == (Verdict.MISSING_TOLERATION, "light")


def test_a_pool_the_pod_excludes_without_a_shared_key_does_not_win_on_name() -> None:
    """The pod selects p5; pool `a-any-g` (no family requirement) admits no p5: NO_INSTANCE_TYPE_FITS through
    the pod's own selector, which ranks below pool `b-p5`'s own taint."""
    objects, gpu = _base()
    reqs = [r for r in gpu["spec"]["template"]["spec"]["requirements"] if "family" not in r["key"]]
    reqs = [r for r in reqs if "size" not in r["key"]]
    p_reqs = [
        {**r, "values": ["p"]} if r["key"].endswith("instance-category") else r
        for r in reqs
        if not r["key"].endswith("hypervisor")
    ]
    objects += [
        _pool(gpu, "a-any-g", requirements=reqs),
        _pool(gpu, "b-p5", requirements=p_reqs, taints=[TAINT]),
        _pod({"karpenter.k8s.aws/instance-family": "p5"}),
    ]
    diag = diagnosis(analyse(objects), "t/job")
    first, second = diag.evaluations[0], diag.evaluations[1]
    assert (diag.verdict, diag.nearest and diag.nearest.name) == (Verdict.MISSING_TOLERATION, "b-p5")
    assert excluded_by_pod(second) and not excluded_by_pod(first)
    assert second.blockers[0].code is Verdict.NO_INSTANCE_TYPE_FITS
    assert nearness(first) < nearness(second)


def test_without_a_selector_weight_still_decides() -> None:
    """Karpenter's "should schedule to the nodepool with the highest priority always": no selector, equal
    blockers, the heaviest pool is nearest."""
    objects, gpu = _base()
    objects += [
        _pool(gpu, "a", taints=[TAINT]),
        _pool(gpu, "b", 20, taints=[TAINT]),
        _pool(gpu, "c", 100, taints=[TAINT]),
        _pod({}),
    ]
    assert _nearest(objects)[1] == "c"
