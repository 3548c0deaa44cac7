"""The local NVMe an instance type has, the states the report gives it, and how sizes compare."""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

import msgspec

from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import Node

GB = 10**9
GIB = 2**30
AUTO_MODE_DEFAULT_EPHEMERAL = "80Gi"  # create-node-class.adoc: ephemeralStorage.size default
NVME_LABELS = ("eks.amazonaws.com/instance-local-nvme", "karpenter.k8s.aws/instance-local-nvme")


# How close the node's ephemeral-storage capacity must be to a device size to "match" it (filesystem
# overhead, md metadata and the 20 GiB EBS volume make it a little smaller, never much larger).
MATCH_LOW = Decimal("0.85")
MATCH_HIGH = Decimal("1.03")


class NvmeState(StrEnum):
    ACTIVE = "ACTIVE"
    DEGRADED = "DEGRADED"
    LIKELY_ACTIVE = "LIKELY_ACTIVE"
    NOT_USED = "NOT_USED"
    NO_NVME = "NO_NVME"
    UNKNOWN = "UNKNOWN"


def format_bytes(value: Decimal | int | None) -> str:
    """``214748364800`` -> ``214.7 GB (200 GiB)``; ``-`` for None."""
    if value is None:
        return "-"
    b = Decimal(value)
    gib = b / GIB
    gib_text = f"{gib:.0f}" if gib >= 100 or gib == gib.to_integral_value() else f"{gib:.1f}"
    if b >= 10**12:
        return f"{b / 10**12:.2f} TB ({gib_text} GiB)"
    return f"{b / GB:.1f} GB ({gib_text} GiB)"


def capacity_matches(capacity: Decimal, target: Decimal) -> bool:
    """True when an ephemeral-storage capacity is what a filesystem on ``target`` bytes reports."""
    if target <= 0:
        return False
    ratio = capacity / target
    return MATCH_LOW <= ratio <= MATCH_HIGH


class NvmeSpec(msgspec.Struct, frozen=True):
    """The local NVMe an instance type has: total GB (decimal) and, where known, disk count x size."""

    total_gb: int
    count: int | None
    size_gb: int | None
    source: str  # label | catalog
    note: str | None = None

    @property
    def total_bytes(self) -> Decimal:
        return Decimal(self.total_gb) * GB

    @property
    def layout(self) -> str:
        if self.total_gb == 0:
            return "none"
        if self.count and self.size_gb:
            return f"{self.count}x{self.size_gb} GB"
        return f"{self.total_gb} GB"


def instance_type_of(node: Node) -> str | None:
    labels = node.labels
    return labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")


def nvme_spec(node: Node, catalog: Catalog) -> NvmeSpec | None:
    """From the node's ``*/instance-local-nvme`` label (decimal GB), completed from the catalog; None if
    neither knows the instance type."""
    label_gb: int | None = None
    for key in NVME_LABELS:
        value = node.labels.get(key)
        if value is not None and value.strip().isdigit():
            label_gb = int(value.strip())
            break
    itype = instance_type_of(node)
    spec = catalog.by_name(itype) if itype else None
    if label_gb is not None:
        if spec is not None and spec.local_nvme_total_gb == label_gb:
            return NvmeSpec(label_gb, spec.local_nvme_count, spec.local_nvme_size_gb, "label")
        note = (
            f"the instance-local-nvme label says {label_gb} GB but the catalog says "
            f"{spec.local_nvme_total_gb} GB for {itype}; using the label"
            if spec is not None
            else None
        )
        return NvmeSpec(label_gb, None, None, "label", note)
    if spec is not None:
        return NvmeSpec(spec.local_nvme_total_gb, spec.local_nvme_count, spec.local_nvme_size_gb, "catalog")
    return None
