"""Pending pods grouped by the workload that made them: the owner (`pending.pod.shapes.owner_key`: Job,
Deployment, StatefulSet, LeaderWorkerSet), bare pods by their shape (`shape_key`). A 2,000-pod job stuck on
one cause is one group. Computed here, once; the TUI's Pending view (`render.pending_groups`) draws it.

It reads the pending report's pods and the cluster's pods (their owners), so it lives beside diagnose,
the analysis that may read another's report.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.analyses.pending import PendingReport, PodDiagnosis
from kubectl_gpu.core.analyses.pending.pod.shapes import owner_key, shape_key
from kubectl_gpu.core.errors import ExitCode
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, ReportBase

__all__ = ["GROUP_PREFIX", "PendingWorkloads", "WorkloadGroup", "pending_workloads", "workload_groups"]

GROUP_PREFIX = "group:"


class WorkloadGroup(msgspec.Struct, frozen=True):
    """`key` is stable across refreshes (`group:Job ml/train`); `label` what a row says; `pods` its
    members' `namespace/name`, in the order given (worst verdict first, as `pending` lists them)."""

    key: str
    label: str
    pods: tuple[str, ...]
    #: how many members have each verdict, worst first
    verdicts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "pods": list(self.pods),
            "verdicts": dict(self.verdicts),
        }


def _group_of(pod: Pod | None, diag: PodDiagnosis, shapes: dict[object, int]) -> tuple[str, str]:
    """(key, label): the owner, else (a bare pod) its shape (numbered in the order first seen)."""
    owner = owner_key(pod) if pod is not None else None
    if owner is not None:
        return f"{GROUP_PREFIX}{owner}", str(owner)
    if pod is None:
        return f"{GROUP_PREFIX}pod {diag.key}", diag.key
    number = shapes.setdefault(shape_key(pod), len(shapes) + 1)
    return f"{GROUP_PREFIX}shape {number}", f"bare pods in {pod.namespace} of one shape"


def workload_groups(diagnoses: Iterable[PodDiagnosis], state: ClusterState) -> tuple[WorkloadGroup, ...]:
    """The pods grouped, each group in the order of its first member."""
    pods = {(p.namespace, p.name): p for p in state.pods}
    members: dict[str, list[PodDiagnosis]] = {}
    labels: dict[str, str] = {}
    shapes: dict[object, int] = {}
    for diag in diagnoses:
        key, label = _group_of(pods.get((diag.namespace, diag.name)), diag, shapes)
        members.setdefault(key, []).append(diag)
        labels[key] = label
    out = []
    for key, group in members.items():
        verdicts: dict[str, int] = {}
        for diag in group:
            verdicts[str(diag.verdict)] = verdicts.get(str(diag.verdict), 0) + 1
        out.append(WorkloadGroup(key, labels[key], tuple(d.key for d in group), verdicts))
    return tuple(out)


class PendingWorkloads(msgspec.Struct, ReportBase, frozen=True):
    """`kubectl gpu pending --by-workload`: the pending report (its pods, its exit code) with the groups the
    TUI's Pending view shows, as JSON (`workloads`, beside `pods`)."""

    kind: ClassVar[str] = "PendingReport"
    pending: PendingReport
    groups: tuple[WorkloadGroup, ...]

    @property
    def findings(self) -> Sequence[Finding]:
        return self.pending.findings

    def body(self) -> dict[str, Any]:
        return {**self.pending.body(), "workloads": [group.to_dict() for group in self.groups]}

    def exit_code(self, fail_on: FailOn | None = None) -> ExitCode:
        return self.pending.exit_code(fail_on)


def pending_workloads(report: PendingReport, state: ClusterState) -> PendingWorkloads:
    return PendingWorkloads(report, workload_groups(report.pods, state))
