"""The usage report: per GPU, node, pod, namespace and workload, what is held, how busy, what is idle."""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, ClassVar, Final

import msgspec

from kubectl_gpu.core.catalog.pricing import CATALOG_REGION
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.report import FailOn, Finding, ReportBase
from kubectl_gpu.core.usage.window import FailedRead

ZERO = Decimal(0)
DEFAULT_IDLE_BELOW = 10.0  # percent utilisation over the window

FINDING_CODES: Final = {
    "USAGE_IDLE_GPUS": "a pod holds GPUs whose utilisation stayed below --idle-below over the window",
    "USAGE_EMPTY_GPU_NODE": "a GPU node runs no GPU pod: every GPU on it is paid for and idle",
    "USAGE_READ_FAILED": "a DCGM exporter or inference server could not be read (timed out, refused)",
    "USAGE_SERVER_UNRECOGNISED": "an inference pod's /metrics matches no server we know, or has no token counter",
}

# Where a figure comes from, best first.
SOURCES: Final = ("dcgm", "smi", "allocation-only")


def money(value: Decimal | None) -> float | None:
    return None if value is None else float(value.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))


def number(value: float | None, places: int = 1) -> float | None:
    return None if value is None else round(value, places)


def count(value: Decimal) -> int | float:
    value = value.quantize(Decimal("0.001"), rounding=ROUND_HALF_EVEN)
    return int(value) if value == value.to_integral_value() else float(value)


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


class GpuUsage(msgspec.Struct, frozen=True):
    """One measured GPU (or MIG instance)."""

    node: str | None
    index: str | None
    uuid: str | None
    model: str | None
    mig_profile: str | None
    source: str  # dcgm | smi
    util_percent: float | None
    util_field: str | None
    samples: int
    memory_used_mib: float | None
    memory_total_mib: float | None
    power_w: float | None
    pods: tuple[str, ...]  # namespace/name
    attribution: str | None  # exporter | allocation | None (not known)
    mig_instance: str | None = None  # the MIG GPU instance id (DCGM's GPU_I_ID); None: a whole GPU

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "index": self.index,
            "uuid": self.uuid,
            "model": self.model,
            "migProfile": self.mig_profile,
            "migInstance": self.mig_instance,
            "source": self.source,
            "utilizationPercent": number(self.util_percent),
            "utilizationField": self.util_field,
            "samples": self.samples,
            "memoryUsedMiB": number(self.memory_used_mib, 0),
            "memoryTotalMiB": number(self.memory_total_mib, 0),
            "powerW": number(self.power_w),
            "pods": list(self.pods),
            "attribution": self.attribution,
        }


class NodeUsage(msgspec.Struct, frozen=True):
    name: str
    instance_type: str | None
    node_pool: str | None
    model: str | None
    gpus: Decimal  # what the instance has (billed)
    held: Decimal | None  # requested by pods; None: unknown (DRA)
    gpu_pods: int
    source: str  # dcgm | smi | allocation-only
    util_percent: float | None  # mean over its measured GPUs
    memory_used_mib: float | None
    memory_total_mib: float | None
    power_w: float | None
    price_per_hour: Decimal | None
    price_source: str | None
    held_cost_per_hour: Decimal | None
    idle_cost_per_hour: Decimal | None  # held GPUs below the threshold, or the whole node when empty
    state: str  # busy | idle | empty | unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instanceType": self.instance_type,
            "nodePool": self.node_pool,
            "model": self.model,
            "gpus": count(self.gpus),
            "gpusHeld": None if self.held is None else count(self.held),
            "gpuPods": self.gpu_pods,
            "source": self.source,
            "utilizationPercent": number(self.util_percent),
            "memoryUsedMiB": number(self.memory_used_mib, 0),
            "memoryTotalMiB": number(self.memory_total_mib, 0),
            "powerW": number(self.power_w),
            "pricePerHour": money(self.price_per_hour),
            "priceSource": self.price_source,
            "heldCostPerHour": money(self.held_cost_per_hour),
            "idleCostPerHour": money(self.idle_cost_per_hour),
            "state": self.state,
        }


class Workload(msgspec.Struct, frozen=True):
    """What owns a pod: Deployment (via its ReplicaSet), StatefulSet, DaemonSet, Job, ...; else the pod."""

    namespace: str
    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.kind.lower()}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "kind": self.kind, "name": self.name}


class PodUsage(msgspec.Struct, frozen=True):
    namespace: str
    name: str
    node: str
    workload: Workload
    held: Decimal
    source: str  # dcgm | smi | allocation-only
    util_percent: float | None
    attribution: str | None  # exporter | allocation | node-max (an upper bound) | None
    memory_used_mib: float | None  # the most any of its GPUs used (per GPU)
    held_cost_per_hour: Decimal | None
    idle: bool | None  # None: utilisation unknown

    @property
    def idle_cost_per_hour(self) -> Decimal | None:
        return self.held_cost_per_hour if self.idle else (ZERO if self.idle is False else None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "node": self.node,
            "workload": self.workload.to_dict(),
            "gpusHeld": count(self.held),
            "source": self.source,
            "utilizationPercent": number(self.util_percent),
            "attribution": self.attribution,
            "memoryUsedMiB": number(self.memory_used_mib, 0),
            "heldCostPerHour": money(self.held_cost_per_hour),
            "idle": self.idle,
            "idleCostPerHour": money(self.idle_cost_per_hour),
        }


