"""Issue 20 (diagnosis fidelity, round three), one section per cause, each case translated from the upstream
test it follows and citing it.

Karpenter: kubernetes-sigs/karpenter at 226646810 (pkg/controllers/provisioning/scheduling/suite_test.go,
topology_test.go, instance_selection_test.go, pkg/controllers/provisioning/suite_test.go) and the code they
test (scheduler.go, existingnode.go, nodeclaim.go, preferences.go, provisioner.go).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending import analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._scenarios import NOW, analyse, catalog, diagnosis, find, items, state_of

# ---- 9. unknown shown as unknown ------------------------------------------------------------------------


def _with_notes(objects: list[dict[str, Any]], *notes: Note) -> Any:
    return dataclasses.replace(state_of(objects), notes=notes)


def test_free_accelerators_on_a_node_are_unknown_when_pods_were_read_in_part() -> None:
    """With pods readable in one namespace only, what the others request is unknown: a node that looks free
    is not verified (UNVERIFIED, the check `?`), while a shortage among the pods read is still a fact."""
    objects = items("no-karpenter")
    partial = Note("PARTIAL", "forbidden to list pods cluster-wide: counting namespace notebooks", "pods")
    before = analyse_pending(state_of(objects), catalog(), NOW)
    after = analyse_pending(_with_notes(objects, partial), catalog(), NOW)
    assert diagnosis(before, "notebooks/notebook-d").verdict is V.NO_BLOCKER_FOUND
    diag = diagnosis(after, "notebooks/notebook-d")
    assert diag.verdict is V.UNVERIFIED, diag.reason
    assert "free accelerators: free unknown" in diag.reason
    # A shortage among the pods read stays a shortage: more pods can only take more.
    assert diagnosis(after, "training/pretrain-1").verdict is V.INSUFFICIENT_ACCELERATOR


# ---- 1. capacity in flight: suite_test.go Describe("In-Flight Nodes"), existingnode.go, statenode.go -------

NEURON_POD = "inferentia/neuron-7b4c9-pq2rs"


def _neuron_pod(name: str, **spec: Any) -> dict[str, Any]:
    container = {"name": "m", "image": "x", "resources": {"requests": {"aws.amazon.com/neuron": "1"}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "inferentia",
            "uid": f"uid-{name}",
            "creationTimestamp": "2026-11-29T11:50:00Z",
        },
        "spec": {
            "tolerations": [{"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [container],
            **spec,
        },
        "status": {"phase": "Pending"},
    }


def _inflight_verdict(objects: list[dict[str, Any]], key: str = NEURON_POD) -> Any:
    return diagnosis(analyse(objects, only=[key]), key)


def test_an_in_flight_node_that_can_support_the_pod_is_waited_for() -> None:
    """It("should not launch a second node if there is an in-flight node that can support the pod")."""
    diag = _inflight_verdict(items("automode-capacity"))
    assert diag.verdict is V.PROVISIONING
    assert "NodeClaim neuron-x9p2m" in diag.reason and "has room for the pod" in diag.reason


def test_a_pod_that_does_not_fit_what_the_in_flight_node_has_left_is_not_waiting() -> None:
    """It("should launch a second node if a pod won't fit on the existingNodes node"): inf2.xlarge has one
    Neuron device; a pod that wants two needs a new node (ExistingNode.CanAdd "exceeds node resources")."""
    objects = items("automode-capacity")
    pod = _neuron_pod("two-devices")
    pod["spec"]["containers"][0]["resources"]["requests"]["aws.amazon.com/neuron"] = "2"
    diag = _inflight_verdict([*objects, pod], "inferentia/two-devices")
    assert diag.verdict is not V.PROVISIONING, diag.reason


def test_a_pod_the_in_flight_node_is_not_compatible_with_is_not_waiting() -> None:
    """It("should not launch a second node if there is an in-flight node that can support the pod (node
    selectors)"): the claim launched in one zone; a pod that requires another one needs a new node."""
    objects = items("automode-capacity")
    find(objects, "NodeClaim", "neuron-x9p2m")["metadata"]["labels"]["topology.kubernetes.io/zone"] = (
        "us-west-2a"
    )
    same = _neuron_pod("same-zone", nodeSelector={"topology.kubernetes.io/zone": "us-west-2a"})
    other = _neuron_pod("other-zone", nodeSelector={"topology.kubernetes.io/zone": "us-west-2b"})
    assert _inflight_verdict([*objects, same], "inferentia/same-zone").verdict is V.PROVISIONING
    assert _inflight_verdict([*objects, other], "inferentia/other-zone").verdict is not V.PROVISIONING


