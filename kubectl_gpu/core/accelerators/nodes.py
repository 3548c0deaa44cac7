"""`kubectl gpu nodes`: one row per node that has, or can have, accelerators."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import msgspec

from kubectl_gpu.core.accelerators.parts import AcceleratorParts, split
from kubectl_gpu.core.accelerators.resources import (
    is_accelerator_dra_driver,
    is_accelerator_resource,
    model_from_labels,
    primary_resource,
)
from kubectl_gpu.core.catalog import Catalog, CatalogError, InstanceType
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.core.k8s.conditions import ConditionHealth, condition_health
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.overlay_prices import node_price

__all__ = [
    "AcceleratorUsage",
    "DriverInfo",
    "NodeRow",
    "all_node_rows",
    "compute_type",
    "node_parts",
    "node_rows",
    "pods_unread",
    "publishes_dra_accelerators",
    "usage_fraction",
]

ZERO = Decimal(0)


def compute_type(labels: dict[str, str]) -> str:
    """`auto` for EKS Auto Mode nodes, `karpenter` for self-managed Karpenter, else `other`."""
    if labels.get("eks.amazonaws.com/compute-type") == "auto":
        return "auto"
    if "karpenter.sh/nodepool" in labels or "karpenter.k8s.aws/ec2nodeclass" in labels:
        return "karpenter"
    return "other"


def _num(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def pods_unread(state: ClusterState) -> str | None:
    """Why the pods bound to nodes are not all known (listing them was forbidden, or allowed in one namespace
    only), or None: then what they request, and so what is free, is unknown, never 0."""
    return next(
        (n.message for n in state.notes if n.kind == "pods" and n.code in ("FORBIDDEN", "PARTIAL")), None
    )


def publishes_dra_accelerators(state: ClusterState, node: str) -> bool | None:
    """Whether `node` publishes accelerator devices through DRA (ResourceSlices of an accelerator driver:
    the NVIDIA DRA driver's `gpu.nvidia.com`, ...): a GPU node even without `nvidia.com/gpu`. None when that
    is unknown: no ResourceSlice in the data (not captured, or DRA not in use), or listing them forbidden."""
    if not state.resourceslices or any(
        n.kind == "resourceslices" and n.code == "FORBIDDEN" for n in state.notes
    ):
        return None
    return any(is_accelerator_dra_driver(s.driver) and s.devices for s in state.slices_by_node.get(node, ()))


class AcceleratorUsage(msgspec.Struct, frozen=True):
    resource: str | None
    model: str | None
    capacity: Decimal
    allocatable: Decimal
    requested: Decimal
    memory_mib: int | None
    source: str  # device-plugin | dra | catalog
    # False when the pods on the node could not all be read (`pods_unread`): `requested` counts only those
    # read, so requested and free are unknown (`known_requested`, `known_free`: None; JSON null, tables `?`).
    counted: bool = True
    # False on a cordoned or NotReady node: no new pod lands there, so nothing on it is free.
    schedulable: bool = True

    @property
    def unrequested(self) -> Decimal:
        """Allocatable less what the pods read request, whether or not a new pod could land there (a
        debug pod bound to the node by name can use it on a cordoned node)."""
        return max(self.allocatable - self.requested, ZERO)

    @property
    def free(self) -> Decimal:
        """What a new pod could be given: `unrequested` on a node that takes pods, else 0 (an upper bound
        when not `counted`)."""
        return self.unrequested if self.schedulable else ZERO

    @property
    def known_requested(self) -> Decimal | None:
        return self.requested if self.counted else None

    @property
    def known_free(self) -> Decimal | None:
        return self.free if self.counted else None

    @property
    def paid(self) -> Decimal:
        """What the instance has (and is billed for): capacity, else allocatable."""
        return self.capacity if self.capacity > 0 else self.allocatable

    def to_dict(self) -> dict[str, Any]:
        return {
            "resource": self.resource,
            "model": self.model,
            "capacity": _num(self.capacity),
            "allocatable": _num(self.allocatable),
            "requested": None if self.known_requested is None else _num(self.known_requested),
            "free": None if self.known_free is None else _num(self.known_free),
            "memoryMiB": self.memory_mib,
            "source": self.source,
        }


class DriverInfo(msgspec.Struct, frozen=True):
    version: str | None
    cuda_max: str | None
    source: str  # probe | label | inferred | unknown

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "cudaMax": self.cuda_max, "source": self.source}


UNKNOWN_DRIVER = DriverInfo(None, None, "unknown")


class NodeRow(msgspec.Struct, frozen=True):
    name: str
    instance_type: str | None
    compute_type: str
    node_pool: str | None
    node_claim: str | None
    capacity_type: str | None
    zone: str | None
    accelerator: AcceleratorUsage | None
    other_resources: tuple[AcceleratorUsage, ...]
    driver: DriverInfo
    os_image: str | None
    kernel_version: str | None
    created: datetime | None
    ready: bool
    unschedulable: bool
    conditions: tuple[ConditionHealth, ...]
    instance_id: str | None
    price_per_hour: float | None
    price_source: str | None = None  # price-file | list-us-east-1 (core.pricing)
    # Accelerators (in the primary resource's units) no running pod has requested; None when unknown
    # (DRA devices claimed by pods: per-device allocation is not counted).
    idle_accelerators: Decimal | None = None

    @property
    def unhealthy(self) -> tuple[ConditionHealth, ...]:
        return tuple(c for c in self.conditions if c.healthy is False)

    @property
    def parts(self) -> AcceleratorParts:
        """Its accelerator figures (`core.accelerators.parts`), as every command and view shows them."""
        return node_parts(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "nodePool": self.node_pool,
            "nodeClaim": self.node_claim,
            "capacityType": self.capacity_type,
            "zone": self.zone,
            "accelerator": self.accelerator.to_dict() if self.accelerator else None,
            "otherAccelerators": [a.to_dict() for a in self.other_resources],
            "driver": self.driver.to_dict(),
            "osImage": self.os_image,
            "kernelVersion": self.kernel_version,
            "createdAt": self.created.isoformat().replace("+00:00", "Z") if self.created else None,
            "ready": self.ready,
            "unschedulable": self.unschedulable,
            "instanceId": self.instance_id,
            "conditions": [c.to_dict() for c in self.conditions],
            "pricePerHour": self.price_per_hour,
            "priceSource": self.price_source,
            "idleAccelerators": None if self.idle_accelerators is None else _num(self.idle_accelerators),
            "figures": self.parts.to_dict() if self.accelerator else None,
        }


def node_parts(row: NodeRow) -> AcceleratorParts:
    """The node's figures: capacity, allocatable, requested, free, idle, unavailable (docs/vocabulary.md)."""
    acc = row.accelerator
    if acc is None:
        return AcceleratorParts()
    return split(acc.paid, acc.allocatable, row.idle_accelerators, acc.free, acc.schedulable)


def _instance_type(node: Node) -> str | None:
    labels = node.labels
    return labels.get("node.kubernetes.io/instance-type") or labels.get("beta.kubernetes.io/instance-type")


def _label_int(labels: dict[str, str], *keys: str) -> int | None:
    for key in keys:
        value = labels.get(key)
        if value and value.isdigit():
            return int(value)
    return None


def driver_from_labels(labels: dict[str, str], catalog: Catalog) -> DriverInfo:
    """Driver as published by NVIDIA GPU feature discovery labels; never guessed."""
    version = labels.get("nvidia.com/cuda.driver-version.full")
    if not version:
        parts = [labels.get(f"nvidia.com/cuda.driver.{p}") for p in ("major", "minor", "rev")]
        if all(parts):
            version = ".".join(p for p in parts if p)
    if not version:
        return UNKNOWN_DRIVER
    return DriverInfo(version, cuda_ceiling(version, catalog), "label")


def node_driver_info(node: Node, state: ClusterState, catalog: Catalog) -> DriverInfo:
    """The driver a probe read (nvidia-smi in a debug pod, from `snapshot --probe`), else the GPU feature
    discovery label, else unknown. `kubectl gpu drivers` adds the inferred Bottlerocket case."""
    probe = state.probe(node.name)
    if probe is not None and probe.driver_version:
        return DriverInfo(probe.driver_version, cuda_ceiling(probe.driver_version, catalog), "probe")
    return driver_from_labels(node.labels, catalog)


def cuda_ceiling(driver: str, catalog: Catalog) -> str | None:
    """Highest CUDA the driver fully supports, from the catalog's table; None for an unreadable version."""
    try:
        ceiling = catalog.cuda.max_cuda(driver)
    except CatalogError:
        return None
    return ceiling.cuda if ceiling else None


def accelerator_resource(spec: InstanceType) -> str | None:
    """The device-plugin resource an instance type's accelerators appear as."""
    return primary_resource({k: Decimal(v) for k, v in (spec.extended_resources or {}).items()})


def _instance_id(provider_id: str | None) -> str | None:
    # aws:///us-west-2a/i-0123456789abcdef0
    if provider_id and provider_id.startswith("aws://"):
        tail = provider_id.rsplit("/", 1)[-1]
        return tail if tail.startswith("i-") else None
    return None


def _accelerators(node: Node, state: ClusterState, catalog: Catalog) -> list[AcceleratorUsage]:
    labels = node.labels
    itype = _instance_type(node)
    spec = catalog.by_name(itype) if itype else None
    model = model_from_labels(labels) or (spec.accelerator_name if spec else None)
    memory = _label_int(
        labels,
        "eks.amazonaws.com/instance-gpu-memory",
        "karpenter.k8s.aws/instance-gpu-memory",
        "nvidia.com/gpu.memory",
    ) or (spec.gpu_memory_mib if spec else None)
    requested = state.requested_by_node.get(node.name, {})
    counted = pods_unread(state) is None
    schedulable = node.ready and not node.unschedulable
    names = {k for k in (*node.capacity, *node.allocatable) if is_accelerator_resource(k)}
    primary = primary_resource({k: node.capacity.get(k, node.allocatable.get(k, ZERO)) for k in names})
    rows = []
    for name in sorted(names, key=lambda n: (n != primary, n)):
        rows.append(
            AcceleratorUsage(
                resource=name,
                model=model,
                capacity=node.capacity.get(name, ZERO),
                allocatable=node.allocatable.get(name, ZERO),
                requested=requested.get(name, ZERO),
                memory_mib=memory,
                source="device-plugin",
                counted=counted,
                schedulable=schedulable,
            )
        )
    rows = [r for r in rows if r.capacity > 0 or r.allocatable > 0] or rows
    if not any(r.capacity > 0 for r in rows):
        devices = [
            d
            for s in state.slices_by_node.get(node.name, [])
            if is_accelerator_dra_driver(s.driver)
            for d in s.devices
        ]
        if devices:
            rows.insert(
                0,
                AcceleratorUsage(
                    resource=None,
                    model=model,
                    capacity=Decimal(len(devices)),
                    allocatable=Decimal(len(devices)),
                    requested=ZERO,
                    memory_mib=memory,
                    source="dra",
                    schedulable=schedulable,
                ),
            )
        elif spec is not None and spec.accelerator_count:
            # The instance has accelerators but nothing advertises them (yet): device plugin not running,
            # node still initialising, or GPUs hidden by MIG reconfiguration.
            rows.insert(
                0,
                AcceleratorUsage(
                    resource=accelerator_resource(spec),
                    model=model,
                    capacity=Decimal(spec.accelerator_count),
                    allocatable=ZERO,
                    requested=requested.get(accelerator_resource(spec) or "", ZERO),
                    memory_mib=memory,
                    source="catalog",
                    counted=counted,
                    schedulable=schedulable,
                ),
            )
    return rows


def usage_fraction(usages: Sequence[AcceleratorUsage], requests: Mapping[str, Decimal]) -> Decimal:
    """Share (0..1) of a node's accelerators that `requests` take: the largest requested/capacity over its
    accelerator resources, so a pod asking for Neuron cores or MIG slices counts against the devices."""
    best = ZERO
    for usage in usages:
        if usage.resource is None or usage.paid <= 0:
            continue
        best = max(best, requests.get(usage.resource, ZERO) / usage.paid)
    return min(best, Decimal(1))


def _idle(accelerators: list[AcceleratorUsage], node: Node, state: ClusterState) -> Decimal | None:
    if not accelerators:
        return None
    primary = accelerators[0]
    if not primary.counted:
        return None
    if primary.source == "dra":
        claiming = any(p.resource_claims and not p.terminated for p in state.pods_by_node.get(node.name, []))
        return None if claiming else primary.paid
    used = usage_fraction(accelerators, state.requested_by_node.get(node.name, {})) * primary.paid
    return max(primary.paid - used, ZERO)


def build_node_row(
    node: Node, state: ClusterState, catalog: Catalog, prices: PriceBook | None = None
) -> NodeRow:
    labels = node.labels
    accelerators = _accelerators(node, state, catalog)
    itype = _instance_type(node)
    claim = state.nodeclaim_by_node.get(node.name)
    price = node_price(itype, labels, prices or PriceBook(catalog), state.nodeoverlays)
    return NodeRow(
        name=node.name,
        instance_type=itype,
        compute_type=compute_type(labels),
        node_pool=labels.get("karpenter.sh/nodepool"),
        node_claim=claim.name if claim else None,
        capacity_type=labels.get("karpenter.sh/capacity-type")
        or labels.get("eks.amazonaws.com/capacityType"),
        zone=labels.get("topology.kubernetes.io/zone"),
        accelerator=accelerators[0] if accelerators else None,
        other_resources=tuple(accelerators[1:]),
        driver=node_driver_info(node, state, catalog),
        os_image=node.os_image,
        kernel_version=node.kernel_version,
        created=node.meta.created,
        ready=node.ready,
        unschedulable=node.unschedulable,
        conditions=tuple(condition_health(c) for c in node.conditions),
        instance_id=_instance_id(node.provider_id),
        price_per_hour=price.as_float if price else None,
        price_source=price.source if price else None,
        idle_accelerators=_idle(accelerators, node, state),
    )


def _priced(rows: tuple[NodeRow, ...], state: ClusterState, book: PriceBook) -> tuple[NodeRow, ...]:
    """`rows` (one per node of `state`, in order) with the prices `book` and the NodeOverlays give."""
    priced = []
    for node, row in zip(state.nodes, rows, strict=True):
        price = node_price(row.instance_type, node.labels, book, state.nodeoverlays)
        priced.append(
            msgspec.structs.replace(
                row,
                price_per_hour=price.as_float if price else None,
                price_source=price.source if price else None,
            )
        )
    return tuple(priced)


def all_node_rows(
    state: ClusterState, catalog: Catalog, prices: PriceBook | None = None
) -> tuple[NodeRow, ...]:
    """`build_node_row` of every node, in state order; built once per state and catalog
    (`ClusterState.memo`), so the analyses `diagnose` runs share it, and priced once per price source
    (health reads the list price's rows, cost the region's: only the prices differ)."""
    book = prices or PriceBook(catalog)
    default = PriceBook(catalog)
    kept, rows = state.memo(
        ("node_rows", id(catalog)),
        lambda: (catalog, tuple(build_node_row(n, state, catalog, default) for n in state.nodes)),
    )
    if kept is not catalog:  # an id reused by another object: build afresh
        return tuple(build_node_row(n, state, catalog, book) for n in state.nodes)
    if book.file is None and book.region == default.region:
        return rows
    kept_file, priced = state.memo(
        ("node_rows", id(catalog), id(book.file), book.region),
        lambda: (book.file, _priced(rows, state, book)),
    )
    return priced if kept_file is book.file else _priced(rows, state, book)


def node_rows(
    state: ClusterState, catalog: Catalog, *, include_all: bool = False, prices: PriceBook | None = None
) -> tuple[NodeRow, ...]:
    """One row per node with accelerators (every node with `include_all`), by pool, type and name."""
    rows = list(all_node_rows(state, catalog, prices))
    if not include_all:
        rows = [r for r in rows if r.accelerator is not None]
    rows.sort(key=lambda r: (r.node_pool or "~", r.instance_type or "", r.name))
    return tuple(rows)
