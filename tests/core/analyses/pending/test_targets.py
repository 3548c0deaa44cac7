"""One target at a time: taints against tolerations (NodePools and nodes), NodePool requirement operators,
how the nearest target is chosen, NodePool limits against NodeClaims, NodeClass states, node capacity."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict
from tests.core.analyses.pending._scenarios import (
    Obj,
    analyse,
    codes_by_target,
    diagnosis,
    evaluation,
    find,
    items,
    pod_obj,
    without,
)

V = Verdict

NO_VALUE = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
WITH_VALUE = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "dedicated", "value": "training", "effect": "NoExecute"}
PREFER = {"key": "nvidia.com/gpu", "effect": "PreferNoSchedule"}

# (taint, toleration or None, blocked?)
# fmt: off
TAINT_MATRIX: list[tuple[str, dict[str, str], dict[str, Any] | None, bool]] = [
    ("k:NoSchedule, none", NO_VALUE, None, True),
    ("k:NoSchedule, Exists key", NO_VALUE, {"key": "nvidia.com/gpu", "operator": "Exists"}, False),
    ("k:NoSchedule, Exists key+effect", NO_VALUE, {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, False),
    ("k:NoSchedule, Exists other effect", NO_VALUE, {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, True),
    ("k:NoSchedule, Equal no value", NO_VALUE, {"key": "nvidia.com/gpu", "operator": "Equal"}, False),
    ("k:NoSchedule, Equal wrong value", NO_VALUE, {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}, True),
    ("k:NoSchedule, empty operator", NO_VALUE, {"key": "nvidia.com/gpu"}, False),
    ("k:NoSchedule, Exists no key", NO_VALUE, {"operator": "Exists"}, False),
    ("k:NoSchedule, other key", NO_VALUE, {"key": "nvidia.com/gpu.shared", "operator": "Exists"}, True),
    ("k=v:NoSchedule, none", WITH_VALUE, None, True),
    ("k=v:NoSchedule, Exists key", WITH_VALUE, {"key": "nvidia.com/gpu", "operator": "Exists"}, False),
    ("k=v:NoSchedule, Equal v", WITH_VALUE, {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true"}, False),
    ("k=v:NoSchedule, Equal V (case)", WITH_VALUE, {"key": "nvidia.com/gpu", "operator": "Equal", "value": "True"}, True),
    ("k=v:NoSchedule, Equal no value", WITH_VALUE, {"key": "nvidia.com/gpu", "operator": "Equal"}, True),
    ("k=v:NoExecute, Equal v empty effect", NO_EXECUTE, {"key": "dedicated", "operator": "Equal", "value": "training"}, False),
    ("k=v:NoExecute, Equal v NoExecute", NO_EXECUTE, {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoExecute", "tolerationSeconds": 300}, False),
    ("k=v:NoExecute, Equal v NoSchedule", NO_EXECUTE, {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"}, True),
    ("k=v:NoExecute, Exists no key", NO_EXECUTE, {"operator": "Exists"}, False),
    ("k:PreferNoSchedule, none", PREFER, None, False),
]
# fmt: on


def _gpu_pod(name: str, tolerations: list[dict[str, Any]], **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "t", "uid": f"uid-{name}"},
        "spec": {
            "tolerations": tolerations,
            "containers": [{"name": "m", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
            **spec,
        },
        "status": {"phase": "Pending"},
    }


@pytest.mark.parametrize(
    ("case", "taint", "toleration", "blocked"), TAINT_MATRIX, ids=[c for c, *_ in TAINT_MATRIX]
)
def test_nodepool_taints(
    case: str, taint: dict[str, str], toleration: dict[str, Any] | None, blocked: bool
) -> None:
    objects = items("automode-gpu")
    spec = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]
    spec["taints"] = [taint]
    spec["startupTaints"] = [{"key": "example.com/another-taint", "effect": "NoSchedule"}]  # never blocks
    objects.append(_gpu_pod("p", [toleration] if toleration else []))
    diag = diagnosis(analyse(objects, only=["t/p"]), "t/p")
    gpu = evaluation(diag, "gpu")
    assert (V.MISSING_TOLERATION in [b.code for b in gpu.blockers]) is blocked
    assert diag.verdict is (V.MISSING_TOLERATION if blocked else V.NO_BLOCKER_FOUND)
    taints_check = next(c for c in gpu.checks if c.name == "taints")
    assert taints_check.ok is (not blocked)


@pytest.mark.parametrize(
    ("case", "taint", "toleration", "blocked"), TAINT_MATRIX, ids=[c for c, *_ in TAINT_MATRIX]
)
def test_node_taints(
    case: str, taint: dict[str, str], toleration: dict[str, Any] | None, blocked: bool
) -> None:
    objects = items("no-karpenter")
    find(objects, "Node", "ip-10-0-3-17.ec2.internal")["spec"]["taints"] = [taint]
    pod = _gpu_pod(
        "p",
        [toleration] if toleration else [],
        nodeSelector={"node.kubernetes.io/instance-type": "g4dn.xlarge"},
    )
    objects.append(pod)
    diag = diagnosis(analyse(objects, only=["t/p"]), "t/p")
    node = evaluation(diag, "ip-10-0-3-17.ec2.internal")
    assert (V.MISSING_TOLERATION in [b.code for b in node.blockers]) is blocked
    assert diag.verdict is (V.MISSING_TOLERATION if blocked else V.NO_BLOCKER_FOUND)


def test_startup_taints_and_prefer_no_schedule_never_block() -> None:
    diag = diagnosis(analyse("automode-gpu"), "serving/llm-5f7b9-aaaaa")
    gpu = evaluation(diag, "gpu")
    assert gpu.blockers == ()
    taints = next(c for c in gpu.checks if c.name == "taints")
    assert "workload=inference:PreferNoSchedule" in taints.detail
    assert "another-taint" not in taints.detail


def test_every_untolerated_taint_is_named_once() -> None:
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["taints"] += [NO_EXECUTE]
    diag = diagnosis(analyse(objects), "ml/gpu-nvidia-7d9f8-abcde")
    blocker = evaluation(diag, "gpu").blockers[0]
    assert blocker.code is V.MISSING_TOLERATION
    assert (
        blocker.message
        == "pod does not tolerate nvidia.com/gpu:NoSchedule, dedicated=training:NoExecute of NodePool gpu"
    )
    assert (blocker.fix or "").count("- key:") == 2


# ---- NodePool requirement operators (pool side; the pod side is in test_verdicts SETTLED) -------------------

# requirement added to karpenter-gpu's NodePool gpu -> (pool offers a GPU?, blockers of the pool for a 1-GPU pod)
# fmt: off
POOL_OPERATORS: list[tuple[dict[str, Any], bool, list[str]]] = [
    ({"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["c7i"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["g5", "g6"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-family", "operator": "NotIn", "values": ["g5", "g6", "g6e", "g7e"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "Exists"}, True, []),
    ({"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "DoesNotExist"}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["4"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["8"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Lt", "values": ["30000"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Lt", "values": ["20000"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-generation", "operator": "Gte", "values": ["7"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-generation", "operator": "Gte", "values": ["8"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
    ({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lte", "values": ["1"]}, True, []),
    ({"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lte", "values": ["0"]}, False, ["NO_INSTANCE_TYPE_FITS"]),
]
# fmt: on


@pytest.mark.parametrize(
    ("requirement", "offers", "codes"), POOL_OPERATORS, ids=lambda v: str(v) if isinstance(v, dict) else None
)
def test_nodepool_requirement_operators(requirement: dict[str, Any], offers: bool, codes: list[str]) -> None:
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    pool = find(objects, "NodePool", "gpu")
    pool["spec"]["template"]["spec"]["requirements"].append(requirement)
    pool["spec"]["limits"] = {"nvidia.com/gpu": "100"}  # 8-GPU types must not hit the limit here
    diag = diagnosis(analyse(objects), "operators/op-exists-ok")
    gpu = evaluation(diag, "gpu")
    assert gpu.offers is offers
    assert [str(b.code) for b in gpu.blockers] == codes
    # A (full) node with GPUs exists: when the pool cannot offer one, that node becomes the nearest target ...
    # (UNVERIFIED, not NO_BLOCKER_FOUND: the pool requires instance-hypervisor, which the catalog does not know.)
    assert diag.verdict is (V.UNVERIFIED if offers else V.INSUFFICIENT_ACCELERATOR)
    if not offers:
        assert diag.nearest is not None and diag.nearest.kind == "Node"
        assert any(b.code is V.NO_INSTANCE_TYPE_FITS for b in gpu.blockers)
    # ... and without that node nothing in the cluster can: NO_ACCELERATOR_NODEPOOL.
    bare = without(objects, "Node", "ip-100-64-136-72.us-west-2.compute.internal")
    if not offers:
        assert diagnosis(analyse(bare), "operators/op-exists-ok").verdict is V.NO_ACCELERATOR_NODEPOOL


def test_pod_affinity_falls_back_to_the_next_required_term() -> None:
    """Karpenter provisions for nodeSelectorTerms[0] first, and `Preferences.Relax` (preferences.go
    removeRequiredNodeAffinityTerm) falls back to the next term: the g6e term fits, so no conflict."""
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    terms = [
        {
            "matchExpressions": [
                {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5"]}
            ]
        },
        {
            "matchExpressions": [
                {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}
            ]
        },
    ]
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
    }
    objects.append(_gpu_pod("p", [{"operator": "Exists"}], affinity=affinity))
    diag = diagnosis(analyse(objects, only=["t/p"]), "t/p")
    assert diag.verdict is V.UNVERIFIED  # instance-hypervisor of the pool is unknown in the catalog
    assert not any(b.code is V.REQUIREMENT_CONFLICT for b in evaluation(diag, "gpu").blockers)
    assert any("OR-terms" in n for n in diag.notes)


def test_eks_docs_selectors_are_valid_on_auto_mode() -> None:
    """The EKS docs' nvidia-smi pod selects eks.amazonaws.com/instance-gpu-memory and compute-type: both are
    Auto Mode labels, and only the g6e types have 45776 MiB GPUs."""
    diag = diagnosis(analyse("automode-gpu"), "ml/nvidia-smi")
    gpu = evaluation(diag, "gpu")
    assert gpu.blockers == ()
    assert gpu.fitting_types and all(t.startswith("g6e.") for t in gpu.fitting_types)


def test_nodepool_label_is_implicit() -> None:
    objects = items("automode-capacity")
    objects.append(
        _gpu_pod("p", [{"operator": "Exists"}], nodeSelector={"karpenter.sh/nodepool": "inference-spot"})
    )
    diag = diagnosis(analyse(objects, only=["t/p"]), "t/p")
    assert diag.nearest is not None and diag.nearest.name == "inference-spot"
    assert diag.verdict is V.NO_BLOCKER_FOUND
    assert codes_by_target(diag)["inference-l4"] == ["REQUIREMENT_CONFLICT"]


# ---- nearest target ---------------------------------------------------------------------------------------


def test_capacity_blocker_loses_to_weight() -> None:
    """inference (weight 50) has a recent ICE; of the two clean pools, inference-l4 (30) beats inference-spot
    (10)."""
    diag = diagnosis(analyse("automode-capacity"), "inference/serve-any")
    assert [e.target.name for e in diag.evaluations[:3]] == ["inference-l4", "inference-spot", "inference"]
    assert [e.weight for e in diag.evaluations[:3]] == [30, 10, 50]


def test_heaviest_pool_is_nearest_without_blockers() -> None:
    objects = without(items("automode-capacity"), "Event", "inference-8xk2p.1879b001")
    diag = diagnosis(analyse(objects), "inference/serve-any")
    assert diag.nearest is not None and diag.nearest.name == "inference"


def test_equal_weights_fall_back_to_the_name() -> None:
    objects = items("automode-capacity")
    find(objects, "NodePool", "inference-l4")["spec"]["weight"] = 10
    diag = diagnosis(analyse(objects), "inference/serve-any")
    assert (
        diag.nearest is not None and diag.nearest.name == "inference-l4"
    )  # "inference-l4" < "inference-spot"


def test_spec_blockers_count_before_capacity_blockers() -> None:
    """serve-l40s: inference has one capacity blocker, inference-spot one spec blocker: inference is nearest
    although it is the one EC2 cannot serve."""
    diag = diagnosis(analyse("automode-capacity"), "inference/serve-l40s")
    counts = {e.target.name: (e.spec_blockers, e.capacity_blockers) for e in diag.evaluations}
    assert diag.evaluations[0].target.name == "inference"
    assert counts["inference"] == (0, 1)
    assert counts["inference-spot"] == (1, 0)


def test_offering_targets_come_first() -> None:
    """gpu and general-purpose tie on blocker counts, general-purpose sorts first by name, but only gpu can
    offer nvidia.com/gpu."""
    objects = items("automode-gpu")
    objects.append(_gpu_pod("p", [], nodeSelector={"karpenter.sh/capacity-type": "spot"}))
    diag = diagnosis(analyse(objects, only=["t/p"]), "t/p")
    counts = {e.target.name: (e.offers, e.spec_blockers) for e in diag.evaluations}
    assert counts["gpu"] == (True, 2) and counts["general-purpose"] == (False, 2)
    assert diag.nearest is not None and diag.nearest.name == "gpu"
    assert diag.verdict is V.MISSING_TOLERATION


def test_all_targets_stay_in_the_report() -> None:
    diag = diagnosis(analyse("automode-capacity"), "inference/serve-any")
    assert codes_by_target(diag) == {
        "inference-l4": [],
        "inference-spot": [],
        "inference": ["CAPACITY_UNAVAILABLE"],
        "training": ["NODEPOOL_LIMIT_REACHED"],
        "private": ["NODECLASS_NOT_READY"],
        "reserved": ["NODECLASS_NOT_READY"],
        "general-purpose": ["NO_INSTANCE_TYPE_FITS"],
        "neuron": ["MISSING_TOLERATION", "NO_INSTANCE_TYPE_FITS"],
    }
    assert {e.target.name: e.offers for e in diag.evaluations} == {
        "inference-l4": True,
        "inference-spot": True,
        "inference": True,
        "training": True,
        "private": True,
        "reserved": True,
        "general-purpose": False,
        "neuron": False,
    }


def test_auto_mode_gpu_pod_against_the_builtin_pools() -> None:
    diag = diagnosis(analyse("automode-gpu"), "ml/gpu-nvidia-7d9f8-abcde")
    assert codes_by_target(diag) == {
        "gpu": ["MISSING_TOLERATION"],
        "general-purpose": ["NO_INSTANCE_TYPE_FITS"],
        "system": ["MISSING_TOLERATION", "NO_INSTANCE_TYPE_FITS"],
    }
    assert [b.target.name for b in diag.blockers] == ["gpu", "general-purpose", "system", "system"]


# ---- limits -----------------------------------------------------------------------------------------------


def test_limit_counts_initialized_and_launching_nodeclaims() -> None:
    """NodePool gpu: 8 GPUs; gpu-7xk4m holds 4 (status.capacity), gpu-ljvhl (g5.xlarge, launching, no
    capacity yet) 1 from the catalog: 3 left."""
    diag = diagnosis(analyse("karpenter-gpu"), "research/eight-gpus")
    assert "needs nvidia.com/gpu 8 > 3 left" in diag.reason
    limits = next(c for c in evaluation(diag, "gpu").checks if c.name == "limits")
    assert limits.ok is False


@pytest.mark.parametrize(
    ("gpus", "drop_launching", "blocked"),
    [(1, False, False), (3, False, True), (4, False, True), (4, True, False), (8, True, True)],
)
def test_limit_with_and_without_the_launching_nodeclaim(
    gpus: int, drop_launching: bool, blocked: bool
) -> None:
    """Karpenter counts whole instances against limits: 3 GPUs need a 4-GPU type, more than the 3 left."""
    objects = (
        without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
        if drop_launching
        else items("karpenter-gpu")
    )
    requests = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": str(gpus)}
    pod_obj(objects, "research/eight-gpus")["spec"]["containers"][0]["resources"]["requests"] = requests
    diag = diagnosis(analyse(objects), "research/eight-gpus")
    assert (V.NODEPOOL_LIMIT_REACHED in [b.code for b in evaluation(diag, "gpu").blockers]) is blocked


def test_limit_uses_nodepool_status_when_nodeclaims_are_missing() -> None:
    objects = without(items("automode-capacity"), "NodeClaim", "training-a1b2c", "training-d3e4f")
    assert diagnosis(analyse(objects), "training/train-llama-0").verdict is V.NODEPOOL_LIMIT_REACHED
    find(objects, "NodePool", "training")["status"] = {}
    assert diagnosis(analyse(objects), "training/train-llama-0").verdict is V.NO_BLOCKER_FOUND


def test_node_limit() -> None:
    objects = items("automode-capacity")
    find(objects, "NodePool", "training")["spec"]["limits"] = {"nodes": "2", "nvidia.com/gpu": "64"}
    diag = diagnosis(analyse(objects), "training/train-llama-0")
    assert diag.verdict is V.NODEPOOL_LIMIT_REACHED
    assert "node limits have been exhausted" in diag.reason


def test_limits_of_other_resources() -> None:
    objects = items("karpenter-gpu")
    find(objects, "NodePool", "gpu")["spec"]["limits"] = {"cpu": "52", "nvidia.com/gpu": "100"}
    # 48 + 4 vCPUs held: g5.xlarge (4 vCPUs) would exceed.
    diag = diagnosis(analyse(objects), "research/no-toleration")
    assert [str(b.code) for b in evaluation(diag, "gpu").blockers] == [
        "MISSING_TOLERATION",
        "NODEPOOL_LIMIT_REACHED",
    ]
    assert diag.verdict is V.MISSING_TOLERATION  # table order


# ---- NodeClass --------------------------------------------------------------------------------------------


def test_nodeclass_states() -> None:
    report = analyse("automode-capacity")
    missing = diagnosis(report, "training/private-job")
    assert missing.reason == "NodePool private references NodeClass private-subnets, which does not exist"
    not_ready = diagnosis(report, "training/reserved-job")
    assert not_ready.reason == "NodeClass odcr is not Ready: CapacityReservationsReady=False"
    ready = next(c for c in evaluation(missing, "inference").checks if c.name == "nodeclass")
    assert (ready.ok, ready.detail) == (True, "NodeClass gpu: Ready")


def test_nodeclasses_not_in_the_data_do_not_block() -> None:
    """No NodeClass listed at all (no permission): unknown, not missing."""
    objects = [o for o in items("automode-capacity") if o["kind"] != "NodeClass"]
    for pool in ("private", "reserved"):
        find(objects, "NodePool", pool)["status"] = {}
    diag = diagnosis(analyse(objects), "training/private-job")
    assert diag.verdict is V.UNVERIFIED  # unknown is not ok: the NodeClass could not be checked
    assert "nodeclass" in diag.reason
    check = next(c for c in evaluation(diag, "private").checks if c.name == "nodeclass")
    assert check.ok is None


def test_nodepool_condition_without_nodeclass_data() -> None:
    objects = [o for o in items("automode-capacity") if o["kind"] != "NodeClass"]
    diag = diagnosis(analyse(objects), "training/private-job")
    assert diag.verdict is V.NODECLASS_NOT_READY
    assert "NodeClassReady=False" in diag.reason


def test_nodepool_without_nodeclassref() -> None:
    objects = items("automode-capacity")
    del find(objects, "NodePool", "private")["spec"]["template"]["spec"]["nodeClassRef"]
    diag = diagnosis(analyse(objects), "training/private-job")
    assert diag.verdict is V.NODECLASS_NOT_READY
    assert "no nodeClassRef" in diag.reason


# ---- existing nodes ---------------------------------------------------------------------------------------


def test_free_accelerators_ignore_finished_pods() -> None:
    diag = diagnosis(analyse("no-karpenter"), "notebooks/notebook-d")
    node = evaluation(diag, "s4124-0073")
    assert node.blockers == ()
    assert next(c for c in node.checks if c.name == "free accelerators").ok is True


def test_mig_slices_are_counted_per_profile() -> None:
    diag = diagnosis(analyse("no-karpenter"), "notebooks/notebook-c")
    assert diag.reason == "node s4124-0073: nvidia.com/mig-1g.10gb: 0 free, 1 wanted"
    assert [e.target.name for e in diag.evaluations if e.offers] == ["s4124-0073"]


def test_cordoned_node() -> None:
    objects = items("no-karpenter")
    find(objects, "Node", "ip-10-0-3-17.ec2.internal")["spec"]["unschedulable"] = True
    diag = diagnosis(analyse(objects), "serving/t4-inference")
    assert diag.verdict is V.INSUFFICIENT_ACCELERATOR
    assert "cordoned" in diag.reason


def test_node_checks() -> None:
    diag = diagnosis(analyse("no-karpenter"), "training/h100-eval")
    node = evaluation(diag, "gpu-node-1")
    assert [c.name for c in node.checks] == ["taints", "selectors", "free accelerators", "resources"]
    assert [c.ok for c in node.checks] == [False, True, True, True]
    t4 = evaluation(diag, "ip-10-0-3-17.ec2.internal")
    # The T4 node also lacks the cpu the pod asks for (8 of 3.92 free: noderesources Fit).
    assert [str(b.code) for b in t4.blockers] == [
        "MISSING_TOLERATION",
        "REQUIREMENT_CONFLICT",
        "INSUFFICIENT_RESOURCES",
    ]


def test_nodepool_checks() -> None:
    diag = diagnosis(analyse("automode-capacity"), "training/train-llama-0")
    training = evaluation(diag, "training")
    assert [c.name for c in training.checks] == [
        "taints",
        "requirements",
        "instance types",
        "limits",
        "nodeclass",
        "capacity",
    ]
    assert [c.ok for c in training.checks] == [True, True, True, False, True, True]
    assert training.fitting_types == ("p5.48xlarge",)  # 32 EFA interfaces: only the 48xlarge
