"""`kubectl gpu diagnose`: every analysis in one report, worst first. The runbook entry point.

The only analysis that uses the others: it runs each one's `analyse` and merges their findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

import msgspec

from kubectl_gpu.core.analyses import cost, drivers, health, lifecycle, lint, nvme, pending, smi
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.pricing import PriceBook, cluster_regions, price_book
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import Finding, Report, ReportBase, Severity, severity_counts

__all__ = [
    "ANALYSES",
    "KINDS",
    "RENAMED",
    "Analysis",
    "DiagnoseReport",
    "Suite",
    "analyse",
    "cluster_prices",
    "combine",
    "diagnose",
    "kinds_for",
    "run_suite",
]

Analysis = Callable[[ClusterState, Catalog, datetime], Report]

# name (as --only spells it, and the suite's key for its report) -> (analysis, the kinds it reads). Each is
# pure and independent.
ANALYSES: dict[str, tuple[Analysis, frozenset[str]]] = {
    "health": (health.analyse, health.KINDS),
    "smi": (smi.analyse, smi.KINDS),
    "pending": (pending.analyse, pending.KINDS),
    "drivers": (drivers.analyse, drivers.KINDS),
    "nvme": (nvme.analyse, nvme.KINDS),
    "lifecycle": (lifecycle.analyse, lifecycle.KINDS),
    "lint": (lint.analyse, lint.KINDS),
    "cost": (cost.analyse, cost.KINDS),
}
KINDS = frozenset().union(*(kinds for _, kinds in ANALYSES.values()))
#: names --only still takes from before a rename -> the name now ("nodes" ran node health)
RENAMED: dict[str, str] = {"nodes": "health"}


def kinds_for(only: Sequence[str] | None) -> frozenset[str]:
    """The kinds the chosen analyses read (all of them by default)."""
    names = only or tuple(ANALYSES)
    return frozenset().union(*(ANALYSES[name][1] for name in names))


class DiagnoseReport(msgspec.Struct, ReportBase, frozen=True):
    """Exit 1 when a finding reaches `--fail-on` (default error)."""

    kind: ClassVar[str] = "DiagnoseReport"
    findings: tuple[Finding, ...]
    analyses: tuple[str, ...]
    now: datetime

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), key=lambda s: s.rank, default=None)

    def counts(self) -> dict[str, int]:
        return severity_counts(self.findings)

    def body(self) -> dict[str, Any]:
        return {
            "evaluatedAt": self.now.isoformat().replace("+00:00", "Z"),
            "analyses": list(self.analyses),
            "summary": self.counts(),
            "findings": [f.to_dict() for f in self.findings],
        }


def combine(reports: Mapping[str, Report], now: datetime) -> DiagnoseReport:
    """The reports of analyses already run (name as in ANALYSES -> its report) as one diagnose report:
    what `analyse(..., only=names)` returns, for a front end that also shows each report on its own."""
    findings = [f for report in reports.values() for f in report.findings]
    return DiagnoseReport(tuple(sorted(findings, key=Finding.sort_key)), tuple(reports), now)


class Suite(msgspec.Struct, frozen=True, dict=True):
    """One run of the analyses: each one's report (by its ANALYSES name) and diagnose combined from them."""

    reports: Mapping[str, Report]
    diagnose: DiagnoseReport


def cluster_prices(state: ClusterState, catalog: Catalog) -> PriceBook:
    """The price book `cost` uses without --region or --price-file: the cluster's own region, detected."""
    return price_book(catalog, detected=cluster_regions((n.labels for n in state.nodes), state.context))


def run_suite(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    only: Sequence[str] | None = None,
    prices: PriceBook | None = None,
) -> Suite:
    """Each analysis once (`only`: these; cost priced with `prices`, default the cluster's region, as
    `kubectl gpu cost` prices it), and the diagnose report of their findings. `diagnose` and every TUI
    refresh run this, so their findings are the same."""
    names = tuple(only) if only else tuple(ANALYSES)
    reports: dict[str, Report] = {}
    for name in names:
        if name == "cost":
            book = prices or cluster_prices(state, catalog)
            reports[name] = cost.analyse(state, catalog, now, prices=book, namespace=state.scope.namespace)
        else:
            reports[name] = ANALYSES[name][0](state, catalog, now)
    return Suite(reports, combine(reports, now))


def analyse(
    state: ClusterState, catalog: Catalog, now: datetime, *, only: Sequence[str] | None = None
) -> DiagnoseReport:
    return run_suite(state, catalog, now, only=only).diagnose


diagnose = analyse
