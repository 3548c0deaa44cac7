"""Issue 37 (round four), causes 6, 7 and 11: the headline is the blocker whose fix can help, advice leaves a
valid pod, and GPUs and quarantine beyond the device plugin. Each case cites the rule it follows.

* Cause 6: Karpenter tries only NodePools that can launch an instance type with the pod's resources
  (kubernetes-sigs/karpenter `pkg/controllers/provisioning/scheduling/nodeclaim.go`, "no instance type
  satisfied resources"); a pool that cannot offer the accelerator at all is no place whose blocker to fix.
* Cause 7: kubernetes `k8s.io/api/core/v1` `types.go` NodeSelectorTerm ("A null or empty node selector term
  matches no objects") and NodeSelector (`nodeSelectorTerms`: "Required"); a volume pinned by
  `kubernetes.io/hostname` lives on that node (karpenter `volumetopology.go` `GetRequirements`, kube-scheduler
  `volumebinding`: a new node's hostname is its own, `NewNodeClaim`).
* Cause 11: NVIDIA/NVSentinel `docs/INTEGRATIONS.md` @9087c1f8 ("Default Taint Examples") and
  `fault-quarantine/pkg/common/common.go` (annotations `quarantineHealthEvent`,
  `quarantineHealthEventAppliedTaints`); the EKS user guide "Detect node health issues and enable automatic
  node repair" (the node monitoring agent sets conditions, repair replaces the node); karpenter
  `pkg/apis/v1/taints.go` `DisruptedNoScheduleTaint`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending.checks.removal import removal_advice
from kubectl_gpu.core.analyses.pending.pod.shape import shape_of
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.scheduling.quarantine import quarantine_of
from kubectl_gpu.core.scheduling.taints import Taint
from tests.core.analyses.pending._round_two import gpu_pod, verdict
from tests.core.analyses.pending._scenarios import Obj, find, items, without
from tests.core.analyses.pending.test_round_three import _neuron_pod
from tests.core.analyses.pending.test_volumes import cluster, pv, pvc, storage_class

# ---- 6. the headline is the blocker whose fix can help -------------------------------------------------------


def test_a_neuron_pod_is_never_told_to_tolerate_a_gpu_only_pool(monkeypatch: Any) -> None:
    """The Neuron pool is nearest; when its fix is not verified, the next targets are the GPU-only pools,
    whose toleration fix removes their taint and helps nothing: the Neuron pool keeps the verdict."""
    from kubectl_gpu.core.analyses.pending.verify import verifier as fix_check

    real = fix_check.pod_change

    def broken_for_neuron(pod: Pod, blocker: Any, taints_of: Any) -> Any:
        if blocker.target.name == "neuron":
            return pod, "nothing changed"
        return real(pod, blocker, taints_of)

    monkeypatch.setattr(fix_check, "pod_change", broken_for_neuron)
    objects = without(items("automode-capacity"), "NodeClaim", "neuron-x9p2m")
    pod = _neuron_pod("no-toleration")
    pod["spec"]["tolerations"] = []
    diag = verdict([*objects, pod], "no-toleration", "inferentia")
    assert diag.nearest is not None and diag.nearest.name == "neuron", diag.reason
    assert "nvidia.com/gpu" not in (diag.fix or "") and "nvidia.com/gpu" not in diag.reason


def test_a_pod_only_nodes_can_take_is_told_which_device_no_node_has() -> None:
    """Karpenter ignores a pod pinned by kubernetes.io/hostname (`provisioner.go` Validate): only the nodes
    are judged, and none has a Neuron device, so the reason says that, not a GPU node's taint."""
    pod = _neuron_pod("pinned", nodeSelector={"kubernetes.io/hostname": "i-02315c7d7643cdee6"})
    pod["spec"]["tolerations"] = []
    diag = verdict([*items("automode-gpu"), pod], "pinned", "inferentia")
    assert diag.verdict is V.POD_IGNORED_BY_PROVISIONER
    assert diag.reason.endswith("no node has aws.amazon.com/neuron"), diag.reason
    assert "tolerate" not in diag.reason


# ---- 7. advice that produces a valid pod ---------------------------------------------------------------------

KEY = "example.com/team"


def _expr(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


def _required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]
            }
        }
    }


def _shape(**spec: Any) -> Any:
    pod = parse_object(gpu_pod(**spec))
    assert isinstance(pod, Pod)
    return shape_of(pod)


