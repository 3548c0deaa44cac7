"""Grouping Pending pods: by what the analysis reads of them (`shape_key`) and by the workload that made
them (`owner_key`).

Thousands of Pending pods are usually one job's, and they are alike in everything the pending analysis reads
of a pod. `shape_key` is that everything: two pods with equal keys get the same targets, blockers, summary,
verdict and verified fix (only their events, and what is read from them, are their own), so the analysis
evaluates a shape once and the JSON lists its blockers once (`shapes[]`, docs/json-contract.md).

`owner_key` is the workload a person thinks of (the Deployment, not its ReplicaSet), for showing pods
grouped; it says nothing about their answers being alike (a rollout's two ReplicaSets differ).
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.pod.shape import shape_key_of
from kubectl_gpu.core.k8s.models import Pod

__all__ = ["LWS_NAME_LABEL", "Owner", "ShapeKey", "owner_key", "shape_key"]

#: LeaderWorkerSet labels every pod of a group with its set's name (its StatefulSets are an implementation).
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"

ShapeKey = tuple[Any, ...]


class Owner(msgspec.Struct, frozen=True, order=True):
    """A workload: `kind` is `Deployment`, `Job`, `StatefulSet`, `LeaderWorkerSet`, or the controller's own
    kind (`ReplicaSet` without a Deployment, `DaemonSet`, a custom resource)."""

    namespace: str
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


def owner_key(pod: Pod) -> Owner | None:
    """The workload that owns the pod, or None for a bare pod (no ownerReferences)."""
    lws = pod.meta.labels.get(LWS_NAME_LABEL)
    if lws:
        return Owner(pod.namespace, "LeaderWorkerSet", lws)
    kind, name = pod.meta.owner_kind, pod.meta.owner_name
    if not kind or not name:
        return None
    template_hash = pod.meta.labels.get("pod-template-hash")
    if kind == "ReplicaSet" and template_hash and name.endswith(f"-{template_hash}"):
        return Owner(pod.namespace, "Deployment", name[: -len(template_hash) - 1])
    return Owner(pod.namespace, kind, name)


def shape_key(pod: Pod, *, labels: bool = True) -> ShapeKey:
    """Every input of the pending analysis that is the pod's own, but its name, uid, age and events.

    `labels=False` leaves the labels out where no placement rule of the pod reads them (spread, pod
    affinity): only a placed pod's required anti-affinity may then select the pod by them, and the caller
    knows whether the cluster has one (`ClusterState.placed_with_anti_affinity`). The default keeps them:
    sound whatever the cluster.

    Read by the analysis and so in the key: requests (accelerators, EFA, cpu, memory, ephemeral storage),
    tolerations, nodeSelector, node affinity, host ports, topology spread, pod (anti-)affinity, the claims it
    mounts (by name: the claim decides the class and zone), the namespace, the scheduler, scheduling gates,
    DRA claims, the node it is bound to, and the phase. Container statuses are read only of a bound pod,
    which `diagnose` answers on its own.
    """
    return (
        shape_key_of(pod),
        pod.namespace,
        tuple(sorted(pod.meta.labels.items())) if labels else None,
        pod.scheduler_name,
        pod.scheduling_gates,
        pod.resource_claims,
        pod.node_name,
        pod.phase,
    )