class GroupUsage(msgspec.Struct, frozen=True):
    """A namespace's or a workload's pods together. Utilisation is GPU-weighted over the measured pods."""

    name: str
    workload: Workload | None
    pods: int
    held: Decimal
    measured: Decimal  # GPUs whose utilisation is known
    util_percent: float | None
    idle_gpus: Decimal
    held_cost_per_hour: Decimal
    idle_cost_per_hour: Decimal | None  # None: no pod's utilisation is known
    unpriced_pods: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.workload is not None:
            out.update(self.workload.to_dict())
        out.update(
            pods=self.pods,
            gpusHeld=count(self.held),
            gpusMeasured=count(self.measured),
            utilizationPercent=number(self.util_percent),
            idleGpus=count(self.idle_gpus),
            heldCostPerHour=money(self.held_cost_per_hour),
            idleCostPerHour=money(self.idle_cost_per_hour),
            unpricedPods=self.unpriced_pods,
        )
        return out


class TokenCost(msgspec.Struct, frozen=True):
    """One inference workload: tokens per second over the window and what its GPUs cost per 1M tokens."""

    workload: Workload
    server: str | None
    model: str | None
    pods: tuple[str, ...]
    status: str  # ok | rate-unknown | no-token-counter | not-recognised | not-read
    output_tokens_per_s: float | None
    prompt_tokens_per_s: float | None
    cost_per_hour: Decimal | None  # the share of its nodes' prices its pods' GPUs represent
    resets: int
    unread: str | None = None  # a token-counter-like series its /metrics has and this tool does not read

    @property
    def usd_per_million_output_tokens(self) -> Decimal | None:
        rate = self.output_tokens_per_s
        if self.cost_per_hour is None or rate is None or rate <= 0:
            return None
        return self.cost_per_hour / (Decimal(str(rate)) * 3600) * 1_000_000

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.workload.to_dict(),
            "server": self.server,
            "model": self.model,
            "pods": list(self.pods),
            "status": self.status,
            "outputTokensPerSecond": number(self.output_tokens_per_s, 3),
            "promptTokensPerSecond": number(self.prompt_tokens_per_s, 3),
            "costPerHour": money(self.cost_per_hour),
            "usdPerMillionOutputTokens": money(self.usd_per_million_output_tokens),
            "counterResets": self.resets,
        }


class UsageTotals(msgspec.Struct, frozen=True):
    gpus: Decimal = ZERO
    held: Decimal = ZERO
    measured: Decimal = ZERO  # held GPUs whose utilisation is known
    idle_held: Decimal = ZERO
    empty_node_gpus: Decimal = ZERO
    held_cost: Decimal = ZERO
    idle_held_cost: Decimal = ZERO
    empty_node_cost: Decimal = ZERO
    unpriced_nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpus": count(self.gpus),
            "gpusHeld": count(self.held),
            "gpusMeasured": count(self.measured),
            "gpusIdleHeld": count(self.idle_held),
            "gpusOnEmptyNodes": count(self.empty_node_gpus),
            "heldCostPerHour": money(self.held_cost),
            "idleHeldCostPerHour": money(self.idle_held_cost),
            "emptyNodeCostPerHour": money(self.empty_node_cost),
            "idleCostPerHour": money(self.idle_held_cost + self.empty_node_cost),
            "unpricedNodes": self.unpriced_nodes,
        }


def _failed_dict(f: FailedRead) -> dict[str, Any]:
    return {
        "source": f.source,
        "namespace": f.namespace,
        "pod": f.pod,
        "node": f.node,
        "error": f.error,
        "forbidden": f.forbidden,
        "reads": f.reads,
    }


class UsageReport(msgspec.Struct, ReportBase, frozen=True):
    """Findings inform (exit 0), unless something could not be looked at: a forbidden read or a window
    the adapter could not even list (exit 4, "could not look"), or --fail-on is given."""

    kind: ClassVar[str] = "UsageReport"
    default_fail_on: ClassVar[FailOn | None] = None
    now: datetime
    window_s: float
    idle_below: float
    looked: bool
    measured: bool  # some GPU's utilisation is known
    gpus: tuple[GpuUsage, ...]
    nodes: tuple[NodeUsage, ...]
    pods: tuple[PodUsage, ...]
    namespaces: tuple[GroupUsage, ...]
    workloads: tuple[GroupUsage, ...]
    inference: tuple[TokenCost, ...]
    failed: tuple[FailedRead, ...]
    totals: UsageTotals
    findings: tuple[Finding, ...]
    region: str | None
    price_file: str | None
    notes: tuple[str, ...] = ()
    could_not_look: tuple[str, ...] = ()

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        code = ReportBase.exit_code(self, fail_on)
        return ExitCode.INCOMPLETE if code == ExitCode.OK and self.could_not_look else code

    def body(self) -> dict[str, Any]:
        return {
            "evaluatedAt": iso(self.now),
            "window": {
                "seconds": self.window_s,
                "looked": self.looked,
                "measured": self.measured,
                "idleBelowPercent": self.idle_below,
                "failedReads": [_failed_dict(f) for f in self.failed],
                "couldNotLook": list(self.could_not_look),
            },
            "pricing": {
                "currency": "USD",
                "basis": "on-demand, per hour",
                "region": self.region,
                "listPriceRegion": CATALOG_REGION,
                "priceFile": self.price_file,
            },
            "totals": self.totals.to_dict(),
            "namespaces": [n.to_dict() for n in self.namespaces],
            "workloads": [w.to_dict() for w in self.workloads],
            "inference": [t.to_dict() for t in self.inference],
            "nodes": [n.to_dict() for n in self.nodes],
            "pods": [p.to_dict() for p in self.pods],
            "gpus": [g.to_dict() for g in self.gpus],
            "findings": [f.to_dict() for f in self.findings],
        }
