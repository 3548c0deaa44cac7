"""`kubectl gpu inventory`: every accelerator instance with its EC2 instance ID, for cost and compliance tools.

EKS Auto Mode's managed instances are hidden from EC2 `DescribeInstances` on new accounts (since April
2026), so the cluster is where they are listed: one record per node (with accelerators, or every node with
`include_all`), plus one per NodeClaim that has launched an instance whose node has not registered yet.

Launch time is the node's creationTimestamp, else the NodeClaim's `Launched` condition time, else the
NodeClaim's creationTimestamp (`launchTimeSource` says which). The AMI is the NodeClaim's `status.imageID`.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, Final

import msgspec

from kubectl_gpu.core.accelerators.nodes import compute_type, node_rows
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import Price, PriceBook
from kubectl_gpu.core.k8s.models import NodeClaim
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, ReportBase
from kubectl_gpu.core.scheduling.overlay_prices import node_price

__all__ = ["COLUMNS", "Instance", "Inventory", "analyse_inventory", "build_inventory", "parse_provider_id"]

# Stable column order of the CSV (and key order of the JSON records). Add columns at the end only.
COLUMNS: Final = (
    "instanceId",
    "instanceType",
    "zone",
    "region",
    "nodePool",
    "nodeClaim",
    "node",
    "ami",
    "launchTime",
    "launchTimeSource",
    "computeType",
    "capacityType",
    "accelerator",
    "acceleratorCount",
    "pricePerHour",
    "priceSource",
)


def parse_provider_id(provider_id: str | None) -> tuple[str | None, str | None]:
    """(zone, instance ID) from an AWS provider ID `aws:///us-west-2a/i-0123456789abcdef0`."""
    if not provider_id or not provider_id.startswith("aws://"):
        return None, None
    parts = [p for p in provider_id[len("aws://") :].split("/") if p]
    instance = parts[-1] if parts and parts[-1].startswith("i-") else None
    zone = parts[-2] if len(parts) >= 2 else None
    return zone, instance


class Instance(msgspec.Struct, frozen=True):
    instance_id: str | None
    instance_type: str | None
    zone: str | None
    region: str | None
    node_pool: str | None
    node_claim: str | None
    node: str | None
    ami: str | None
    launch_time: datetime | None
    launch_time_source: str | None  # node-created | nodeclaim-launched | nodeclaim-created
    compute_type: str
    capacity_type: str | None
    accelerator: str | None
    accelerator_count: Decimal | None
    price: Price | None

    def to_dict(self) -> dict[str, Any]:
        count = self.accelerator_count
        values: tuple[Any, ...] = (
            self.instance_id,
            self.instance_type,
            self.zone,
            self.region,
            self.node_pool,
            self.node_claim,
            self.node,
            self.ami,
            self.launch_time.isoformat().replace("+00:00", "Z") if self.launch_time else None,
            self.launch_time_source,
            self.compute_type,
            self.capacity_type,
            self.accelerator,
            None if count is None else (int(count) if count == count.to_integral_value() else float(count)),
            self.price.as_float if self.price else None,
            self.price.source if self.price else None,
        )
        return dict(zip(COLUMNS, values, strict=True))


class Inventory(msgspec.Struct, ReportBase, frozen=True):
    """A list of instances: no findings, always exit 0."""

    kind: ClassVar[str] = "Inventory"
    default_fail_on: ClassVar[FailOn | None] = None
    instances: tuple[Instance, ...]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return ()

    def body(self) -> dict[str, Any]:
        return {
            "columns": list(COLUMNS),
            "instances": [i.to_dict() for i in self.instances],
        }


def _launched(claim: NodeClaim) -> datetime | None:
    cond = claim.condition("Launched")
    return cond.last_transition if cond is not None and cond.is_true else None


def _claim_instance_type(claim: NodeClaim) -> str | None:
    return claim.meta.labels.get("node.kubernetes.io/instance-type")


def _claim_compute_type(claim: NodeClaim) -> str:
    ref = claim.node_class_ref
    if ref is not None and ref.group == "eks.amazonaws.com":
        return "auto"
    return compute_type(claim.meta.labels) if ref is None else "karpenter"


def build_inventory(
    state: ClusterState,
    catalog: Catalog,
    prices: PriceBook,
    now: datetime,
    *,
    include_all: bool = False,
) -> Inventory:
    out: list[Instance] = []
    rows = node_rows(state, catalog, include_all=include_all, prices=prices)
    for row in rows:
        node = state.node_by_name[row.name]
        claim = state.nodeclaim_by_node.get(row.name)
        zone, instance_id = parse_provider_id(node.provider_id or (claim.provider_id if claim else None))
        launch, source = node.meta.created, "node-created"
        if launch is None and claim is not None:
            launch, source = _launched(claim), "nodeclaim-launched"
            if launch is None:
                launch, source = claim.meta.created, "nodeclaim-created"
        acc = row.accelerator
        out.append(
            Instance(
                instance_id=instance_id,
                instance_type=row.instance_type,
                zone=row.zone or zone,
                region=node.labels.get("topology.kubernetes.io/region"),
                node_pool=row.node_pool or (claim.node_pool if claim else None),
                node_claim=row.node_claim,
                node=row.name,
                ami=claim.image_id if claim else None,
                launch_time=launch,
                launch_time_source=source if launch else None,
                compute_type=row.compute_type,
                capacity_type=row.capacity_type,
                accelerator=(acc.model or acc.resource) if acc else None,
                accelerator_count=acc.paid if acc else None,
                price=node_price(row.instance_type, node.labels, prices, state.nodeoverlays),
            )
        )
    # Instances launched for NodeClaims whose node has not registered yet.
    for claim in state.nodeclaims:
        if claim.node_name or not claim.provider_id:
            continue
        itype = _claim_instance_type(claim)
        spec = catalog.by_name(itype) if itype else None
        if not include_all and not (spec and spec.accelerator_count):
            continue
        zone, instance_id = parse_provider_id(claim.provider_id)
        launch, source = _launched(claim), "nodeclaim-launched"
        if launch is None:
            launch, source = claim.meta.created, "nodeclaim-created"
        labels = claim.meta.labels
        out.append(
            Instance(
                instance_id=instance_id,
                instance_type=itype,
                zone=labels.get("topology.kubernetes.io/zone") or zone,
                region=labels.get("topology.kubernetes.io/region"),
                node_pool=claim.node_pool,
                node_claim=claim.name,
                node=None,
                ami=claim.image_id,
                launch_time=launch,
                launch_time_source=source if launch else None,
                compute_type=_claim_compute_type(claim),
                capacity_type=labels.get("karpenter.sh/capacity-type"),
                accelerator=spec.accelerator_name if spec else None,
                accelerator_count=Decimal(spec.accelerator_count)
                if spec and spec.accelerator_count
                else None,
                price=node_price(itype, labels, prices, state.nodeoverlays),
            )
        )
    out.sort(key=lambda i: (i.node_pool or "~", i.instance_type or "", i.instance_id or "", i.node or ""))
    return Inventory(tuple(out))


def analyse_inventory(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    prices: PriceBook | None = None,
    include_all: bool = False,
) -> Inventory:
    return build_inventory(state, catalog, prices or PriceBook(catalog), now, include_all=include_all)
