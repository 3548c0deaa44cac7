"""The result of the Pending analysis, and its JSON contract (`kind: PendingReport`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, TypeVar

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.decision import Decision, FixCheck
from kubectl_gpu.core.analyses.pending.pod.evidence import Evidence
from kubectl_gpu.core.analyses.pending.pod.shapes import Owner
from kubectl_gpu.core.analyses.pending.ranking import BlockerSummary, Ranked
from kubectl_gpu.core.analyses.pending.times import iso_time
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.changes import Change
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.report import FailOn, Finding, ObjectRef, ReportBase, Severity

__all__ = ["Evidence", "ExplainReport", "PendingReport", "PodDiagnosis"]

T = TypeVar("T")

# A verdict as a finding (diagnose): waiting for capacity is information, "nothing blocks it" a warning.
_FINDING_SEVERITY = {
    Verdict.PROVISIONING: Severity.INFO,
    Verdict.NO_BLOCKER_FOUND: Severity.WARNING,
    Verdict.UNVERIFIED: Severity.WARNING,
}


def _num(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


class PodDiagnosis(msgspec.Struct, frozen=True):
    """One pod in the report: its `Decision`, the evidence and the ranked targets it was made from."""

    namespace: str
    name: str
    requests: dict[str, Decimal]
    decision: Decision  # verdict, reason, fix, the target it is about, the fix's check (decision.py)
    evidence: tuple[Evidence, ...]
    ranked: Ranked  # every target, nearest first (ranking.py)
    disagreements: tuple[str, ...]
    notes: tuple[str, ...]
    created: datetime | None
    owner: Owner | None = None  # the workload that made the pod (pod/shapes.owner_key); None: a bare pod

    @property
    def verdict(self) -> Verdict:
        return self.decision.verdict

    @property
    def reason(self) -> str:
        return self.decision.reason

    @property
    def fix(self) -> str | None:
        return self.decision.fix

    @property
    def nearest(self) -> TargetRef | None:
        """The target the verdict is about (the nearest, or the one whose verified fix gets furthest)."""
        return self.decision.target

    @property
    def fix_check(self) -> FixCheck | None:
        """The fix made on a copy and the pod evaluated again (verify/)."""
        return self.decision.fix_check

    @property
    def fix_changes(self) -> tuple[Change, ...]:
        """The changes the fix makes, for this pod (a check is shared by the pods of one shape: its change to
        a pod names no pod)."""
        check = self.fix_check
        if check is None:
            return ()
        return tuple(
            msgspec.structs.replace(c, name=self.name, namespace=self.namespace) if c.kind == "Pod" else c
            for c in check.changes
        )

    @property
    def blockers(self) -> tuple[Blocker, ...]:
        """The blockers of the nearest LISTED_TARGETS targets, nearest first."""
        return self.ranked.listed

    @property
    def evaluations(self) -> tuple[TargetEvaluation, ...]:
        """Every target's evaluation, nearest first."""
        return self.ranked.evaluations

    @property
    def blocker_summary(self) -> tuple[BlockerSummary, ...]:
        return self.ranked.summary

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def shape_dict(self, blockers: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
        """What the pod shares with the pods of its shape (one `shapes[]` entry): its targets' blockers and
        their summary. `blockers`: id(Blocker) -> its dict, shared by the shapes of one report."""
        memo = {} if blockers is None else blockers
        return {
            "blockers": [memo.get(id(b)) or memo.setdefault(id(b), b.to_dict()) for b in self.blockers],
            "blockersOmitted": self.ranked.blocker_count - len(self.blockers),
            "blockerSummary": [s.to_dict() for s in self.blocker_summary],
            "targetCount": len(self.ranked),
        }

    def to_dict(self, shape: int = 0, shared: dict[int, Any] | None = None) -> dict[str, Any]:
        """The pod's own entry; `shape` is its index in the report's `shapes[]` (`shape_dict`). `shared`:
        id(part) -> its dict, for the parts pods of one shape hold as one object (requests, nearest target,
        the verified fix's outcome), written once per report rather than once per pod."""
        memo = {} if shared is None else shared
        check = self.fix_check
        return {
            "namespace": self.namespace,
            "name": self.name,
            "requests": _shared(memo, self.requests, _requests_dict),
            "verdict": str(self.verdict),
            "reason": self.reason,
            "nearest": _shared(memo, self.nearest, TargetRef.to_dict) if self.nearest else None,
            "shape": shape,
            "evidence": [e.to_dict() for e in self.evidence],
            "fix": self.fix,
            "fixVerified": check.verified if check else None,
            "fixAfter": _shared(memo, check, FixCheck.to_dict)
            if check and check.verified is not None
            else None,
            "disagreements": list(self.disagreements),
            "notes": list(self.notes),
        }


def _requests_dict(requests: dict[str, Decimal]) -> dict[str, int | float]:
    return {k: _num(v) for k, v in requests.items()}


def _shared(memo: dict[int, Any], part: T, as_dict: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """`as_dict(part)`, once per part object while `memo` (which the report's pods keep alive) lasts."""
    found = memo.get(id(part))
    if found is None:
        found = memo[id(part)] = as_dict(part)
    return found


class PendingReport(msgspec.Struct, ReportBase, frozen=True):
    """Exit 1 when any pod is blocked (anything but PROVISIONING); `--fail-on` does not apply."""

    kind: ClassVar[str] = "PendingReport"
    pods: tuple[PodDiagnosis, ...]
    now: datetime
    targets: str  # "nodepools" | "nodes"
    # Why pods could not be listed (forbidden), or None: then "no Pending pod" is unknown, not a fact.
    pods_unlisted: str | None = None

    @property
    def blocking(self) -> bool:
        return any(p.verdict.blocking for p in self.pods)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(
            Finding(
                str(diag.verdict),
                _FINDING_SEVERITY.get(diag.verdict, Severity.ERROR),
                ObjectRef("Pod", diag.name, diag.namespace),
                diag.reason,
                diag.fix,
                "pending",
            )
            for diag in self.pods
        )

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        return ExitCode.FINDINGS if self.blocking else ExitCode.OK

    def body(self) -> dict[str, Any]:
        """Pods of one shape share one `shapes[]` entry (docs/json-contract.md, issue 22): the same ranked
        targets, so the same blockers and summary, written once."""
        blockers: dict[int, dict[str, Any]] = {}  # every Blocker is alive while the body is built
        parts: dict[int, Any] = {}  # so is every pod's requests, nearest target and fix check
        index: dict[int, int] = {}  # id(Ranked) -> its shape's position
        shapes: list[dict[str, Any]] = []
        pods: list[dict[str, Any]] = []
        for pod in self.pods:
            found = index.get(id(pod.ranked))
            if found is None:
                found = index[id(pod.ranked)] = len(shapes)
                shapes.append(pod.shape_dict(blockers))
            pods.append(pod.to_dict(found, parts))
        return {
            "evaluatedAt": iso_time(self.now),
            "targets": self.targets,
            "podsListed": self.pods_unlisted is None,
            "pods": pods,
            "shapes": shapes,
        }


class ExplainReport(msgspec.Struct, ReportBase, frozen=True):
    """One pod, target by target (`kubectl gpu explain`): the pending report plus every check made."""

    kind: ClassVar[str] = "PendingExplanation"
    pending: PendingReport

    @property
    def pod(self) -> PodDiagnosis:
        return self.pending.pods[0]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.pending.findings

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        return ExitCode.FINDINGS if self.pod.verdict.blocking else ExitCode.OK

    def body(self) -> dict[str, Any]:
        data = self.pending.body()
        data["pods"][0]["targets"] = [
            {
                "target": e.target.to_dict(),
                "offersAccelerator": e.offers,
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in e.checks],
                "fittingInstanceTypes": list(e.fitting_types),
            }
            for e in self.pod.evaluations
        ]
        return data