@pytest.mark.parametrize(
    ("spec", "said", "never"),
    [
        ({"nodeSelector": {KEY: "a"}}, f"remove {KEY} from the pod's nodeSelector", "nodeSelectorTerms"),
        # Its only term is K alone: the term would be empty (matches nothing) and no term is invalid.
        (
            {"affinity": _required([_expr(KEY, "a")])},
            "remove spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            "leaving",
        ),
        # One of two terms is K alone: that term goes, the other stays.
        (
            {"affinity": _required([_expr(KEY, "a")], [_expr("karpenter.sh/capacity-type", "spot")])},
            f"remove nodeSelectorTerms[0] ({KEY} In [a])",
            "requiredDuringScheduling",
        ),
        # K beside another expression: the term that is left is shown.
        (
            {"affinity": _required([_expr(KEY, "a"), _expr("karpenter.sh/capacity-type", "spot")])},
            f"remove {KEY} from nodeSelectorTerms[0], leaving karpenter.sh/capacity-type In [spot]",
            "empty",
        ),
    ],
    ids=["nodeSelector", "only-term", "one-of-two-terms", "term-with-more"],
)
def test_removing_a_key_never_leaves_an_empty_term(spec: dict[str, Any], said: str, never: str) -> None:
    advice = removal_advice(_shape(**spec), KEY)
    assert said in advice, advice
    assert never not in advice, advice


def test_an_unknown_label_in_the_only_term_is_advised_as_removing_the_node_affinity() -> None:
    """Through the analysis: the advice names the whole required node affinity, and the verified change
    (`verify._rekeyed`, the same change) lets the pool launch."""
    diag = verdict([*items("automode-gpu"), gpu_pod(affinity=_required([_expr(KEY, "a")]))])
    assert diag.verdict is V.UNKNOWN_LABEL
    assert "requiredDuringSchedulingIgnoredDuringExecution (its only term selects" in (diag.fix or "")
    assert diag.fix_check is not None and diag.fix_check.verified is True
    assert diag.fix_check.after is not None and diag.fix_check.after.clear


def _host(name: str) -> list[dict[str, Any]]:
    return [{"key": "kubernetes.io/hostname", "operator": "In", "values": [name]}]


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("i-02315c7d7643cdee6", "make room for it there"),  # the g6e node: it has the GPU
        ("i-07fd006840ed07309", "and it has no nvidia.com/gpu: the pod cannot run while its data is there"),
        ("i-0gone", "no such node is in the data"),
    ],
    ids=["gpu-node", "cpu-node", "gone"],
)
def test_a_volume_pinned_to_a_node_gets_advice_about_that_node_not_a_zone(host: str, said: str) -> None:
    """A non-local volume pinned to one hostname: no new node can be that node, so the advice is about the
    node (make room there when it has the accelerator, else move the data), never "allow the volume's zone
    in the NodePool"."""
    diag = verdict(cluster(None, pvc(volume="pv-h"), pv("pv-h", _host(host)), storage_class()))
    assert diag.verdict is V.VOLUME_TOPOLOGY_CONFLICT
    assert f"node {host}" in (diag.fix or "") and said in (diag.fix or ""), diag.fix
    assert "zone" not in (diag.fix or "")


def test_a_zonal_volume_keeps_its_zone_advice() -> None:
    zone = [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2a"]}]
    objects = cluster(None, pvc(volume="pv-a"), pv("pv-a", zone), storage_class())
    reqs = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"]
    reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]})
    diag = verdict(objects)
    assert diag.verdict is V.VOLUME_TOPOLOGY_CONFLICT
    assert "allow the volume's zone" in (diag.fix or "")


# ---- 11. GPUs and quarantine beyond the device plugin --------------------------------------------------------


def _node(taints: list[dict[str, str]], annotations: dict[str, str] | None = None, **status: Any) -> Node:
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n", "annotations": annotations or {}},
        "spec": {"taints": taints},
        "status": {"conditions": [{"type": "Ready", "status": "True"}], **status},
    }
    node = parse_object(obj)
    assert isinstance(node, Node)
    return node


