"""`SimulateReport`: what the changes did, the effects grouped better / worse / unchanged, the blast radius,
and the exit rule a pipeline gates on (`--fail-on regression|any|none`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.analyses.simulate.drift import Drift
from kubectl_gpu.core.analyses.simulate.effects import Direction, Effect
from kubectl_gpu.core.changes import Applied
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.core.report import FailOn, Finding, ReportBase, Severity

__all__ = ["SIMULATE_VERSION", "SimulateFailOn", "SimulateReport"]

#: The version of this report's own fields (docs/json-contract.md, simulate): bumped on a breaking change.
SIMULATE_VERSION = 1


class SimulateFailOn(StrEnum):
    """`--fail-on`: regression (exit 1 when anything got worse), any (when anything changed), none."""

    regression = "regression"
    any = "any"
    none = "none"


def _applied(item: Applied) -> dict[str, Any]:
    change = item.change
    out: dict[str, Any] = {
        "action": change.action,
        "kind": change.kind,
        "name": change.name,
        "namespace": change.namespace,
        "source": change.source,
        "podsAdded": list(item.pods_added),
        "podsRemoved": list(item.pods_removed),
        "note": item.note,
    }
    if change.action == "patch":
        out["patchType"] = change.patch_type
    return out


def _drift(d: Drift) -> dict[str, Any]:
    return {
        "nodePool": d.pool,
        "reason": d.reason,
        "fields": list(d.fields),
        "certain": d.certain,
        "nodeClaims": list(d.claims),
        "nodes": list(d.nodes),
        "gpuPods": list(d.gpu_pods),
        "nodesPerWave": d.per_wave,
        "firstAllowedAt": timestamp(d.first_at),
        "heldBy": list(d.blocked_by),
    }


class SimulateReport(msgspec.Struct, ReportBase, frozen=True):
    kind: ClassVar[str] = "SimulateReport"
    applied: tuple[Applied, ...]
    effects: tuple[Effect, ...]
    drifts: tuple[Drift, ...]
    now: datetime
    fail_on: SimulateFailOn = SimulateFailOn.regression

    def of(self, direction: Direction) -> list[Effect]:
        return [e for e in self.effects if e.direction is direction]

    def counts(self) -> dict[str, int]:
        return {str(d): len(self.of(d)) for d in Direction}

    @property
    def findings(self) -> Sequence[Finding]:
        """Each worse effect as an error finding (better ones as info): what `--fail-on regression` counts."""
        return [
            Finding(
                f"SIMULATE_{e.area.upper()}",
                Severity.ERROR if e.direction is Direction.WORSE else Severity.INFO,
                e.object,
                e.message,
                e.fix,
                "simulate",
            )
            for e in self.effects
            if e.direction is not Direction.UNCHANGED
        ]

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        if self.fail_on is SimulateFailOn.none:
            return ExitCode.OK
        if self.fail_on is SimulateFailOn.any:
            return ExitCode.FINDINGS if self.effects else ExitCode.OK
        return ExitCode.FINDINGS if self.of(Direction.WORSE) else ExitCode.OK

    def body(self) -> dict[str, Any]:
        return {
            "simulateVersion": SIMULATE_VERSION,
            "evaluatedAt": timestamp(self.now),
            "failOn": str(self.fail_on),
            "changes": [_applied(a) for a in self.applied],
            "summary": self.counts(),
            "effects": [e.to_dict() for e in self.effects],
            "blastRadius": [_drift(d) for d in self.drifts],
        }
