"""Nodes and the DRA ResourceSlices that publish their devices."""

from __future__ import annotations

from kubectl_gpu.core.k8s.models import Device, Node, Raw, ResourceSlice
from kubectl_gpu.core.k8s.parse.common import (
    as_dict,
    as_list,
    meta,
    opt_str,
    taints,
)
from kubectl_gpu.core.k8s.parse.fast import constructor, fast_conditions, fast_meta, memo_resources

__all__ = ["parse_node", "parse_resourceslice"]


def parse_node(obj: Raw) -> Node:
    m = fast_meta(obj.get("metadata"), namespaced=False) or meta(obj, "Node")
    where = f"Node {m.name}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    status = as_dict(obj.get("status"), f"{where} status")
    info = as_dict(status.get("nodeInfo"), f"{where} status.nodeInfo")
    capacity = as_dict(status.get("capacity"), f"{where} status.capacity")
    ephemeral = capacity.get("ephemeral-storage")
    return _node(
        meta=m,
        provider_id=opt_str(spec.get("providerID")),
        unschedulable=bool(spec.get("unschedulable", False)),
        taints=taints(spec.get("taints"), f"{where} spec.taints"),
        capacity=memo_resources(capacity, lambda: f"{where} status.capacity"),
        allocatable=memo_resources(status.get("allocatable"), lambda: f"{where} status.allocatable"),
        conditions=fast_conditions(status.get("conditions"), f"{where} status.conditions"),
        os_image=opt_str(info.get("osImage")),
        kernel_version=opt_str(info.get("kernelVersion")),
        kubelet_version=opt_str(info.get("kubeletVersion")),
        container_runtime=opt_str(info.get("containerRuntimeVersion")),
        architecture=opt_str(info.get("architecture")),
        ephemeral_storage_text=None if ephemeral is None else str(ephemeral),
    )


_node = constructor(Node)


def parse_resourceslice(obj: Raw) -> ResourceSlice:
    m = meta(obj, "ResourceSlice")
    where = f"ResourceSlice {m.name}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    devices = []
    for item in as_list(spec.get("devices"), f"{where} spec.devices"):
        if not isinstance(item, dict):
            continue
        # resource.k8s.io/v1beta1 nests attributes under "basic"; v1 and v1beta2 do not.
        basic = item.get("basic")
        body: Raw = basic if isinstance(basic, dict) else item
        capacity = {
            k: str(v.get("value", v)) if isinstance(v, dict) else str(v)
            for k, v in as_dict(body.get("capacity"), f"{where} capacity").items()
        }
        devices.append(
            Device(
                name=str(item.get("name", "")),
                attributes=as_dict(body.get("attributes"), f"{where} attributes"),
                capacity=capacity,
            )
        )
    pool = as_dict(spec.get("pool"), f"{where} spec.pool")
    return ResourceSlice(
        meta=m,
        driver=str(spec.get("driver", "")),
        node_name=opt_str(spec.get("nodeName")),
        pool=opt_str(pool.get("name")),
        devices=tuple(devices),
    )
