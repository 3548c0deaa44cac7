"""Issue 37 (round four), causes 1-5: kube-scheduler's own filter plugins and Karpenter's relaxation, each case
translated from the upstream rule or test it follows and citing it.

kubernetes/kubernetes: pkg/scheduler/framework/plugins/{podtopologyspread,noderesources,nodeunschedulable,
nodeports}, pkg/scheduler/util/utils.go, staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity,
staging/src/k8s.io/apimachinery/pkg/labels/selector.go, pkg/apis/core/validation/validation.go.
kubernetes-sigs/karpenter at 2266468104 (pkg/controllers/provisioning/scheduling/{scheduler.go,preferences.go,
topology_test.go}, pkg/controllers/provisioning/provisioner.go, pkg/apis/v1/nodeclaim_validation.go,
pkg/scheduling/hostportusage.go).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending.checks.topology import spread_counts
from kubectl_gpu.core.analyses.pending.pod.shape import shape_of
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.scheduling.affinity import node_matches
from kubectl_gpu.core.scheduling.provisionable import provisioner_rejections, selector_never_matches
from kubectl_gpu.core.scheduling.requirements import label_value_error
from tests.conftest import Result
from tests.core.analyses.pending._round_two import add_requirement, check, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import NOW_TEXT, Obj, find, items, state_of

ZONE = "topology.kubernetes.io/zone"
NODE_A = "i-07fd006840ed07309"  # us-west-2a in ours__automode-gpu
GPU_NODE = "ip-10-0-3-17.ec2.internal"  # ours__no-karpenter: one free nvidia.com/gpu, taint nvidia.com/gpu
OTHER_GPU = "gpu-node-1"  # ours__no-karpenter: seven GPUs, taint dedicated=training:NoExecute
CORDON = "node.kubernetes.io/unschedulable"


def _placed(name: str, node: str, labels: dict[str, str], **spec: Any) -> Obj:
    return gpu_pod(name, requests={"cpu": "10m"}, labels=labels, node=node, phase="Running", **spec)


def _spread() -> dict[str, Any]:
    constraint = {
        "maxSkew": 1,
        "topologyKey": ZONE,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "infer"}},
    }
    return {"topologySpreadConstraints": [constraint]}


def _zone_term(zones: list[str]) -> dict[str, Any]:
    return {"matchExpressions": [{"key": ZONE, "operator": "In", "values": zones}]}


def _node_affinity(
    *, required: list[str] | None = None, preferred: list[str] | None = None
) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    if required:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [_zone_term(required)]
        }
    if preferred:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 100, "preference": _zone_term(preferred)}
        ]
    return affinity


def _cluster(*extra: Obj, zones: tuple[str, ...] = ("us-west-2a", "us-west-2b")) -> list[Obj]:
    objects = items("automode-gpu")
    add_requirement(objects, "gpu", {"key": ZONE, "operator": "In", "values": list(zones)})
    crowded = [_placed(f"i{i}", NODE_A, {"app": "infer"}) for i in range(2)]  # two replicas in us-west-2a
    return [*objects, *crowded, *extra]


# ---- 1. topology spread and preferences ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("required", "preferred", "zones", "blocked"),
    [
        # karpenter topology_test.go "should not limit spread options by preferred node affinity": the preferred
        # zone is the crowded one; Karpenter relaxes the preference (scheduler.go trySchedule, preferences.go
        # Relax removePreferredNodeAffinityTerm) and spreads into us-west-2b.
        (None, ["us-west-2a"], ("us-west-2a", "us-west-2b"), False),
        # the same with a preference for the crowded zone and one the pool does not launch in
        (None, ["us-west-2a", "us-west-2c"], ("us-west-2a", "us-west-2b"), False),
        # karpenter topology_test.go "should limit spread options by required node affinity": the required
        # zones are the pod's domains (us-west-2b is empty, so us-west-2a is over maxSkew) and the pool launches
        # only in us-west-2a: nothing to relax
        (["us-west-2a", "us-west-2b"], None, ("us-west-2a",), True),
        # required allows both zones, preferred the crowded one: the preference goes, us-west-2b is left
        (["us-west-2a", "us-west-2b"], ["us-west-2a"], ("us-west-2a", "us-west-2b"), False),
    ],
    ids=["preferred-crowded", "preferred-elsewhere", "required-crowded", "required-both-preferred-crowded"],
)
def test_a_preferred_node_affinity_does_not_narrow_spread(
    required: list[str] | None, preferred: list[str] | None, zones: tuple[str, ...], blocked: bool
) -> None:
    affinity = _node_affinity(required=required, preferred=preferred)
    pod = gpu_pod(labels={"app": "infer"}, affinity={"nodeAffinity": affinity}, **_spread())
    diag = verdict(_cluster(pod, zones=zones))
    assert (diag.verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE) is blocked, diag.reason
    assert check(diag, "gpu", "topology spread").ok is (not blocked)


def test_a_preferred_zone_against_required_pod_affinity_is_relaxed() -> None:
    """karpenter topology_test.go "should allow violation of a pod affinity preference with a conflicting
    required constraint", here a node preference: the pod must join app=db (us-west-2b) and prefers
    us-west-2a; Karpenter drops the preference and launches in us-west-2b."""
    db = _placed("db", "i-02315c7d7643cdee6", {"app": "db"})  # us-west-2b
    term = {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "db"}}}
    affinity = {
        "nodeAffinity": _node_affinity(preferred=["us-west-2a"]),
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]},
    }
    diag = verdict(_cluster(db, gpu_pod(affinity=affinity)))
    assert diag.verdict is not V.POD_AFFINITY_UNSATISFIABLE, diag.reason
    assert check(diag, "gpu", "pod affinity").ok is True


def test_existing_nodes_count_spread_domains_by_required_affinity_only() -> None:
    """kube-scheduler podtopologyspread common.go / filtering.go calPreFilterState: with nodeAffinityPolicy
    Honor the eligible nodes are those `nodeaffinity.GetRequiredNodeAffinity(pod)` matches (nodeSelector and
    required terms); a preferred term never removes a domain from the count."""
    pod = gpu_pod(
        labels={"app": "infer"},
        affinity={"nodeAffinity": _node_affinity(preferred=["us-west-2a"])},
        **_spread(),
    )
    objects = _cluster(pod)
    state = state_of(objects)
    shape = shape_of(next(p for p in state.pods if p.name == "p"))
    counts = spread_counts(state, shape, shape.placement.spread[0])
    assert counts["us-west-2a"] == 2
    assert {"us-west-2b", "us-west-2c"} <= set(counts)


# ---- 2. every requested resource on existing nodes ----------------------------------------------------------


def _no_karpenter(*extra: Obj, efa_on: str | None = None) -> list[Obj]:
    objects = items("no-karpenter")
    if efa_on:
        find(objects, "Node", efa_on)["status"]["allocatable"]["vpc.amazonaws.com/efa"] = "1"
    return [*objects, *extra]


@pytest.mark.parametrize(
    ("extra", "efa_on", "expected", "text"),
    [
        # noderesources fit_test.go "extended resource allocatable enforced for unknown resource"
        (
            {"vpc.amazonaws.com/efa": "1"},
            None,
            V.INSUFFICIENT_RESOURCES,
            "vpc.amazonaws.com/efa: the node has none",
        ),
        ({"example.com/fpga": "2"}, None, V.INSUFFICIENT_RESOURCES, "example.com/fpga: the node has none"),
        # fit_test.go "hugepages resource allocatable enforced for multiple containers" (none advertised here)
        ({"hugepages-2Mi": "1Gi"}, None, V.INSUFFICIENT_RESOURCES, "hugepages-2Mi: the node has none"),
        # fit_test.go "extended resource allocatable admits": the node advertises it
        ({"vpc.amazonaws.com/efa": "1"}, GPU_NODE, V.NO_BLOCKER_FOUND, "can serve this pod"),
        ({}, None, V.NO_BLOCKER_FOUND, "can serve this pod"),
    ],
    ids=["efa", "any-extended", "hugepages", "efa-advertised", "gpu-only"],
)
def test_existing_nodes_check_every_requested_resource(
    extra: dict[str, str], efa_on: str | None, expected: V, text: str
) -> None:
    pod = gpu_pod(requests={"nvidia.com/gpu": "1", **extra})
    diag = verdict(_no_karpenter(pod, efa_on=efa_on))
    assert diag.verdict is expected, diag.reason
    assert text in diag.reason
    if expected is V.INSUFFICIENT_RESOURCES:
        assert "run the pod on nodes that offer" in (diag.fix or "")


def test_an_in_flight_nodeclaim_without_efa_is_not_waited_for() -> None:
    """Karpenter existingnode.go CanAdd (`resources.Fits` over all the pod's requests): a g5.xlarge in flight
    has no EFA, so an EFA pod does not wait for it."""
    pod = gpu_pod(requests={"nvidia.com/gpu": "1", "vpc.amazonaws.com/efa": "1"})
    diag = verdict([*items("karpenter-gpu"), pod])
    assert diag.verdict is not V.PROVISIONING, diag.reason


# ---- 3. cordoned nodes ----------------------------------------------------------------------------------------


def _cordoned(*extra: Obj, taint: bool = True) -> list[Obj]:
    objects = [
        o
        for o in items("no-karpenter")
        if not (o.get("kind") == "Node" and o["metadata"]["name"] == OTHER_GPU)
    ]
    node = find(objects, "Node", GPU_NODE)
    node["spec"]["unschedulable"] = True
    if taint:  # the node lifecycle controller mirrors the cordon into this taint
        node["spec"].setdefault("taints", []).append({"key": CORDON, "effect": "NoSchedule"})
    return [*objects, *extra]


_TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
_TOLERATE_CORDON = [{"key": CORDON, "operator": "Exists", "effect": "NoSchedule"}]


@pytest.mark.parametrize("taint", [True, False], ids=["with-cordon-taint", "flag-only"])
@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        # node_unschedulable_test.go TestNodeUnschedulable "Does not schedule pod to unschedulable node"
        (_TOLERATE_GPU, V.INSUFFICIENT_ACCELERATOR),
        # TestNodeUnschedulable "Schedule pod with toleration to unschedulable node"
        (_TOLERATE_GPU + _TOLERATE_CORDON, V.NO_BLOCKER_FOUND),
    ],
    ids=["not-tolerated", "tolerated"],
)
def test_a_cordoned_node(tolerations: list[dict[str, Any]], expected: V, taint: bool) -> None:
    diag = verdict(_cordoned(gpu_pod(tolerations=tolerations), taint=taint))
    assert diag.verdict is expected, diag.reason
    if expected is V.INSUFFICIENT_ACCELERATOR:
        assert "node is cordoned" in diag.reason
        fix = diag.fix or ""
        assert f"kubectl uncordon {GPU_NODE}" in fix and "wait for the repair" in fix
        assert "tolerations:" not in fix  # never told to tolerate the cordon


@pytest.mark.parametrize("taint", [True, False], ids=["with-cordon-taint", "flag-only"])
def test_a_toleration_fix_on_a_cordoned_node_is_not_verified(taint: bool) -> None:
    """The pod also lacks the node's own taint: adding that toleration removes MISSING_TOLERATION but the
    cordon still holds the pod off the node, so the fix is not verified (and its check never adds a toleration
    of the cordon taint, which the fix does not offer)."""
    diag = verdict(_cordoned(gpu_pod(tolerations=[]), taint=taint))
    assert diag.verdict is V.MISSING_TOLERATION
    assert diag.fix_check is not None and diag.fix_check.verified is False
    assert diag.fix_check.after is not None and diag.fix_check.after.verdict is V.INSUFFICIENT_ACCELERATOR
    assert (diag.fix or "").startswith(f"no change found that unblocks the pod on Node {GPU_NODE}")
    assert "node is cordoned" in (diag.fix or "")


# ---- 4. host ports of restartable init containers -------------------------------------------------------------


def _sidecar(port: int, restart: str | None = "Always") -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "proxy",
        "image": "x",
        "ports": [{"containerPort": port, "hostPort": port}],
    }
    if restart:
        container["restartPolicy"] = restart
    return container


@pytest.mark.parametrize(
    ("mine", "theirs", "conflict"),
    [
        # pkg/scheduler/util/utils.go GetHostPorts: initContainers with restartPolicy Always count, for the pod
        # (nodeports PreFilter) and for the pods on the node (NodeInfo used ports)
        ({"initContainers": [_sidecar(9400)]}, {"ports": [{"containerPort": 9400, "hostPort": 9400}]}, True),
        ({"ports": [{"containerPort": 9400, "hostPort": 9400}]}, {"initContainers": [_sidecar(9400)]}, True),
        # an init container that runs to completion holds no port
        (
            {"initContainers": [_sidecar(9400, None)]},
            {"ports": [{"containerPort": 9400, "hostPort": 9400}]},
            False,
        ),
        ({"initContainers": [_sidecar(9400)]}, {"ports": [{"containerPort": 9401, "hostPort": 9401}]}, False),
    ],
    ids=["pending-sidecar", "placed-sidecar", "plain-init", "other-port"],
)
def test_sidecar_host_ports_count(mine: dict[str, Any], theirs: dict[str, Any], conflict: bool) -> None:
    their_ports = theirs.pop("ports", None)
    placed = gpu_pod(
        "other", requests={"cpu": "10m"}, node=GPU_NODE, phase="Running", ports=their_ports, **theirs
    )
    my_ports = mine.pop("ports", None)
    pod = gpu_pod(ports=my_ports, **mine)
    others = [
        o
        for o in items("no-karpenter")
        if not (o.get("kind") == "Node" and o["metadata"]["name"] == OTHER_GPU)
    ]
    diag = verdict([*others, placed, pod])
    assert (diag.verdict is V.HOST_PORT_CONFLICT) is conflict, diag.reason
    if conflict:
        assert check(diag, GPU_NODE, "host ports").ok is False


# ---- 5. label values the API would reject ---------------------------------------------------------------------


def _required(op: str, values: list[str], key: str = "kubernetes.io/arch") -> dict[str, Any]:
    term = {"matchExpressions": [{"key": key, "operator": op, "values": values}]}
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        # apimachinery util/validation IsValidLabelValue: <= 63, empty or alphanumeric at both ends
        ("amd64", True),
        ("", True),
        ("a.b_c-d", True),
        ("-1", False),
        ("bad value", False),
        ("trailing-", False),
        ("x" * 64, False),
    ],
)
def test_label_value_validation(value: str, valid: bool) -> None:
    assert (label_value_error(value) is None) is valid


@pytest.mark.parametrize(
    ("op", "values", "matches"),
    [
        # component-helpers nodeaffinity.go nodeSelectorRequirementsAsSelector -> labels.NewRequirement, which
        # validates every value (validateLabelValue): an invalid one makes the term a parse error, and
        # LazyErrorNodeSelector.Match skips it: it matches no node, NotIn included
        ("NotIn", ["arm 64"], False),
        ("In", ["amd64", "not/valid"], False),
        ("Gt", ["-1"], False),  # NewRequirement validates Gt/Lt values as label values too
        ("NotIn", ["arm64"], True),
        ("In", ["amd64"], True),
    ],
    ids=["notin-invalid", "in-invalid", "gt-negative", "notin-valid", "in-valid"],
)
def test_invalid_label_values_match_no_node(op: str, values: list[str], matches: bool) -> None:
    spec = {"affinity": {"nodeAffinity": _required(op, values)}}
    assert node_matches(spec, {"kubernetes.io/arch": "amd64"})[0] is matches


def test_a_pod_with_an_invalid_value_is_invalid_for_both() -> None:
    """kube-scheduler matches no node (above); Karpenter's Provisioner.Validate (provisioner.go
    validateAffinity -> v1.ValidateRequirement: IsValidLabelValue on each value) ignores the pod; the API
    server rejects such a value in a new pod's required node affinity (validation.go
    ValidateNodeSelectorRequirement, unless AllowInvalidLabelValueInRequiredNodeAffinity for an old spec)."""
    pod = gpu_pod(affinity={"nodeAffinity": _required("NotIn", ["arm 64"])})
    parsed = parse_object(pod)
    assert selector_never_matches(parsed.node_affinity) is not None
    rejections = provisioner_rejections(parsed.node_selector, parsed.node_affinity, "auto")
    assert any("invalid value arm 64 for key kubernetes.io/arch" in r for r in rejections)
    diag = verdict([*items("automode-gpu"), pod])
    assert diag.verdict is V.INVALID_SELECTOR
    assert "'arm 64' is not a valid label value" in diag.reason


def test_an_invalid_term_does_not_hide_a_valid_one() -> None:
    """LazyErrorNodeSelector.Match: terms are ORed and an invalid one is skipped, another may still match."""
    terms = [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["bad value"]}]},
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]},
    ]
    spec = {
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        }
    }
    assert node_matches(spec, {"kubernetes.io/arch": "amd64"})[0] is True


# ---- explain, end to end ------------------------------------------------------------------------------------


def _explain(cli: Any, tmp_path: Path, objects: list[Obj], *extra: str) -> Result:
    path = tmp_path / "ours__round-four.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    result: Result = cli("explain", "t/p", "--snapshot", str(path), "--now", NOW_TEXT, *extra)
    return result


def test_explain_a_zone_spread_with_a_preferred_zone(cli: Any, tmp_path: Path) -> None:
    pod = gpu_pod(
        labels={"app": "infer"},
        affinity={"nodeAffinity": _node_affinity(preferred=["us-west-2a"])},
        **_spread(),
    )
    result = _explain(cli, tmp_path, _cluster(pod))
    assert "TOPOLOGY_SPREAD_UNSATISFIABLE" not in result.out
    assert "once Karpenter relaxes the pod" in result.out


def test_explain_an_efa_pod_next_to_a_gpu_node_without_efa(cli: Any, tmp_path: Path) -> None:
    pod = gpu_pod(requests={"nvidia.com/gpu": "1", "vpc.amazonaws.com/efa": "1"})
    result = _explain(cli, tmp_path, _no_karpenter(pod), "-o", "json")
    (pod,) = json.loads(result.out)["pods"]
    assert pod["verdict"] == "INSUFFICIENT_RESOURCES"
    assert "vpc.amazonaws.com/efa: the node has none" in pod["reason"]


def test_explain_a_cordoned_node(cli: Any, tmp_path: Path) -> None:
    result = _explain(cli, tmp_path, _cordoned(gpu_pod(tolerations=_TOLERATE_GPU)))
    assert "node is cordoned" in result.out
    assert "kubectl uncordon" in result.out
    assert "node.kubernetes.io/unschedulable\n" not in result.out


def test_explain_a_sidecar_host_port(cli: Any, tmp_path: Path) -> None:
    placed = gpu_pod(
        "other", requests={"cpu": "10m"}, node=GPU_NODE, phase="Running", initContainers=[_sidecar(9400)]
    )
    others = [
        o
        for o in items("no-karpenter")
        if not (o.get("kind") == "Node" and o["metadata"]["name"] == OTHER_GPU)
    ]
    pod = gpu_pod(ports=[{"containerPort": 9400, "hostPort": 9400}])
    result = _explain(cli, tmp_path, [*others, placed, pod])
    assert "HOST_PORT_CONFLICT" in result.out
    assert "9400/TCP" in result.out


def test_explain_an_invalid_label_value(cli: Any, tmp_path: Path) -> None:
    pod = gpu_pod(affinity={"nodeAffinity": _required("NotIn", ["arm 64"])})
    result = _explain(cli, tmp_path, [*items("automode-gpu"), pod])
    assert "INVALID_SELECTOR" in result.out
    assert "not a valid label value" in result.out