def test_a_terminating_in_flight_node_is_no_room() -> None:
    """It("should launch a second node if an in-flight node is terminating"): StateNode.Deleted."""
    objects = items("automode-capacity")
    find(objects, "NodeClaim", "neuron-x9p2m")["metadata"]["deletionTimestamp"] = "2026-11-29T11:59:00Z"
    assert _inflight_verdict(objects).verdict is not V.PROVISIONING
    objects = items("automode-capacity")
    find(objects, "NodeClaim", "neuron-x9p2m")["status"]["conditions"].append(
        {"type": "InstanceTerminating", "status": "True"}
    )
    assert _inflight_verdict(objects).verdict is not V.PROVISIONING


def _initializing(
    objects: list[dict[str, Any]], taint: dict[str, str], *, startup: bool, initialized: bool
) -> None:
    """A registered inf2.xlarge node of NodePool neuron with `taint`, listed as a startup taint of its
    NodeClaim or not, initialized or not (the karpenter.sh/initialized label and the Initialized condition)."""
    claim = find(objects, "NodeClaim", "neuron-x9p2m")
    claim["status"].update(
        nodeName="i-0inf2aaaaaaaaaaa1",
        allocatable={"cpu": "3920m", "memory": "14Gi", "aws.amazon.com/neuron": "1", "pods": "58"},
    )
    claim["status"]["conditions"] = [
        {"type": "Launched", "status": "True"},
        {"type": "Registered", "status": "True"},
        {"type": "Initialized", "status": "True" if initialized else "Unknown"},
    ]
    if startup:
        claim["spec"]["startupTaints"] = [taint]
    labels = {**claim["metadata"]["labels"], "karpenter.sh/registered": "true"}
    if initialized:
        labels["karpenter.sh/initialized"] = "true"
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": "i-0inf2aaaaaaaaaaa1",
                "labels": labels,
                "creationTimestamp": "2026-11-29T11:59:00Z",
            },
            "spec": {"providerID": "aws:///us-west-2a/i-0inf2aaaaaaaaaaa1", "taints": [taint]},
            "status": {
                "allocatable": claim["status"]["allocatable"],
                "capacity": claim["status"]["allocatable"],
            },
        }
    )


STARTUP = {"key": "example.com/agent-not-ready", "value": "true", "effect": "NoSchedule"}


def test_a_startup_taint_of_an_initializing_node_is_no_obstacle() -> None:
    """It("should assume pod will schedule to a tainted node with a custom startup taint"): StateNode.Taints
    drops the NodeClaim's startupTaints until the node is initialized."""
    objects = items("automode-capacity")
    _initializing(objects, STARTUP, startup=True, initialized=False)
    diag = _inflight_verdict(objects)
    assert diag.verdict is V.PROVISIONING, diag.reason
    assert "NodeClaim neuron-x9p2m" in diag.reason


def test_a_startup_taint_after_initialization_is_an_obstacle() -> None:
    """It("should not assume pod will schedule to a node with startup taints after initialization")."""
    objects = items("automode-capacity")
    _initializing(objects, STARTUP, startup=True, initialized=True)
    assert _inflight_verdict(objects).verdict is not V.PROVISIONING


def test_a_taint_that_is_no_startup_taint_is_an_obstacle() -> None:
    """It("should not assume pod will schedule to a tainted node")."""
    objects = items("automode-capacity")
    _initializing(objects, STARTUP, startup=False, initialized=False)
    assert _inflight_verdict(objects).verdict is not V.PROVISIONING


