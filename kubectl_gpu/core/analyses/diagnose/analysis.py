"""`kubectl gpu diagnose`: every analysis in one report, worst first. The runbook entry point."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubectl_gpu.core.analyses.cost.analysis import analyse_cost
from kubectl_gpu.core.analyses.drivers.analysis import build_driver_report
from kubectl_gpu.core.analyses.health.analysis import load_health_catalog, node_findings
from kubectl_gpu.core.analyses.lifecycle.analysis import analyse_lifecycle
from kubectl_gpu.core.analyses.lint.analysis import lint
from kubectl_gpu.core.analyses.nvme.analysis import build_nvme_report
from kubectl_gpu.core.analyses.pending import Verdict, analyse_pending
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import PriceBook
from kubectl_gpu.core.debugpod import findings as smi_findings
from kubectl_gpu.core.fleet.nodes import build_node_report
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, ObjectRef, Severity

__all__ = ["ANALYSES", "Analysis", "DiagnoseReport", "diagnose", "pending_findings"]

Analysis = Callable[[ClusterState, Catalog, datetime], list[Finding]]


def nodes_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    report = build_node_report(state, catalog, now)
    return node_findings(report.rows, state, now, load_health_catalog())


_PENDING_SEVERITY = {Verdict.PROVISIONING: Severity.INFO, Verdict.NO_BLOCKER_FOUND: Severity.WARNING}


def pending_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    report = analyse_pending(state, catalog, now)
    return [
        Finding(
            str(diag.verdict),
            _PENDING_SEVERITY.get(diag.verdict, Severity.ERROR),
            ObjectRef("Pod", diag.name, diag.namespace),
            diag.reason,
            diag.fix,
            "pending",
        )
        for diag in report.pods
    ]


def drivers_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    return list(build_driver_report(state, catalog, now).findings)


def nvme_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    return list(build_nvme_report(state, catalog, now).findings)


def lifecycle_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    return list(analyse_lifecycle(state, catalog, now).findings)


def lint_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    return list(lint(state, catalog).findings)


def probe_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    """GPU health read by nvidia-smi in debug pods, from probes stored by `snapshot --probe`."""
    out = []
    for node in state.nodes:
        probe = state.probe(node.name)
        if probe is None:
            continue
        for found in smi_findings(probe):
            where = (
                f"GPU {found.gpu}: " if found.gpu is not None and not found.message.startswith("GPU") else ""
            )
            out.append(
                Finding(
                    found.code,
                    Severity(found.severity),
                    ObjectRef("Node", node.name),
                    where + found.message,
                    f"kubectl gpu smi {node.name} for the current state; kubectl gpu shell {node.name} for dmesg",
                    "smi",
                )
            )
    return out


def cost_findings(state: ClusterState, catalog: Catalog, now: datetime) -> list[Finding]:
    return list(analyse_cost(state, catalog, PriceBook(catalog), now).findings)


# name -> analysis; each one is pure and independent, so diagnose can run any subset.
ANALYSES: dict[str, Analysis] = {
    "nodes": nodes_findings,
    "smi": probe_findings,
    "pending": pending_findings,
    "drivers": drivers_findings,
    "nvme": nvme_findings,
    "lifecycle": lifecycle_findings,
    "lint": lint_findings,
    "cost": cost_findings,
}


@dataclass(frozen=True, slots=True)
class DiagnoseReport:
    findings: tuple[Finding, ...]
    analyses: tuple[str, ...]
    now: datetime

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), key=lambda s: s.rank, default=None)

    def fails(self, threshold: Severity) -> bool:
        return any(f.severity.at_least(threshold) for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {str(s): sum(1 for f in self.findings if f.severity is s) for s in Severity}

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": "kubectl-gpu/v1",
            "kind": "DiagnoseReport",
            "evaluatedAt": self.now.isoformat().replace("+00:00", "Z"),
            "analyses": list(self.analyses),
            "summary": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
        }


def diagnose(
    state: ClusterState, catalog: Catalog, now: datetime, *, only: Sequence[str] | None = None
) -> DiagnoseReport:
    names = tuple(only) if only else tuple(ANALYSES)
    findings: list[Finding] = []
    for name in names:
        findings.extend(ANALYSES[name](state, catalog, now))
    return DiagnoseReport(tuple(sorted(findings, key=Finding.sort_key)), names, now)
