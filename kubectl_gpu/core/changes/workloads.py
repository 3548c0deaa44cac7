"""Workloads as the scheduler would see them: a Deployment, StatefulSet, Job or LeaderWorkerSet becomes the
Pending pods its template makes, one per replica. The captured state holds no workload objects, only their
pods: the pods a workload owns are found by owner (ReplicaSet `NAME-HASH`, StatefulSet, Job) or label (LWS).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = [
    "DEFAULT_TOLERATIONS",
    "LWS_NAME_LABEL",
    "base_from_pods",
    "owned_pods",
    "replica_count",
    "replica_pods",
    "same_scheduling",
]

LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
_POD_ONLY_LABELS = ("pod-template-hash", "controller-revision-hash", "statefulset.kubernetes.io/pod-name")
#: The pod spec fields the scheduler and Karpenter read: a template that changes none of them leaves the
#: running pods where they are (only the replica count can then change what is Pending).
_SCHEDULING_FIELDS = (
    "tolerations",
    "nodeSelector",
    "affinity",
    "topologySpreadConstraints",
    "priorityClassName",
    "schedulerName",
    "resourceClaims",
    "runtimeClassName",
    "volumes",
)


def owned_pods(state: ClusterState, kind: str, namespace: str, name: str) -> list[Pod]:
    """The pods of one workload (or the pod itself, for kind Pod), in list order."""
    out = []
    for pod in state.pods:
        if pod.namespace != namespace:
            continue
        owner_kind, owner = pod.meta.owner_kind, pod.meta.owner_name or ""
        if (
            (kind == "Pod" and pod.name == name)
            or (kind == "Deployment" and owner_kind == "ReplicaSet" and owner.rpartition("-")[0] == name)
            or (kind in ("StatefulSet", "Job") and owner_kind == kind and owner == name)
            or (kind == "LeaderWorkerSet" and pod.meta.labels.get(LWS_NAME_LABEL) == name)
        ):
            out.append(pod)
    return out


def base_from_pods(
    kind: str, api_version: str, name: str, namespace: str, pods: list[Pod], manifest: Mapping[str, Any]
) -> dict[str, Any]:
    """The workload a patch applies to, rebuilt from one of its pods (`manifest`) and their count: the
    snapshot holds no workload objects. Only `replicas` and `template` are known."""
    spec = {k: copy.deepcopy(v) for k, v in (manifest.get("spec") or {}).items() if k != "nodeName"}
    labels = {
        k: v
        for k, v in ((manifest.get("metadata") or {}).get("labels") or {}).items()
        if k not in _POD_ONLY_LABELS
    }
    template = {"metadata": {"labels": labels}, "spec": spec}
    live = sum(1 for p in pods if not p.terminated)
    body: dict[str, Any] = {"replicas": live}
    if kind == "Job":
        body = {"parallelism": live}
    if kind == "LeaderWorkerSet":
        body = {"replicas": live, "leaderWorkerTemplate": {"size": 1, "workerTemplate": template}}
    else:
        body["template"] = template
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
    }


def _templates(kind: str, spec: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(pod name suffix pattern, template) per pod of one replica: one template, or an LWS group's leader
    then its workers."""
    if kind != "LeaderWorkerSet":
        return [("", spec.get("template") or {})]
    lwt = spec.get("leaderWorkerTemplate") or {}
    worker = lwt.get("workerTemplate") or {}
    size = lwt.get("size", 1)
    size = size if isinstance(size, int) and size > 0 else 1
    leader = lwt.get("leaderTemplate") or worker
    return [("", leader)] + [(f"-{w}", worker) for w in range(1, size)]


def replica_count(kind: str, spec: Mapping[str, Any]) -> int:
    key = "parallelism" if kind == "Job" else "replicas"
    value = spec.get(key, 1)
    return value if isinstance(value, int) and value >= 0 else 1


def replica_pods(
    obj: Mapping[str, Any], kind: str, start: int, count: int, now: datetime | None
) -> list[dict[str, Any]]:
    """`count` Pending pods (replicas `start`..) of a workload object, as pod dicts the parsers read."""
    meta = obj.get("metadata") or {}
    name, namespace = meta.get("name"), meta.get("namespace")
    spec = obj.get("spec") or {}
    owner_kind = "ReplicaSet" if kind == "Deployment" else kind
    owner_name = f"{name}-simulated" if kind == "Deployment" else name
    created = now.isoformat().replace("+00:00", "Z") if now else None
    pods = []
    for index in range(start, start + count):
        for suffix, template in _templates(kind, spec):
            tmeta = template.get("metadata") or {}
            pod_name = f"{name}-simulated-{index}" if kind == "Deployment" else f"{name}-{index}{suffix}"
            labels = dict(tmeta.get("labels") or {})
            if kind == "LeaderWorkerSet":
                labels[LWS_NAME_LABEL] = name
            metadata: dict[str, Any] = {
                "name": pod_name,
                "namespace": namespace,
                "labels": labels,
                "annotations": dict(tmeta.get("annotations") or {}),
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": owner_kind, "name": owner_name, "controller": True}
                ],
            }
            if created:
                metadata["creationTimestamp"] = created
            pod_spec = copy.deepcopy(dict(template.get("spec") or {}))
            pod_spec.pop("nodeName", None)
            pod_spec["tolerations"] = _admitted(pod_spec.get("tolerations"))
            pods.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": metadata,
                    "spec": pod_spec,
                    "status": {"phase": "Pending"},
                }
            )
    return pods


#: What the DefaultTolerationSeconds admission plugin adds to every pod: not part of what the template asked.
DEFAULT_TOLERATIONS = tuple(
    {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
)
_DEFAULT_KEYS = frozenset(t["key"] for t in DEFAULT_TOLERATIONS)


def _admitted(tolerations: Any) -> list[Any]:
    """A pod's tolerations as the API server stores them: the admission defaults added when missing."""
    out = list(tolerations or ())
    keys = {t.get("key") for t in out if isinstance(t, Mapping) and t.get("effect") in ("NoExecute", None)}
    return out + [dict(t) for t in DEFAULT_TOLERATIONS if t["key"] not in keys]


def _asked(tolerations: Any) -> list[Any]:
    return [t for t in tolerations or () if not (isinstance(t, Mapping) and t.get("key") in _DEFAULT_KEYS)]


def _scheduling(spec: Mapping[str, Any]) -> tuple[Any, ...]:
    spec = {**spec, "tolerations": _asked(spec.get("tolerations"))}
    containers = [
        (c.get("name"), c.get("resources"), c.get("ports"))
        for key in ("initContainers", "containers")
        for c in spec.get(key) or ()
        if isinstance(c, Mapping)
    ]
    return (tuple(repr(spec.get(f)) for f in _SCHEDULING_FIELDS), repr(containers))


def same_scheduling(old_pod_spec: Mapping[str, Any] | None, template: Mapping[str, Any]) -> bool:
    """Whether a template asks the scheduler for what the running pods asked (their spec, as captured)."""
    if old_pod_spec is None:
        return False
    return _scheduling(old_pod_spec) == _scheduling(template.get("spec") or {})
