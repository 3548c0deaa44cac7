"""Issue 11 round two, item 6: topology spread and required pod (anti-)affinity.

NodePool (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/): topology.go `buildDomainGroups`
(domains: the pools' In values, the offerings' zones) and `countDomains`; topologygroup.go
`nextDomainTopologySpread` (count + self - min <= maxSkew; hostname always fits a new node) and
`domainMinCount` (0 below minDomains), `nextDomainAffinity` (a domain with a selected pod, or any when none is
selected and the pod selects itself); topology_test.go "Zonal" / "Hostname" / "Pod Affinity" / "Pod Anti-Affinity"
cases ("should not violate max-skew when unsat = do not schedule", "should schedule a pod with empty pod
affinity and anti-affinity", "should not schedule pods with affinity to a non-existent pod", "should not
violate pod anti-affinity on zone (inverse)").
Existing node (kube-scheduler plugins): podtopologyspread filtering.go (missing label -> unschedulable,
skew against the minimum over eligible domains), interpodaffinity filtering.go `satisfyPodAffinity`,
`satisfyPodAntiAffinity`, `satisfyExistingPodsAntiAffinity`.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from tests.core.analyses.pending._round_two import add_requirement, check, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import Obj, find, items

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
NODE_A, NODE_B, NODE_C = "i-07fd006840ed07309", "i-02315c7d7643cdee6", "i-0a78dba9f62f5e0e4"  # us-west-2a/b/c


def placed(name: str, node: str, labels: dict[str, str], namespace: str = "t", **spec: Any) -> Obj:
    return gpu_pod(
        name, requests={"cpu": "10m"}, labels=labels, node=node, phase="Running", namespace=namespace, **spec
    )


def spread(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", **extra: Any) -> dict[str, Any]:
    return {
        "topologySpreadConstraints": [
            {
                "maxSkew": skew,
                "topologyKey": key,
                "whenUnsatisfiable": when,
                "labelSelector": {"matchLabels": {"app": "train"}},
                **extra,
            }
        ]
    }


def affinity(key: str, app: str, *, anti: bool = False) -> dict[str, Any]:
    field = "podAntiAffinity" if anti else "podAffinity"
    term = {"topologyKey": key, "labelSelector": {"matchLabels": {"app": app}}}
    return {"affinity": {field: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


def cluster(zones: list[str] | None, *extra: Obj) -> list[Obj]:
    objects = items("automode-gpu")
    if zones is not None:
        add_requirement(objects, "gpu", {"key": ZONE, "operator": "In", "values": zones})
    return [*objects, *extra]


TWO_IN_A = (placed("t1", NODE_A, {"app": "train"}), placed("t2", NODE_A, {"app": "train"}))


def test_zone_spread_that_only_a_crowded_zone_could_take() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread())
    diag = verdict(cluster(["us-west-2a"], *TWO_IN_A, pod))
    assert diag.verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE
    assert "us-west-2a=2" in diag.reason


def test_zone_spread_with_room_in_the_pools_zone() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread())
    diag = verdict(cluster(["us-west-2b"], *TWO_IN_A, pod))
    assert diag.verdict is not V.TOPOLOGY_SPREAD_UNSATISFIABLE
    assert check(diag, "gpu", "topology spread").ok is True


def test_a_larger_max_skew_allows_the_crowded_zone() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread(skew=3))
    assert check(verdict(cluster(["us-west-2a"], *TWO_IN_A, pod)), "gpu", "topology spread").ok is True


def test_unknown_pool_zones_leave_the_spread_unknown() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread())
    diag = verdict(cluster(None, *TWO_IN_A, pod))
    assert check(diag, "gpu", "topology spread").ok is None
    assert diag.verdict is V.UNVERIFIED


def test_nodeclass_subnets_give_the_pools_zones() -> None:
    objects = cluster(None, *TWO_IN_A, gpu_pod(labels={"app": "train"}, **spread()))
    find(objects, "NodeClass", "default").setdefault("status", {})["subnets"] = [
        {"id": "subnet-1", "zone": "us-west-2a"}
    ]
    assert verdict(objects).verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE


def test_schedule_anyway_is_not_checked() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread(when="ScheduleAnyway"))
    diag = verdict(cluster(["us-west-2a"], *TWO_IN_A, pod))
    assert "topology spread" not in [c.name for c in diag.evaluations[0].checks]


def test_hostname_spread_always_fits_a_new_node() -> None:
    pod = gpu_pod(labels={"app": "train"}, **spread(key=HOST))
    assert check(verdict(cluster(["us-west-2a"], *TWO_IN_A, pod)), "gpu", "topology spread").ok is True


@pytest.mark.parametrize(
    ("zones", "blocked"), [(["us-west-2a", "us-west-2b"], True), (["us-west-2a", "us-west-2c"], False)]
)
def test_zone_anti_affinity(zones: list[str], blocked: bool) -> None:
    objects = cluster(
        zones,
        placed("d1", NODE_A, {"app": "db"}),
        placed("d2", NODE_B, {"app": "db"}),
        gpu_pod(**affinity(ZONE, "db", anti=True)),
    )
    diag = verdict(objects)
    assert (diag.verdict is V.POD_AFFINITY_UNSATISFIABLE) is blocked, diag.reason


def test_hostname_affinity_to_a_running_pod_cannot_be_a_new_node() -> None:
    objects = cluster(None, placed("d1", NODE_A, {"app": "db"}), gpu_pod(**affinity(HOST, "db")))
    assert verdict(objects).verdict is V.POD_AFFINITY_UNSATISFIABLE


@pytest.mark.parametrize(("zones", "blocked"), [(["us-west-2b"], True), (["us-west-2a"], False)])
def test_zone_affinity(zones: list[str], blocked: bool) -> None:
    objects = cluster(zones, placed("d1", NODE_A, {"app": "db"}), gpu_pod(**affinity(ZONE, "db")))
    assert (verdict(objects).verdict is V.POD_AFFINITY_UNSATISFIABLE) is blocked


def test_affinity_to_itself_with_no_pod_yet() -> None:
    pod = gpu_pod(labels={"app": "db"}, **affinity(ZONE, "db"))
    assert check(verdict(cluster(["us-west-2b"], pod)), "gpu", "pod affinity").ok is True


def test_affinity_to_a_pod_that_does_not_exist() -> None:
    assert verdict(cluster(None, gpu_pod(**affinity(ZONE, "db")))).verdict is V.POD_AFFINITY_UNSATISFIABLE


def test_a_placed_pods_anti_affinity_excludes_its_zone() -> None:
    guard = placed("guard", NODE_A, {"app": "guard"}, **affinity(ZONE, "train", anti=True))
    objects = cluster(["us-west-2a"], guard, gpu_pod(labels={"app": "train"}))
    diag = verdict(objects)
    assert diag.verdict is V.POD_AFFINITY_UNSATISFIABLE
    assert "t/guard" in diag.reason


# --- existing nodes (kube-scheduler) ---------------------------------------------------------------------


def no_karpenter_t4(**spec: Any) -> Any:
    objects = items("no-karpenter")
    find(objects, "Pod", "t4-inference")["spec"].update(spec)
    # The scenario's nodes carry no hostname label; the kubelet always sets it.
    for node in (o for o in objects if o["kind"] == "Node"):
        node["metadata"]["labels"][HOST] = node["metadata"]["name"]
    return objects


def test_node_without_the_spread_key_fails() -> None:
    diag = verdict(no_karpenter_t4(**spread()), "t4-inference", "serving")
    assert diag.verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE
    assert f"no {ZONE} label" in diag.reason


def test_node_hostname_anti_affinity() -> None:
    objects = no_karpenter_t4(**affinity(HOST, "x", anti=True))
    objects.append(placed("x", "ip-10-0-3-17.ec2.internal", {"app": "x"}, namespace="serving"))
    diag = verdict(objects, "t4-inference", "serving")
    assert diag.verdict is V.POD_AFFINITY_UNSATISFIABLE


@pytest.mark.parametrize(("policy", "blocked"), [("Ignore", True), ("Honor", False)])
def test_node_hostname_spread_skew(policy: str, blocked: bool) -> None:
    objects = no_karpenter_t4(**spread(key=HOST, nodeAffinityPolicy=policy))
    find(objects, "Pod", "t4-inference")["metadata"].setdefault("labels", {})["app"] = "train"
    objects.append(placed("t1", "ip-10-0-3-17.ec2.internal", {"app": "train"}, namespace="serving"))
    diag = verdict(objects, "t4-inference", "serving")
    # ip-10-0-3-17 holds 1. Ignore: every node counts, min 0, 1 + 1 - 0 = 2 > maxSkew 1. Honor (the default):
    # only the nodes the pod's nodeSelector admits (ip-10-0-3-17 alone) count, min 1, skew 1.
    assert (diag.verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE) is blocked
    if blocked:
        assert "skew 2" in diag.reason