def test_the_not_ready_taint_of_an_uninitialized_node_is_ephemeral() -> None:
    """It("should assume pod will schedule to a node with ephemeral taint node.kubernetes.io/not-ready:NoExecute
    when the node is uninitialized"), and not once it is initialized."""
    not_ready = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
    objects = items("automode-capacity")
    _initializing(objects, not_ready, startup=False, initialized=False)
    assert _inflight_verdict(objects).verdict is V.PROVISIONING
    objects = items("automode-capacity")
    _initializing(objects, not_ready, startup=False, initialized=True)
    assert _inflight_verdict(objects).verdict is not V.PROVISIONING


# ---- 2. existing nodes are targets: suite_test.go Describe("Existing Nodes"), scheduler.go addToExistingNode --


def _node_group_node(name: str = "ng-l4-1", zone: str = "us-west-2a") -> dict[str, Any]:
    """A managed node group's GPU node: no Karpenter labels, no taint, one free L4."""
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "node.kubernetes.io/instance-type": "g6.xlarge",
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": zone,
                "eks.amazonaws.com/nodegroup": "gpu-ng",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/os": "linux",
            },
            "creationTimestamp": "2026-11-20T00:00:00Z",
        },
        "spec": {"providerID": f"aws:///{zone}/{name}"},
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1", "pods": "58"},
            "allocatable": {"cpu": "3920m", "memory": "14Gi", "nvidia.com/gpu": "1", "pods": "58"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _plain_gpu_pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "t", "uid": f"uid-{name}"},
        "spec": {
            "containers": [{"name": "m", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
            **spec,
        },
        "status": {"phase": "Pending"},
    }


def test_a_pod_that_fits_a_node_karpenter_does_not_own_is_placed_there() -> None:
    """It("should schedule a pod to an existing node unowned by Karpenter"): the pod does not tolerate the GPU
    NodePool's taint, but an untainted node group node has a free GPU: kube-scheduler places it, Karpenter
    launches nothing, and no blocking verdict about the NodePool is given."""
    diag = diagnosis(
        analyse([*items("automode-gpu"), _node_group_node(), _plain_gpu_pod()], only=["t/p"]), "t/p"
    )
    assert diag.verdict is V.NO_BLOCKER_FOUND, diag.reason
    assert diag.nearest is not None and (diag.nearest.kind, diag.nearest.name) == ("Node", "ng-l4-1")
    assert "kube-scheduler places it there" in diag.reason


def test_a_pod_incompatible_with_the_existing_node_is_judged_on_the_nodepools() -> None:
    """It("should consider a pod incompatible with an existing node but compatible with NodePool")."""
    pod = _plain_gpu_pod(nodeSelector={"topology.kubernetes.io/zone": "us-west-2b"})
    diag = diagnosis(analyse([*items("automode-gpu"), _node_group_node(), pod], only=["t/p"]), "t/p")
    assert diag.nearest is not None and diag.nearest.kind == "NodePool"
    assert diag.verdict is V.MISSING_TOLERATION


def test_a_full_existing_node_is_no_target() -> None:
    """The node's GPU is taken (ExistingNode.CanAdd "exceeds node resources"): the NodePools decide."""
    holder = _plain_gpu_pod("holder", nodeName="ng-l4-1")
    holder["status"]["phase"] = "Running"
    diag = diagnosis(
        analyse([*items("automode-gpu"), _node_group_node(), holder, _plain_gpu_pod()], only=["t/p"]), "t/p"
    )
    assert diag.verdict is V.MISSING_TOLERATION


# ---- 4. NodePool states and limits: provisioning/suite_test.go, provisioner.go NewScheduler -----------------

LLM = "serving/llm-5f7b9-aaaaa"  # NO_BLOCKER_FOUND on NodePool gpu as the scenario stands


def _pool_verdict(objects: list[dict[str, Any]]) -> Any:
    return diagnosis(analyse(objects, only=[LLM]), LLM)


def test_a_deleting_nodepool_launches_nothing() -> None:
    """It("should ignore NodePools that are deleting"): NewScheduler keeps `np.DeletionTimestamp.IsZero()`."""
    objects = items("automode-gpu")
    assert _pool_verdict(objects).verdict is V.NO_BLOCKER_FOUND
    find(objects, "NodePool", "gpu")["metadata"]["deletionTimestamp"] = "2026-11-29T11:00:00Z"
    diag = _pool_verdict(objects)
    assert diag.verdict is V.NODEPOOL_DELETING, diag.reason


def test_a_static_nodepool_launches_nothing_for_pending_pods() -> None:
    """It("should not create NodeClaims for StaticNodePool"): NewScheduler drops `nodepoolutils.IsStatic`."""
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["spec"]["replicas"] = 2
    diag = _pool_verdict(objects)
    assert diag.verdict is V.STATIC_NODEPOOL, diag.reason
    assert "spec.replicas: 2" in diag.reason


def test_a_dynamic_nodepool_next_to_a_static_one_still_launches() -> None:
    """It("should still provision dynamic NodeClaims when there are both Static and Dynamic NodePools")."""
    objects = items("automode-gpu")
    static = copy.deepcopy(find(objects, "NodePool", "gpu"))
    static["metadata"]["name"] = "gpu-static"
    static["spec"]["replicas"] = 1
    static["spec"]["weight"] = 100  # heavier: still not the one that launches
    diag = _pool_verdict([*objects, static])
    assert diag.verdict is V.NO_BLOCKER_FOUND
    assert diag.nearest is not None and diag.nearest.name == "gpu"


def test_a_pods_limit_stops_types_with_more_pods_than_left() -> None:
    """It("should not schedule if limits would be exceeded"): `filterByRemainingResources` compares every
    limited resource with the type's capacity, `pods` (its max pods) too. The pool's one NodeClaim holds 110
    pods of 150: 40 are left, fewer than the 58 of the smallest fitting type, g6.xlarge."""
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["spec"]["limits"] = {"pods": "150"}
    diag = _pool_verdict(objects)
    assert diag.verdict is V.NODEPOOL_LIMIT_REACHED, diag.reason
    assert "pods" in diag.reason
    find(objects, "NodePool", "gpu")["spec"]["limits"] = {"pods": "1000"}
    assert _pool_verdict(objects).verdict is V.NO_BLOCKER_FOUND


def test_a_nodes_limit_counts_each_nodeclaim_once() -> None:
    """It("should not schedule if limits would be exceeded (node)"): one NodeClaim is one node; with a limit
    of 2 and one NodeClaim there is room for one more (a claim whose status has no capacity, counted from
    the catalog, was counted twice: no room)."""
    objects = items("automode-gpu")
    del find(objects, "NodeClaim", "gpu-dnknr")["status"]["capacity"]
    find(objects, "NodePool", "gpu")["spec"]["limits"] = {"nodes": "2"}
    assert _pool_verdict(objects).verdict is V.NO_BLOCKER_FOUND
    find(objects, "NodePool", "gpu")["spec"]["limits"] = {"nodes": "1"}
    diag = _pool_verdict(objects)
    assert diag.verdict is V.NODEPOOL_LIMIT_REACHED and "node limits have been exhausted" in diag.reason


# ---- 7. restricted label domains: scheduling/suite_test.go "should not schedule pods that have node selectors
# with restricted domains", for each of `v1.RestrictedLabelDomains`, which aws/karpenter-provider-aws
# `pkg/apis/v1/labels.go` `init` extends with karpenter.k8s.aws (its WellKnownLabels stay usable) ------------


def _selecting(scenario: str, key: str) -> Any:
    pod = _plain_gpu_pod(
        tolerations=[{"operator": "Exists"}],
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": key, "operator": "In", "values": ["test"]}]}
                    ]
                }
            }
        },
    )
    return diagnosis(analyse([*items(scenario), pod], only=["t/p"]), "t/p")