XID = {"key": "nvidia.com/gpu-xid-error", "value": "true", "effect": "NoSchedule"}
CUSTOM = {"key": "example.com/bad-gpu", "value": "fatal", "effect": "NoSchedule"}
DISRUPTED = {"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}
XID79 = {"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaXID79Error"}


@pytest.mark.parametrize(
    ("taint", "annotations", "conditions", "system"),
    [
        (XID, None, [], "NVIDIA NVSentinel"),  # INTEGRATIONS.md "Default Taint Examples"
        (CUSTOM, {"quarantineHealthEventAppliedTaints": json.dumps([CUSTOM])}, [], "NVIDIA NVSentinel"),
        (CUSTOM, None, [], None),  # a taint of someone else's
        (
            DISRUPTED,
            None,
            [XID79],
            "EKS node repair",
        ),  # repair replaces the node: Karpenter's disruption taint
        (DISRUPTED, None, [], None),  # consolidation, not a repair
    ],
    ids=["nvsentinel-key", "nvsentinel-annotation", "other-taint", "eks-repair", "consolidation"],
)
def test_health_taints_are_a_quarantine(
    taint: dict[str, str], annotations: dict[str, str] | None, conditions: list[Any], system: str | None
) -> None:
    node = _node([taint], annotations, conditions=[{"type": "Ready", "status": "True"}, *conditions])
    found = quarantine_of(node, Taint.from_dict(taint))
    assert (found is None) if system is None else (found is not None and found.startswith(system)), found


def test_a_quarantined_gpu_node_is_named_and_never_tolerated() -> None:
    """The pod would fit gpu-node-1 but NVSentinel quarantined it: NODE_QUARANTINED, no toleration fix, and
    no verified change (tolerating would place the pod on faulty hardware)."""
    objects = items("no-karpenter")
    node = find(objects, "Node", "gpu-node-1")
    node["spec"]["taints"].append(XID)
    pod = gpu_pod(nodeSelector={"kubernetes.io/hostname": "gpu-node-1"})
    pod["spec"]["tolerations"] = [
        {"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoExecute"}
    ]
    diag = verdict([*objects, pod])
    assert diag.verdict is V.NODE_QUARANTINED, (diag.verdict, diag.reason)
    assert "NVIDIA NVSentinel quarantined it" in diag.reason
    assert "tolerations:" not in (diag.fix or "") and (diag.fix or "").startswith("do not tolerate")
    assert diag.fix_check is None or diag.fix_check.verified is not True


# A node that advertises its GPUs only through DRA: the NVIDIA DRA driver (NVIDIA/k8s-dra-driver-gpu)
# publishes a ResourceSlice per node with driver gpu.nvidia.com, one device per GPU (the resource.k8s.io/v1
# shape: `spec.driver`, `spec.nodeName`, `spec.pool`, `spec.devices[]`); no nvidia.com/gpu on the node.
DRA_NODE: Obj = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "worker-dra-1", "labels": {"kubernetes.io/hostname": "worker-dra-1"}},
    "spec": {},
    "status": {
        "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"},
        "allocatable": {"cpu": "31", "memory": "250Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True"}],
    },
}
DRA_SLICE: Obj = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "worker-dra-1-gpu.nvidia.com-abcde"},
    "spec": {
        "driver": "gpu.nvidia.com",
        "nodeName": "worker-dra-1",
        "pool": {"name": "worker-dra-1", "generation": 1, "resourceSliceCount": 1},
        "devices": [
            {"name": f"gpu-{i}", "attributes": {"productName": {"string": "NVIDIA H100 80GB HBM3"}}}
            for i in range(2)
        ],
    },
}


def _dra_pod(name: str = "claims-gpu") -> Obj:
    pod = gpu_pod(name, requests={}, resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}])
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


@pytest.mark.parametrize("scenario", ["no-karpenter", "automode-gpu"])
def test_a_dra_pod_is_judged_against_the_node_that_publishes_gpus(scenario: str) -> None:
    """Without pools, kube-scheduler's DynamicResources plugin places the claim on a node whose ResourceSlices
    have the device; with Karpenter, which ignores DRA pods (`--ignore-dra-requests`), only nodes are judged:
    either way the nearest target is the DRA GPU node, never a CPU node that cannot have the device."""
    diag = verdict([*items(scenario), DRA_NODE, DRA_SLICE, _dra_pod()], "claims-gpu")
    assert diag.nearest is not None and diag.nearest.name == "worker-dra-1", (diag.verdict, diag.reason)
    assert "no node has" not in diag.reason


def test_a_dra_gpu_node_is_a_gpu_node_in_the_views() -> None:
    """`nodes` lists it with its DRA devices, and `drivers` counts it an NVIDIA node (no nvidia.com/gpu, no
    instance type, no GPU label: only its ResourceSlice says so)."""
    from kubectl_gpu.core.accelerators.nodes import node_rows
    from kubectl_gpu.core.analyses.drivers.analysis import build_driver_report
    from tests.core.analyses.pending._scenarios import NOW, catalog, state_of

    state = state_of([DRA_NODE, DRA_SLICE])
    rows = node_rows(state, catalog())
    assert [r.name for r in rows] == ["worker-dra-1"]
    assert rows[0].accelerator is not None and rows[0].accelerator.source == "dra"
    assert rows[0].accelerator.capacity == 2
    report = build_driver_report(state, catalog(), NOW)
    assert "worker-dra-1" in json.dumps(report.to_dict())
