"""Node class checks: GPU pools whose NodeClass / EC2NodeClass leaves the local NVMe unused."""

from __future__ import annotations

from decimal import Decimal

from kubectl_gpu.core.analyses.lint.facts import AUTO_DEFAULT_EPHEMERAL, GIGABYTE, format_resource, type_names
from kubectl_gpu.core.analyses.lint.report import lint_finding
from kubectl_gpu.core.catalog import InstanceType
from kubectl_gpu.core.k8s.models import NodeClass, NodePool
from kubectl_gpu.core.report import Finding, ObjectRef, Severity


def nvme_findings(node_class: NodeClass, pools: list[tuple[NodePool, list[InstanceType]]]) -> list[Finding]:
    """One finding per NodeClass, over every GPU pool that uses it."""
    ref = ObjectRef(node_class.kind, node_class.name)
    names: list[str] = []
    affected: list[InstanceType] = []
    for pool, gpu_types in pools:
        nvme = [it for it in gpu_types if it.local_nvme_total_gb > 0]
        if node_class.kind == "NodeClass":
            size = node_class.ephemeral_storage_size or AUTO_DEFAULT_EPHEMERAL
            nvme = [it for it in nvme if size >= Decimal(it.local_nvme_total_gb) * GIGABYTE]
        elif node_class.instance_store_policy == "RAID0":
            nvme = []
        if nvme:
            names.append(pool.name)
            affected.extend(it for it in nvme if it not in affected)
    if not affected:
        return []
    affected.sort(key=lambda it: (it.local_nvme_total_gb, it.name))
    used_by = f"NodePool{'s' if len(names) > 1 else ''} {', '.join(names)}"
    if node_class.kind == "NodeClass":
        size = node_class.ephemeral_storage_size or AUTO_DEFAULT_EPHEMERAL
        shown = ", ".join(f"{it.name} ({it.local_nvme_total_gb} GB)" for it in affected[:6])
        more = f" and {len(affected) - 6} more" if len(affected) > 6 else ""
        return [
            lint_finding(
                "LINT_NVME_CACHE_DISABLED",
                ref,
                f"NodeClass {node_class.name} ({used_by}) asks for ephemeralStorage.size {format_resource(size, 'memory')}, "
                f"which equals or exceeds the local NVMe of {shown}{more}: on those EKS Auto Mode keeps ephemeral "
                "storage (images, model caches, emptyDir) on EBS and exposes the NVMe raw instead of using it",
                "set ephemeralStorage.size below the smallest NVMe you want used (Auto Mode then formats the NVMe, "
                "RAID 0 across drives, for ephemeral data), or restrict the pool to larger NVMe with "
                "eks.amazonaws.com/instance-local-nvme Gt N",
            )
        ]
    user_data = node_class.user_data or ""
    custom = any(w in user_data.lower() for w in ("localstorage", "mdadm", "raid"))
    return [
        lint_finding(
            "LINT_NVME_CACHE_DISABLED",
            ref,
            f"EC2NodeClass {node_class.name} ({used_by}) has no instanceStorePolicy: RAID0, so the local NVMe of "
            f"{type_names(affected)} is not used for ephemeral storage: image pulls and model caches go to the EBS "
            "root volume"
            + ("; its userData seems to set up local disks itself, check that it does" if custom else ""),
            "spec: {instanceStorePolicy: RAID0}",
            Severity.INFO if custom else None,
        )
    ]