def test_a_label_of_the_aws_providers_domain_is_restricted_on_self_managed_karpenter() -> None:
    diag = _selecting("karpenter-gpu", "karpenter.k8s.aws/test")
    assert diag.verdict is V.POD_IGNORED_BY_PROVISIONER, diag.reason
    assert "using label karpenter.k8s.aws/test is not allowed" in diag.reason


def test_the_karpenter_sh_domain_is_restricted_everywhere() -> None:
    for scenario in ("karpenter-gpu", "automode-gpu"):
        assert _selecting(scenario, "karpenter.sh/test").verdict is V.POD_IGNORED_BY_PROVISIONER


def test_well_known_labels_of_the_aws_domain_stay_usable() -> None:
    """`IsRestrictedLabel` returns nil for a WellKnownLabels key first."""
    diag = _selecting("karpenter-gpu", "karpenter.k8s.aws/instance-family")
    assert diag.verdict is not V.POD_IGNORED_BY_PROVISIONER
    assert diag.verdict is V.REQUIREMENT_CONFLICT  # "test" is no family


def test_on_auto_mode_the_aws_domain_is_another_providers_label() -> None:
    """Auto Mode restricts its own labels, not karpenter.k8s.aws ones: those are labels its nodes never carry."""
    assert _selecting("automode-gpu", "karpenter.k8s.aws/test").verdict is not V.POD_IGNORED_BY_PROVISIONER


