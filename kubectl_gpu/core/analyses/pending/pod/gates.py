"""Verdicts decided by the pod before any target is judged (a `Decision` with no target).

* `SCHEDULING_GATED`: kube-scheduler does not even try a pod with `spec.schedulingGates` (PreEnqueue of the
  SchedulingGates plugin, condition reason `SchedulingGated`), and Karpenter's `IsProvisionable`
  (`pkg/utils/pod/scheduling.go`) needs `PodScheduled` reason `Unschedulable`, which a gated pod never gets.
* `NOT_HANDLED_BY_SCHEDULER`: another `schedulerName`: kube-scheduler's profiles skip it, so no
  `Unschedulable` condition from it either (`FailedToSchedule`: "Karpenter won't react to this pod").
* `INVALID_SELECTOR`, `POD_IGNORED_BY_PROVISIONER`, `DRA_NOT_SUPPORTED_BY_PROVISIONER`: see
  `core/scheduling/provisionable.py`.
"""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.decision import Decision
from kubectl_gpu.core.analyses.pending.verdicts import Verdict
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.scheduling.provisionable import (
    DRA_IGNORED,
    provisioner_rejections,
    selector_never_matches,
)

__all__ = ["DEFAULT_SCHEDULER", "pod_decision", "provisioner_skip"]

DEFAULT_SCHEDULER = "default-scheduler"


def pod_decision(pod: Pod) -> Decision | None:
    """Gated pods and pods of another scheduler: nobody tries to place them, so no target is judged."""
    if pod.scheduling_gates:
        gates = ", ".join(pod.scheduling_gates)
        return Decision(
            Verdict.SCHEDULING_GATED,
            f"spec.schedulingGates ({gates}) hold the pod: kube-scheduler does not try it and Karpenter does "
            "not provision for it until every gate is removed",
            "the controller that owns the gate removes it (Kueue: when the workload is admitted; "
            "kubectl get workloads -A); check that controller, not the nodes",
        )
    if pod.scheduler_name != DEFAULT_SCHEDULER:
        return Decision(
            Verdict.NOT_HANDLED_BY_SCHEDULER,
            f"spec.schedulerName is {pod.scheduler_name}: kube-scheduler and Karpenter leave this pod to that "
            "scheduler",
            f"check that {pod.scheduler_name} is running and read its logs and events, or remove "
            "spec.schedulerName to use the default scheduler",
        )
    return None


def provisioner_skip(pod: Pod, *, has_pools: bool, provider: str | None = None) -> Decision | None:
    """A selector no node can match, or a pod Karpenter ignores (then only existing nodes are judged)."""
    never = selector_never_matches(pod.node_affinity)
    if never is not None:
        return Decision(
            Verdict.INVALID_SELECTOR,
            f"the pod's node selector can never match a node: {never}",
            "fix spec.affinity.nodeAffinity (In/NotIn need values, Gt/Lt one integer, no empty terms)",
        )
    if not has_pools:
        return None
    rejected = provisioner_rejections(pod.node_selector, pod.node_affinity, provider)
    if rejected:
        return Decision(
            Verdict.POD_IGNORED_BY_PROVISIONER,
            f"Karpenter ignores this pod ({'; '.join(rejected)}): only existing nodes can take it",
            "select nodes by labels a NodePool can set (not matchFields, kubernetes.io/hostname, a karpenter.sh "
            "label or, with self-managed Karpenter, a karpenter.k8s.aws label it does not define; Gt/Lt with one "
            "non-negative integer), or give the pod an existing node",
        )
    if pod.resource_claims:
        return Decision(
            Verdict.DRA_NOT_SUPPORTED_BY_PROVISIONER,
            f"the pod uses DRA ResourceClaims ({', '.join(pod.resource_claims)}): {DRA_IGNORED} "
            "(--ignore-dra-requests, on by default), so only existing nodes can take it",
            "run it on nodes that publish the devices in ResourceSlices (a node group with the DRA driver), "
            "or request the device-plugin resource (nvidia.com/gpu) instead",
        )
    return None
