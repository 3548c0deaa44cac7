"""GPU/accelerator EC2 instance types: one row per size, and how a type name breaks into family and size."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.catalog.reader import Reader
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["InstanceType", "parse_instance_type_name"]

# EKS-FACTS 3.3 / karpenter-provider-aws types.go: category = letters before the generation number.
_CATEGORY_GENERATION = lazy_pattern(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")


def parse_instance_type_name(name: str) -> tuple[str, str, int, str]:
    """``(family, category, generation, size)`` of an EC2 instance type name, e.g. ``p6-b300.48xlarge``
    -> ``("p6-b300", "p", 6, "48xlarge")``; CatalogError if the name does not parse."""
    family, dot, size = name.partition(".")
    m = _CATEGORY_GENERATION.match(name)
    if not dot or not family or not size or m is None:
        raise CatalogError(f"instance type {name!r} does not parse as <category><generation>...<.size>")
    return family, m.group(1), int(m.group(3)), size


class InstanceType(msgspec.Struct, frozen=True):
    """One GPU/accelerator EC2 instance size.

    ``exact_labels`` is False for rows known only from vantage-derived data with no label values in
    the reference: their EC2 label values (memory, GPU name/memory, arch, bandwidths) are unknown, so
    ``Catalog.labels`` leaves those labels out and ``Catalog.unknown_label_keys`` lists them. A row
    with exact labels may still lack bandwidths (p3.*): those labels are unknown too.
    ``derived`` says which fields were converted from other units or fields.
    """

    name: str
    family: str
    category: str
    generation: int
    size: str
    vcpu: int
    memory_mib: int
    arch: str | None  # "amd64" | "arm64"; None where the source does not say
    accelerator_kind: str  # "gpu" | "neuron"
    accelerator_name: str | None  # label value: "l40s", "h100", "a10g", "inferentia2", ...
    accelerator_manufacturer: str  # "nvidia" | "amd" | "aws"
    accelerator_count: int  # 0 on fractional-GPU types (g6f, gr6f)
    gpu_memory_mib: int | None  # per GPU (EC2 SizeInMiB = label value); None for Neuron
    local_nvme_count: int | None  # None: total known, disk split not
    local_nvme_size_gb: int | None
    local_nvme_total_gb: int  # GB (decimal), value of the instance-local-nvme label
    network_bandwidth_mbps: int | None
    ebs_bandwidth_mbps: int | None
    extended_resources: Mapping[str, int] | None  # None: not in the sources; compared, not hashed
    accelerator_resource: str | None  # "nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron"; None on g6f
    price_usd_per_hour: float | None  # us-east-1 Linux on-demand
    price_source: str | None
    auto_mode_listed: bool | None  # family in the Auto Mode docs; None = not in the revision read
    allocatable_cpu_millicores: int | None  # Karpenter doc, AL2023 assumptions (not Auto Mode)
    allocatable_memory_mib: int | None
    allocatable_pods: int | None
    exact_labels: bool
    source: str
    derived: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __hash__(self) -> int:  # a type is one name: equal types have equal names
        return hash(self.name)

    @property
    def price_per_hour(self) -> float | None:
        """Same as ``price_usd_per_hour`` (us-east-1 Linux on-demand)."""
        return self.price_usd_per_hour

    @property
    def is_gpu(self) -> bool:
        return self.accelerator_kind == "gpu"

    @property
    def is_nvidia(self) -> bool:
        return self.accelerator_kind == "gpu" and self.accelerator_manufacturer == "nvidia"

    @property
    def is_neuron(self) -> bool:
        return self.accelerator_kind == "neuron"

    @classmethod
    def from_data(cls, row: Mapping[str, Any], sources: Mapping[str, str] | None = None) -> InstanceType:
        """Build from one ``instances`` row of the data file; ``sources`` resolves source keys."""
        where = f"instance {row.get('name', '?')!r}"
        o = Reader(row, where)
        name = o.text("name")
        family, category, generation, size = parse_instance_type_name(name)
        if o.text("family") != family:
            raise CatalogError(f"{where}: family {o.text('family')!r} does not match the name")
        srcs = sources or {}
        alloc = o.opt_obj("allocatable_al2023")
        ext = o.int_map("extended_resources") if row.get("extended_resources") is not None else None
        price_key = o.opt_text("price_source")
        return cls(
            name=name,
            family=family,
            category=category,
            generation=generation,
            size=size,
            vcpu=o.integer("vcpu"),
            memory_mib=o.integer("memory_mib"),
            arch=o.opt_text("arch"),
            accelerator_kind=o.text("accelerator_kind"),
            accelerator_name=o.opt_text("accelerator_name"),
            accelerator_manufacturer=o.text("accelerator_manufacturer"),
            accelerator_count=o.integer("accelerator_count"),
            gpu_memory_mib=o.opt_integer("gpu_memory_mib"),
            local_nvme_count=o.opt_integer("local_nvme_count"),
            local_nvme_size_gb=o.opt_integer("local_nvme_size_gb"),
            local_nvme_total_gb=o.integer("local_nvme_total_gb"),
            network_bandwidth_mbps=o.opt_integer("network_bandwidth_mbps"),
            ebs_bandwidth_mbps=o.opt_integer("ebs_bandwidth_mbps"),
            extended_resources=None if ext is None else MappingProxyType(ext),
            accelerator_resource=o.opt_text("accelerator_resource"),
            price_usd_per_hour=o.opt_number("price_usd_per_hour"),
            price_source=None if price_key is None else srcs.get(price_key, price_key),
            auto_mode_listed=o.opt_flag("auto_mode_listed"),
            allocatable_cpu_millicores=None if alloc is None else alloc.integer("cpu_millicores"),
            allocatable_memory_mib=None if alloc is None else alloc.integer("memory_mib"),
            allocatable_pods=None if alloc is None else alloc.integer("pods"),
            exact_labels=o.flag("exact_labels"),
            source=srcs.get(o.text("source"), o.text("source")),
            derived=o.texts("derived") if o.has("derived") else (),
            notes=o.texts("notes") if o.has("notes") else (),
        )
