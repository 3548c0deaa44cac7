"""The result of the Pending analysis, and its JSON contract (`kind: PendingReport`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.analyses.pending.targets import TargetEvaluation
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict

__all__ = ["Evidence", "PendingReport", "PodDiagnosis"]


def _num(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _time(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


@dataclass(frozen=True, slots=True)
class Evidence:
    source: str  # scheduler | karpenter | auto-mode | kubelet | unknown
    reason: str
    message: str
    count: int
    last_seen: datetime | None
    codes: tuple[str, ...]  # what the message says, parsed (UNTOLERATED_TAINT, UNKNOWN_LABEL, ...)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "reason": self.reason,
            "message": self.message,
            "count": self.count,
            "lastSeen": _time(self.last_seen),
            "codes": list(self.codes),
        }


@dataclass(frozen=True, slots=True)
class PodDiagnosis:
    namespace: str
    name: str
    requests: dict[str, Decimal]
    verdict: Verdict
    reason: str
    nearest: TargetRef | None
    blockers: tuple[Blocker, ...]
    evidence: tuple[Evidence, ...]
    fix: str | None
    evaluations: tuple[TargetEvaluation, ...]
    disagreements: tuple[str, ...]
    notes: tuple[str, ...]
    created: datetime | None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "requests": {k: _num(v) for k, v in self.requests.items()},
            "verdict": str(self.verdict),
            "reason": self.reason,
            "nearest": self.nearest.to_dict() if self.nearest else None,
            "blockers": [b.to_dict() for b in self.blockers],
            "evidence": [e.to_dict() for e in self.evidence],
            "fix": self.fix,
            "disagreements": list(self.disagreements),
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class PendingReport:
    pods: tuple[PodDiagnosis, ...]
    now: datetime
    targets: str  # "nodepools" | "nodes"

    @property
    def blocking(self) -> bool:
        return any(p.verdict.blocking for p in self.pods)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "PendingReport",
            "evaluatedAt": _time(self.now),
            "targets": self.targets,
            "pods": [p.to_dict() for p in self.pods],
        }
