"""Pods, NodePools, NodeClaims and Events as `kubectl get -o json` prints them, for `bench/shapes.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from shapes_objects import NOW, Ids, InstanceType, Obj, ago, instance_labels, meta, ts

DEFAULT_TOLERATIONS = [
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
]


@dataclass
class PodSpec:
    """What a workload asks for: requests, selectors, affinity, tolerations."""

    app: str
    namespace: str
    image: str
    requests: dict[str, str]
    limits: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: list[Obj] = field(default_factory=list)  # matchExpressions of one required term
    tolerations: list[Obj] = field(default_factory=list)
    full: bool = False  # env, probes, ports, mounts and container statuses (a real app's pod)


def pod(ids: Ids, spec: PodSpec, node_name: str | None, host_ip: str = "") -> Obj:
    """A pod of a ReplicaSet: Running on `node_name`, or Pending (unschedulable) when it is None."""
    rng = ids.rng
    rs = f"{spec.app}-{ids.hex(10)[:9]}"
    name = f"{rs}-{ids.suffix()}"
    created = ago(rng, 120, 8 * 86400)
    container: Obj = {
        "image": spec.image,
        "imagePullPolicy": "IfNotPresent",
        "name": spec.app,
        "resources": {"limits": spec.limits or dict(spec.requests), "requests": spec.requests},
    }
    if spec.full:
        container |= _full_container(ids, spec)
    pod_spec: Obj = {"containers": [container]}
    if spec.full:  # a small pod (issue 38's ~1.2 KB) carries only what its manifest set
        pod_spec |= {"dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "securityContext": {}}
    if spec.affinity:
        terms = [{"matchExpressions": spec.affinity}]
        pod_spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        }
    if node_name:
        pod_spec["nodeName"] = node_name
    if spec.node_selector:
        pod_spec["nodeSelector"] = spec.node_selector
    pod_spec |= {
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": spec.tolerations + DEFAULT_TOLERATIONS,
    }
    if spec.full:
        pod_spec["volumes"] = [
            {"name": "cache", "emptyDir": {}},
            {
                "name": "kube-api-access-" + ids.suffix(),
                "projected": {
                    "defaultMode": 420,
                    "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}],
                },
            },
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta(
            ids,
            name,
            created,
            spec.namespace,
            generateName=f"{rs}-",
            labels={"app": spec.app, "pod-template-hash": rs.rsplit("-", 1)[1]},
            ownerReferences=[
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "ReplicaSet",
                    "name": rs,
                    "uid": ids.uid(),
                }
            ],
        ),
        "spec": pod_spec,
        "status": _status(ids, spec, created, node_name, host_ip),
    }


def _full_container(ids: Ids, spec: PodSpec) -> Obj:
    probe = {
        "failureThreshold": 3,
        "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
        "periodSeconds": 10,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    }
    return {
        "env": [
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "MODEL_ID", "value": f"org/{spec.app}-{ids.hex(6)}"},
            {
                "name": "POD_NAME",
                "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
            },
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"key": "token", "name": "hf"}}},
            {"name": "OMP_NUM_THREADS", "value": "4"},
        ],
        "livenessProbe": probe | {"initialDelaySeconds": 30},
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "readinessProbe": probe | {"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/cache", "name": "cache"},
            {
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": "kube-api-access",
                "readOnly": True,
            },
        ],
    }


def _status(ids: Ids, spec: PodSpec, created: datetime, node_name: str | None, host_ip: str) -> Obj:
    if node_name is None:
        return {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ts(created),
                    "message": "0/1000 nodes are available: preemption: not eligible.",
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
            "phase": "Pending",
            "qosClass": "Burstable",
        }
    started = created + timedelta(seconds=4)
    pod_ip = f"10.{ids.rng.randint(0, 255)}.{ids.rng.randint(0, 255)}.{ids.rng.randint(1, 254)}"
    status: Obj = {
        "conditions": [
            {"lastProbeTime": None, "lastTransitionTime": ts(started), "status": "True", "type": t}
            for t in (("Initialized", "Ready", "ContainersReady") if spec.full else ("Ready",))
            + ("PodScheduled",)
        ],
        "hostIP": host_ip,
        "phase": "Running",
        "podIP": pod_ip,
        "qosClass": "Burstable",
        "startTime": ts(started),
    }
    if spec.full:
        status["containerStatuses"] = [
            {
                "containerID": f"containerd://{ids.hex(64)}",
                "image": spec.image,
                "imageID": f"{spec.image.split(':')[0]}@sha256:{ids.hex(64)}",
                "lastState": {},
                "name": spec.app,
                "ready": True,
                "restartCount": ids.rng.choice((0, 0, 0, 1, 3)),
                "started": True,
                "state": {"running": {"startedAt": ts(started + timedelta(seconds=20))}},
            }
        ]
        status["podIPs"] = [{"ip": pod_ip}]
    return status


def requirement(key: str, op: str, values: list[str] | None = None) -> Obj:
    out: Obj = {"key": key, "operator": op}
    if values is not None:
        out["values"] = values
    return out


def nodepool(ids: Ids, name: str, requirements: list[Obj], **more: Any) -> Obj:
    """A karpenter.sh/v1 NodePool on the Auto Mode NodeClass. `more`: taints, limits, weight, labels."""
    template: Obj = {
        "spec": {
            "expireAfter": more.get("expire", "336h"),
            "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
            "requirements": requirements,
            "terminationGracePeriod": "24h0m0s",
        }
    }
    if more.get("taints"):
        template["spec"]["taints"] = more["taints"]
    if more.get("labels"):
        template["metadata"] = {"labels": more["labels"]}
    spec: Obj = {
        "disruption": {
            "budgets": [{"nodes": "10%"}],
            "consolidateAfter": "30s",
            "consolidationPolicy": "WhenEmptyOrUnderutilized",
        },
        "template": template,
    }
    if more.get("limits"):
        spec["limits"] = more["limits"]
    if more.get("weight"):
        spec["weight"] = more["weight"]
    conditions = [
        {
            "lastTransitionTime": "2026-10-02T17:21:12Z",
            "message": "",
            "observedGeneration": 1,
            "reason": t,
            "status": "True",
            "type": t,
        }
        for t in ("NodeClassReady", "NodeRegistrationHealthy", "Ready", "ValidationSucceeded")
    ]
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": meta(
            ids,
            name,
            NOW - timedelta(days=60),
            generation=1,
            annotations={
                "karpenter.sh/nodepool-hash": str(ids.rng.getrandbits(60)),
                "karpenter.sh/nodepool-hash-version": "v3",
            },
        ),
        "spec": spec,
        "status": {
            "conditions": conditions,
            "nodeClassObservedGeneration": 1,
            "resources": more.get("used", {"cpu": "0", "memory": "0", "nodes": "0", "pods": "0"}),
        },
    }


# Auto Mode's AMIs of one release (the nodes' osImage names one): one per variant and architecture, as a
# cluster has them, not one per NodeClaim.
_AMIS = {
    ("nvidia", "x86_64"): "ami-0a51c6e9d2f4b7380",
    ("nvidia", "arm64"): "ami-0c93e1a7b5d2f6041",
    ("standard", "x86_64"): "ami-0e27b4d8c1a9f5362",
    ("standard", "arm64"): "ami-0f18d5c2a7e3b9470",
}


def _ami(it: InstanceType) -> str:
    arch = "arm64" if "g" in it.family[2:] else "x86_64"  # Graviton: m7g, c7gn, r6gd, g5g
    return _AMIS[("nvidia" if it.gpus else "standard", arch)]


def nodeclaim(
    ids: Ids,
    pool: str,
    it: InstanceType,
    zone: str,
    capacity: str,
    requirements: list[Obj],
    node_name: str | None = None,
    created: datetime | None = None,
) -> Obj:
    """A NodeClaim: registered on `node_name`, or launched and still in flight when it is None."""
    name = f"{pool}-{ids.suffix()}"
    created = created or ago(ids.rng, 30, 600)
    status: Obj = {
        "conditions": [
            {
                "lastTransitionTime": ts(created + timedelta(seconds=5)),
                "message": "",
                "observedGeneration": 1,
                "reason": "Launched",
                "status": "True",
                "type": "Launched",
            },
            {
                "lastTransitionTime": ts(created + timedelta(seconds=5)),
                "message": "" if node_name else "Node not registered with cluster",
                "observedGeneration": 1,
                "reason": "Registered" if node_name else "NodeNotFound",
                "status": "True" if node_name else "Unknown",
                "type": "Registered",
            },
        ]
    }
    status["providerID"] = f"aws:///{zone}/i-0{ids.hex(16)}"
    ids.hex(
        16
    )  # drawn as it was when every claim had an AMI of its own: the rest of the shape stays the same
    status["imageID"] = _ami(it)
    if node_name:
        status["nodeName"] = node_name
    status["capacity"] = {"cpu": str(it.cpu), "memory": f"{it.memory_gib}Gi", "pods": "110"}
    if it.gpus:
        status["capacity"]["nvidia.com/gpu"] = str(it.gpus)
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": meta(
            ids,
            name,
            created,
            generateName=f"{pool}-",
            generation=1,
            labels=instance_labels(it, pool, zone, capacity),
            finalizers=["karpenter.sh/termination"],
            ownerReferences=[
                {
                    "apiVersion": "karpenter.sh/v1",
                    "blockOwnerDeletion": True,
                    "kind": "NodePool",
                    "name": pool,
                    "uid": ids.uid(),
                }
            ],
        ),
        "spec": {
            "expireAfter": "336h",
            "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
            "requirements": [*requirements, requirement("node.kubernetes.io/instance-type", "In", [it.name])],
            "resources": {"requests": {"cpu": "250m", "memory": "256Mi", "pods": "2"}},
            "terminationGracePeriod": "24h0m0s",
        },
        "status": status,
    }


def event(
    ids: Ids,
    involved: Obj,
    reason: str,
    message: str,
    component: str,
    kind: str = "Normal",
    count: int = 1,
    first: datetime | None = None,
) -> Obj:
    """A core/v1 Event about `involved` (an object of this module)."""
    m = involved["metadata"]
    first = first or ago(ids.rng, 60, 3000)
    last = min(NOW, first + timedelta(seconds=ids.rng.randint(0, 600) if count > 1 else 0))
    namespace = m.get("namespace", "default")
    ref = {
        "apiVersion": involved["apiVersion"],
        "kind": involved["kind"],
        "name": m["name"],
        "resourceVersion": m["resourceVersion"],
        "uid": m["uid"],
    }
    if "namespace" in m:
        ref["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "count": count,
        "eventTime": None,
        "firstTimestamp": ts(first),
        "involvedObject": ref,
        "kind": "Event",
        "lastTimestamp": ts(last),
        "message": message,
        "metadata": meta(ids, f"{m['name']}.{ids.hex(16)}", first, namespace),
        "reason": reason,
        "reportingComponent": component,
        "reportingInstance": "",
        "source": {"component": component},
        "type": kind,
    }


def failed_scheduling(ids: Ids, pod_obj: Obj, nodes: int, why: str) -> Obj:
    msg = (
        f"0/{nodes} nodes are available: {why}. no new claims to deallocate, preemption: 0/{nodes} nodes "
        f"are available: {nodes} Preemption is not helpful for scheduling."
    )
    return event(
        ids, pod_obj, "FailedScheduling", msg, "default-scheduler", "Warning", ids.rng.randint(1, 40)
    )