# ---- 6. volumes that do not exist: volumetopology.go ValidatePersistentVolumeClaims, GetPersistentVolumeClaim
# (utils/volume), validateVolume; provisioning/suite_test.go "Volume Topology Requirements" ------------------


def _volume_pod(claim: str = "data") -> dict[str, Any]:
    return _plain_gpu_pod(
        tolerations=[{"operator": "Exists"}],
        volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
    )


def _claim(name: str, **spec: Any) -> dict[str, Any]:
    annotations = {"pv.kubernetes.io/bind-completed": "yes"} if "volumeName" in spec else {}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "t", "annotations": annotations},
        "spec": spec,
        "status": {"phase": "Bound" if "volumeName" in spec else "Pending"},
    }


def _class(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": "ebs.csi.eks.amazonaws.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _volume_verdict(*objects: dict[str, Any]) -> Any:
    return diagnosis(analyse([*items("automode-gpu"), *objects], only=["t/p"]), "t/p")


def test_a_claim_that_does_not_exist_makes_karpenter_ignore_the_pod() -> None:
    """GetPersistentVolumeClaim fails ("getting persistent volume claim"): claims were read (another one is
    there), so the pod's is known not to exist: VOLUME_UNAVAILABLE, not UNVERIFIED."""
    diag = _volume_verdict(_volume_pod("missing"), _claim("other", storageClassName="gp3"), _class("gp3"))
    assert diag.verdict is V.VOLUME_UNAVAILABLE, diag.reason
    assert "does not exist" in diag.reason


def test_a_claim_not_in_the_data_stays_unknown_when_no_claim_was_read() -> None:
    assert _volume_verdict(_volume_pod("missing")).verdict is V.UNVERIFIED


def test_a_storage_class_that_does_not_exist() -> None:
    """ValidatePersistentVolumeClaims: "failed to validate pvc, failed to get storage class"."""
    diag = _volume_verdict(_volume_pod(), _claim("data", storageClassName="gone"), _class("gp3"))
    assert diag.verdict is V.VOLUME_UNAVAILABLE, diag.reason
    assert "StorageClass gone" in diag.reason


def test_a_persistent_volume_that_does_not_exist() -> None:
    """validateVolume: the claim's volumeName must exist."""
    other = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-other"}, "spec": {}}
    diag = _volume_verdict(_volume_pod(), _claim("data", volumeName="pv-gone", storageClassName="gp3"), other)
    assert diag.verdict is V.VOLUME_UNAVAILABLE, diag.reason
    assert "PersistentVolume pv-gone" in diag.reason


# ---- 3. relaxation order: scheduling/suite_test.go Describe("Preferential Fallback"), preferences.go Relax,
# scheduler.go trySchedule (each attempt on every target before the next), requirements.go newPodRequirements --

FAMILY = "eks.amazonaws.com/instance-family"


def _term(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}


def _relaxing_pod(
    *terms: dict[str, Any], preferred: list[dict[str, Any]] | None = None, tolerate_all: bool = True
) -> Any:
    node_affinity: dict[str, Any] = {}
    if terms:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": list(terms)}
    if preferred:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    tolerations = (
        [{"operator": "Exists"}]
        if tolerate_all
        else [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    )
    return _plain_gpu_pod(tolerations=tolerations, affinity={"nodeAffinity": node_affinity})


def _relaxed_verdict(pod: dict[str, Any], objects: list[dict[str, Any]] | None = None) -> Any:
    return diagnosis(analyse([*(objects or items("automode-gpu")), pod], only=["t/p"]), "t/p")


def test_a_term_that_admits_the_pool_but_no_instance_type_is_relaxed() -> None:
    """It("should relax multiple terms"): a term fails when no instance type holds the pod (nodeclaim.go
    CanAdd), not only when its requirements conflict; the next term then gets its chance."""
    pod = _relaxing_pod(_term("eks.amazonaws.com/instance-gpu-count", "In", "16"), _term(FAMILY, "In", "g6e"))
    diag = _relaxed_verdict(pod)
    assert diag.verdict is V.NO_BLOCKER_FOUND, diag.reason


def test_each_term_is_tried_on_every_pool_before_the_next() -> None:
    """trySchedule: term 0 is tried on every NodePool (heaviest first) before term 1: the pool that takes
    term 0 wins over a heavier one that only takes term 1."""
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"][2]["values"] = ["g6e"]
    l4 = copy.deepcopy(find(objects, "NodePool", "gpu"))
    l4["metadata"]["name"] = "gpu-l4"
    l4["spec"]["weight"] = 100
    l4["spec"]["template"]["spec"]["requirements"][2]["values"] = ["g6"]
    diag = _relaxed_verdict(
        _relaxing_pod(_term(FAMILY, "In", "g6e"), _term(FAMILY, "In", "g6")), [*objects, l4]
    )
    assert diag.verdict is V.NO_BLOCKER_FOUND
    assert diag.nearest is not None and diag.nearest.name == "gpu"


def test_required_terms_are_relaxed_before_preferred_ones() -> None:
    """Relax removes a required OR-term before any preferred term (`relaxations` list order), and
    newPodRequirements ANDs the heaviest preferred term into each: with terms [g6e, p5] and a preference for
    spot (the GPU pool is on-demand), the attempts are g6e+spot, p5+spot, p5: none fits, so the pod stays
    Pending although g6e alone would have fit."""
    spot = [{"weight": 10, "preference": _term("karpenter.sh/capacity-type", "In", "spot")}]
    pod = _relaxing_pod(_term(FAMILY, "In", "g6e"), _term(FAMILY, "In", "p5"), preferred=spot)
    diag = _relaxed_verdict(pod)
    assert diag.verdict is V.REQUIREMENT_CONFLICT, diag.reason
    assert "p5" in diag.reason


def test_a_preference_that_conflicts_with_the_requirement_is_relaxed() -> None:
    """It("should schedule even if preference is conflicting with requirement")."""
    avoid = [{"weight": 1, "preference": _term(FAMILY, "NotIn", "g6e")}]
    diag = _relaxed_verdict(_relaxing_pod(_term(FAMILY, "In", "g6e"), preferred=avoid))
    assert diag.verdict is V.NO_BLOCKER_FOUND, diag.reason


def test_a_prefer_no_schedule_taint_is_tolerated_only_after_every_other_relaxation() -> None:
    """toleratePreferNoScheduleTaints is the last relaxation: the GPU pool's workload=inference:PreferNoSchedule
    taint is only tolerated once the pod is down to its last term (p5), which the pool does not admit."""
    pod = _relaxing_pod(_term(FAMILY, "In", "g6e"), _term(FAMILY, "In", "p5"), tolerate_all=False)
    diag = _relaxed_verdict(pod)
    assert diag.verdict is V.REQUIREMENT_CONFLICT, diag.reason
    tolerating = _relaxing_pod(_term(FAMILY, "In", "g6e"), _term(FAMILY, "In", "p5"))
    assert _relaxed_verdict(tolerating).verdict is V.NO_BLOCKER_FOUND


# ---- 5. topology: scheduling/topology_test.go, topology.go AddRequirements, topologygroup.go ------------------

ZONES = ("us-west-2a", "us-west-2b", "us-west-2c")
S2 = {"security": "s2"}


def _placed(name: str, node: str, namespace: str = "t", **spec: Any) -> dict[str, Any]:
    pod = _plain_gpu_pod(name, nodeName=node, **spec)
    pod["metadata"]["namespace"] = namespace
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m"}
    pod["status"]["phase"] = "Running"
    return pod


def _zoned_gpu_pool(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    reqs = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"]
    reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(ZONES)})
    return objects


def test_placed_pods_whose_anti_affinity_each_excludes_a_zone_exclude_them_all() -> None:
    """It("should not violate pod anti-affinity on zone (inverse w/existing nodes)"): one pod per zone, each
    with required anti-affinity against security=s2: a pod labelled s2 fits no zone (each alone left two)."""
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": S2}, "topologyKey": "topology.kubernetes.io/zone"}
            ]
        }
    }
    objects = _zoned_gpu_pool(items("automode-gpu"))
    for i, zone in enumerate(ZONES):
        objects += [_node_group_node(f"ng-{i}", zone), _placed(f"guard-{i}", f"ng-{i}", affinity=anti)]
    pod = _plain_gpu_pod(tolerations=[{"operator": "Exists"}])
    pod["metadata"]["labels"] = S2
    diag = diagnosis(analyse([*objects, pod], only=["t/p"]), "t/p")
    assert diag.verdict is V.POD_AFFINITY_UNSATISFIABLE, diag.reason
    two = [o for o in objects if o["metadata"]["name"] not in ("guard-2",)]
    assert diagnosis(analyse([*two, pod], only=["t/p"]), "t/p").verdict is not V.POD_AFFINITY_UNSATISFIABLE


