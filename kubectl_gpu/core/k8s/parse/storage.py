"""Storage and workload kinds the pending analysis reads: PersistentVolumeClaims, PersistentVolumes,
StorageClasses (Karpenter `volumetopology.go`, kube-scheduler VolumeBinding), DaemonSets (Karpenter's daemon
overhead, `Provisioner.getDaemonSetPods`) and NodeOverlays (Karpenter v1.x, `karpenter.sh/v1alpha1`)."""

from __future__ import annotations

from kubectl_gpu.core.k8s.models import (
    DaemonSet,
    NodeOverlay,
    PersistentVolume,
    PersistentVolumeClaim,
    Raw,
    StorageClass,
)
from kubectl_gpu.core.k8s.parse.common import (
    ModelError,
    as_dict,
    as_list,
    conditions,
    meta,
    opt_int,
    opt_str,
    resources,
)
from kubectl_gpu.core.k8s.parse.pods_fast import parse_pod

__all__ = [
    "parse_daemonset",
    "parse_nodeoverlay",
    "parse_pv",
    "parse_pvc",
    "parse_storageclass",
]


def parse_pvc(obj: Raw) -> PersistentVolumeClaim:
    m = meta(obj, "PersistentVolumeClaim", namespaced=True)
    where = f"PersistentVolumeClaim {m.key}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    status = as_dict(obj.get("status"), f"{where} status")
    return PersistentVolumeClaim(
        meta=m,
        volume_name=opt_str(spec.get("volumeName")) or None,
        storage_class=opt_str(spec.get("storageClassName")) or None,
        phase=opt_str(status.get("phase")),
    )


def _expressions(term: object, where: str) -> tuple[Raw, ...]:
    exprs = as_list(as_dict(term, where).get("matchExpressions"), f"{where}.matchExpressions")
    for expr in exprs:
        if not isinstance(expr, dict) or not isinstance(expr.get("key"), str):
            raise ModelError(f"{where}.matchExpressions entries need a key")
    return tuple(exprs)


def parse_pv(obj: Raw) -> PersistentVolume:
    m = meta(obj, "PersistentVolume")
    where = f"PersistentVolume {m.name}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    required = as_dict(as_dict(spec.get("nodeAffinity"), f"{where} nodeAffinity").get("required"), where)
    terms = as_list(required.get("nodeSelectorTerms"), f"{where} nodeAffinity.required.nodeSelectorTerms")
    return PersistentVolume(
        meta=m,
        node_affinity=tuple(_expressions(t, f"{where} nodeSelectorTerms[{i}]") for i, t in enumerate(terms)),
        local=spec.get("local") is not None or spec.get("hostPath") is not None,
    )


def parse_storageclass(obj: Raw) -> StorageClass:
    m = meta(obj, "StorageClass")
    where = f"StorageClass {m.name}"
    topologies = []
    for i, term in enumerate(as_list(obj.get("allowedTopologies"), f"{where} allowedTopologies")):
        exprs = as_list(as_dict(term, where).get("matchLabelExpressions"), f"{where} allowedTopologies[{i}]")
        topologies.append(
            tuple(
                (str(e.get("key", "")), tuple(str(v) for v in as_list(e.get("values"), where)))
                for e in exprs
                if isinstance(e, dict)
            )
        )
    return StorageClass(
        meta=m,
        binding_mode=opt_str(obj.get("volumeBindingMode")) or "Immediate",
        allowed_topologies=tuple(topologies),
        provisioner=opt_str(obj.get("provisioner")),
    )


def parse_daemonset(obj: Raw) -> DaemonSet:
    m = meta(obj, "DaemonSet", namespaced=True)
    where = f"DaemonSet {m.key}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    template = as_dict(spec.get("template"), f"{where} spec.template")
    tmeta = as_dict(template.get("metadata"), f"{where} spec.template.metadata")
    pod = parse_pod(
        {
            "metadata": {**tmeta, "name": m.name, "namespace": m.namespace},
            "spec": as_dict(template.get("spec"), f"{where} spec.template.spec"),
            "status": {"phase": "Running"},
        }
    )
    return DaemonSet(meta=m, pod=pod)


def parse_nodeoverlay(obj: Raw) -> NodeOverlay:
    m = meta(obj, "NodeOverlay")
    where = f"NodeOverlay {m.name}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    reqs = as_list(spec.get("requirements"), f"{where} spec.requirements")
    for req in reqs:
        if not isinstance(req, dict) or not isinstance(req.get("key"), str):
            raise ModelError(f"{where} spec.requirements entries need a key")
    status = as_dict(obj.get("status"), f"{where} status")
    return NodeOverlay(
        meta=m,
        requirements=tuple(reqs),
        price=opt_str(spec.get("price")),
        price_adjustment=opt_str(spec.get("priceAdjustment")),
        capacity=resources(spec.get("capacity"), f"{where} spec.capacity"),
        weight=opt_int(spec.get("weight"), f"{where} spec.weight") or 0,
        conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
    )
