"""What `kubectl gpu lifecycle` reports, per node and per pod, and its JSON (the `LifecycleReport` contract)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.k8s.durations import FOREVER, duration_text, timestamp
from kubectl_gpu.core.k8s.times import format_age
from kubectl_gpu.core.karpenter.budgets import BudgetState
from kubectl_gpu.core.karpenter.do_not_disrupt import Protection
from kubectl_gpu.core.karpenter.settings import Setting
from kubectl_gpu.core.report import FailOn, Finding, ReportBase

__all__ = [
    "Allowance",
    "Disruption",
    "LifecycleReport",
    "NodeLifecycle",
    "PodLifecycle",
    "Survival",
]


class Disruption(msgspec.Struct, frozen=True):
    """One way a node (and the pods on it) can be taken away, and the earliest time it can happen."""

    by: str  # expiry | maxLifetime | drift | consolidation
    at: datetime | None  # None: possible but not predictable (a future AMI release)
    forceful: bool  # not rate-limited by budgets, not stopped by do-not-disrupt
    certain: bool  # will happen at `at` (expiry, an existing drift); False: may happen
    detail: str

    def sort_key(self) -> tuple[datetime, int]:
        return (self.at or FOREVER, 0 if self.certain else 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "at": timestamp(self.at),
            "forceful": self.forceful,
            "certain": self.certain,
            "detail": self.detail,
        }


class Allowance(msgspec.Struct, frozen=True):
    reason: str
    now: int | None  # None: no active budget limits this reason
    next_at: datetime | None

    def to_dict(self) -> dict[str, Any]:
        return {"now": self.now, "nextAt": timestamp(self.next_at)}


class NodeLifecycle(msgspec.Struct, frozen=True):
    name: str
    node_pool: str | None
    node_claim: str | None
    instance_type: str | None
    compute_type: str
    created: datetime | None
    expire_after: Setting
    max_lifetime: timedelta | None
    termination_grace_period: Setting
    expires_at: datetime | None
    expiry_reason: str | None  # expireAfter | maxLifetime
    forced_by: datetime | None  # instance gone at the latest (expiry + TGP, or the Auto Mode cap)
    drifted: bool | None
    drift_reason: str | None
    drifted_since: datetime | None
    consolidation_policy: Setting
    consolidate_after: Setting
    node_do_not_disrupt: str | None
    protections: tuple[Protection, ...]
    budgets: tuple[BudgetState, ...] | None
    budgets_defaulted: bool
    allowances: tuple[Allowance, ...]
    pool_nodes: int
    pool_disrupting: int
    disruptions: tuple[Disruption, ...]
    gpu_pods: int
    notes: tuple[str, ...] = ()

    @property
    def next_disruption(self) -> Disruption | None:
        timed = [d for d in self.disruptions if d.at is not None]
        return min(timed, key=Disruption.sort_key) if timed else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        nxt = self.next_disruption
        return {
            "name": self.name,
            "nodePool": self.node_pool,
            "nodeClaim": self.node_claim,
            "instanceType": self.instance_type,
            "computeType": self.compute_type,
            "createdAt": timestamp(self.created),
            "expireAfter": self.expire_after.value,
            "expireAfterSource": self.expire_after.source,
            "maxLifetime": duration_text(self.max_lifetime) if self.max_lifetime else None,
            "terminationGracePeriod": self.termination_grace_period.value,
            "terminationGracePeriodSource": self.termination_grace_period.source,
            "expiresAt": timestamp(self.expires_at),
            "expiryReason": self.expiry_reason,
            "forcedTerminationBy": timestamp(self.forced_by),
            "drifted": self.drifted,
            "driftReason": self.drift_reason,
            "driftedSince": timestamp(self.drifted_since),
            "consolidationPolicy": self.consolidation_policy.value,
            "consolidationPolicySource": self.consolidation_policy.source,
            "consolidateAfter": self.consolidate_after.value,
            "doNotDisrupt": {
                "node": self.node_do_not_disrupt,
                "pods": [p.to_dict(now) for p in self.protections],
            },
            "budgets": None if self.budgets is None else [_budget_dict(b) for b in self.budgets],
            "budgetsDefaulted": self.budgets_defaulted,
            "disruptionAllowed": {a.reason: a.to_dict() for a in self.allowances},
            "poolNodes": self.pool_nodes,
            "poolDisrupting": self.pool_disrupting,
            "nextDisruption": nxt.to_dict() if nxt else None,
            "disruptions": [d.to_dict() for d in self.disruptions],
            "gpuPods": self.gpu_pods,
            "notes": list(self.notes),
        }


def _budget_dict(state: BudgetState) -> dict[str, Any]:
    b = state.spec.budget
    return {
        "nodes": b.nodes,
        "schedule": b.schedule,
        "duration": b.duration,
        "reasons": list(b.reasons),
        "default": state.spec.default,
        "valid": state.spec.error is None,
        "error": state.spec.error,
        "activeNow": state.active,
        "activeUntil": timestamp(state.active_until),
        "nextActiveAt": timestamp(state.next_start),
        "nextActiveUntil": timestamp(state.next_end),
    }


class Survival(msgspec.Struct, frozen=True):
    needs: str
    deadline: datetime
    verdict: str  # yes | no | at-risk
    reasons: tuple[str, ...]
    causes: tuple[Disruption, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "needs": self.needs,
            "until": timestamp(self.deadline),
            "verdict": self.verdict,
            "survives": self.verdict == "yes",
            "reasons": list(self.reasons),
        }


class PodLifecycle(msgspec.Struct, frozen=True):
    namespace: str
    name: str
    node: str
    node_pool: str | None
    started: datetime | None
    requests: Mapping[str, str]
    protection: Protection | None
    disruptions: tuple[Disruption, ...]
    risk: str  # high | medium | low
    survival: Survival | None = None

    @property
    def next_disruption(self) -> Disruption | None:
        timed = [d for d in self.disruptions if d.at is not None]
        return min(timed, key=Disruption.sort_key) if timed else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        nxt = self.next_disruption
        running = now - self.started if self.started else None
        out: dict[str, Any] = {
            "namespace": self.namespace,
            "name": self.name,
            "node": self.node,
            "nodePool": self.node_pool,
            "startedAt": timestamp(self.started),
            "runningSeconds": int(running.total_seconds()) if running is not None else None,
            "runningFor": format_age(running) if running is not None else None,
            "requests": dict(self.requests),
            "doNotDisrupt": self.protection.to_dict(now) if self.protection else None,
            "nextDisruption": nxt.to_dict() if nxt else None,
            "disruptions": [d.to_dict() for d in self.disruptions],
            "risk": self.risk,
        }
        if self.survival is not None:
            out["survival"] = self.survival.to_dict()
        return out


class LifecycleReport(msgspec.Struct, ReportBase, frozen=True):
    kind: ClassVar[str] = "LifecycleReport"
    now: datetime
    nodes: tuple[NodeLifecycle, ...]
    pods: tuple[PodLifecycle, ...]
    findings: tuple[Finding, ...] = ()

    @property
    def survival_failed(self) -> bool:
        return any(p.survival is not None and p.survival.verdict != "yes" for p in self.pods)

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        """Exit 1 when a pod asked about (`--needs`) does not surely survive; findings are information."""
        return ExitCode.FINDINGS if self.survival_failed else ExitCode.OK

    def body(self) -> dict[str, Any]:
        return {
            "evaluatedAt": timestamp(self.now),
            "now": timestamp(self.now),  # deprecated (issue 23): evaluatedAt; dropped in a later version
            "nodes": [n.to_dict(self.now) for n in self.nodes],
            "pods": [p.to_dict(self.now) for p in self.pods],
            "findings": [f.to_dict() for f in self.findings],
        }
