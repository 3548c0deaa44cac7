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

from typing import Any

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.k8s.models import Pod
from tests.core.analyses.pending._round_two import verdict
from tests.core.analyses.pending._scenarios import items, without
from tests.core.analyses.pending.test_round_three import _neuron_pod

# ---- 6. the headline is the blocker whose fix can help -------------------------------------------------------


def test_a_neuron_pod_is_never_told_to_tolerate_a_gpu_only_pool(monkeypatch: Any) -> None:
    """The Neuron pool is nearest; when its fix is not verified, the next targets are the GPU-only pools,
    whose toleration fix removes their taint and helps nothing: the Neuron pool keeps the verdict."""
    from kubectl_gpu.core.analyses.pending import fix_check

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