def test_a_spread_over_a_key_nothing_has_never_schedules() -> None:
    """It("should ignore unknown topology keys"): ExpectNotScheduled for the pod spreading over "unknown"."""
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "unknown",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "p"}},
        }
    ]
    pod = _plain_gpu_pod(tolerations=[{"operator": "Exists"}], topologySpreadConstraints=spread)
    pod["metadata"]["labels"] = {"app": "p"}
    diag = diagnosis(analyse([*items("automode-gpu"), pod], only=["t/p"]), "t/p")
    assert diag.verdict is V.TOPOLOGY_SPREAD_UNSATISFIABLE, diag.reason
    assert "no NodePool defines it" in diag.reason


def _affine(namespaces: list[str] | None) -> dict[str, Any]:
    term: dict[str, Any] = {"labelSelector": {"matchLabels": S2}, "topologyKey": "kubernetes.io/hostname"}
    if namespaces is not None:
        term["namespaces"] = namespaces
    pod = _plain_gpu_pod(
        tolerations=[{"operator": "Exists"}],
        affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    target = _placed("target", "ng-l4-1", namespace="other-ns-list")
    target["metadata"]["labels"] = S2
    return diagnosis(analyse([*items("automode-gpu"), _node_group_node(), target, pod], only=["t/p"]), "t/p")


def test_pod_affinity_to_a_namespace_list_selects_pods_there() -> None:
    """It("should filter pod affinity topologies by namespace, matching pods namespace list")."""
    diag = _affine(["other-ns-list"])
    assert diag.verdict is V.NO_BLOCKER_FOUND, diag.reason
    assert diag.nearest is not None and diag.nearest.name == "ng-l4-1"


def test_pod_affinity_without_namespaces_selects_only_its_own() -> None:
    """It("should filter pod affinity topologies by namespace, no matching pods")."""
    assert _affine(None).verdict is V.POD_AFFINITY_UNSATISFIABLE


# ---- 8 and verified fixes: every fix is made on a copy of the cluster and the pod evaluated again -----------


def test_a_toleration_fix_is_verified_and_says_what_launches() -> None:
    diag = diagnosis(analyse("automode-gpu"), "ml/gpu-nvidia-7d9f8-abcde")
    assert diag.verdict is V.MISSING_TOLERATION
    check = diag.fix_check
    assert check is not None and check.verified is True and check.after is not None
    assert check.after.text() == "after this change: launches from NodePool gpu, g6.xlarge"
    assert diag.to_dict()["fixVerified"] is True
    assert diag.to_dict()["fixAfter"]["instanceType"] == "g6.xlarge"


def test_lifting_a_limit_is_verified_on_a_copy_of_the_nodepool() -> None:
    diag = diagnosis(analyse("automode-capacity"), "training/train-llama-0")
    assert diag.verdict is V.NODEPOOL_LIMIT_REACHED
    assert diag.fix_check is not None and diag.fix_check.verified is True
    assert diag.fix_check.after is not None and diag.fix_check.after.clear


def test_the_proposed_nodepool_is_verified_to_launch_the_accelerator() -> None:
    diag = diagnosis(analyse("automode-gpu"), "ml/neuron-6c9d4-xk2lq")
    assert diag.verdict is V.NO_ACCELERATOR_NODEPOOL
    check = diag.fix_check
    assert check is not None and check.verified is True and check.after is not None
    assert check.after.text().startswith("after this change: launches from NodePool neuron, inf")


def test_a_nodepool_that_cannot_help_is_never_offered() -> None:
    """No instance type has a GPU and a Neuron device: the NodePool the fix would propose launches nothing
    for the pod, so it is not offered (the toleration or NodePool fix that cannot help, issue 20 item 8)."""
    pod = _plain_gpu_pod()
    pod["spec"]["containers"][0]["resources"]["requests"]["aws.amazon.com/neuron"] = "1"
    diag = diagnosis(analyse([*items("automode-gpu"), pod], only=["t/p"]), "t/p")
    assert diag.verdict is V.NO_ACCELERATOR_NODEPOOL
    assert diag.fix_check is not None and diag.fix_check.verified is False
    assert (diag.fix or "").startswith("no change found")
    assert "apiVersion: karpenter.sh/v1" not in (diag.fix or "")


def test_a_nodepool_is_no_fix_for_a_pod_karpenter_ignores() -> None:
    """A DRA pod on a cluster without Karpenter: a NodePool would not help, Karpenter ignores such pods."""
    pod = _plain_gpu_pod(resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "one"}])
    pod["spec"]["containers"][0]["resources"]["requests"] = {"amd.com/gpu": "1"}
    diag = diagnosis(analyse([*items("no-karpenter"), pod], only=["t/p"]), "t/p")
    assert diag.verdict is V.NO_ACCELERATOR_NODEPOOL
    assert diag.fix_check is not None and diag.fix_check.verified is False
    assert diag.fix_check.after is not None
    assert diag.fix_check.after.verdict is V.DRA_NOT_SUPPORTED_BY_PROVISIONER


def test_a_fix_that_does_not_remove_its_blocker_is_not_offered(monkeypatch: Any) -> None:
    """Break the change on purpose (the pod is left as it was): the toleration fix no longer removes the
    blocker, so it is not offered as the fix, and the JSON says it was not verified."""
    from kubectl_gpu.core.analyses.pending.verify import verifier as fix_check

    monkeypatch.setattr(fix_check, "pod_change", lambda pod, blocker, taints_of: (pod, "nothing changed"))
    diag = diagnosis(analyse("automode-gpu"), "ml/gpu-nvidia-7d9f8-abcde")
    assert diag.fix_check is not None and diag.fix_check.verified is False
    assert (diag.fix or "").startswith("no change found that removes MISSING_TOLERATION")
    assert diag.to_dict()["fixVerified"] is False
