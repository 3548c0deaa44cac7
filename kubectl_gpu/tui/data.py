"""One refresh, frozen: the cluster state, the instant it is evaluated at, and every report, each computed once.

`load()` runs in a worker thread: it reads the source, runs each analysis once (diagnose is combined from
the same reports, so its findings are exactly those of the views), and indexes what the views look up per
row. Widgets read a `Refresh`; they never call an analysis or the API.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import TypeVar

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow
from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.analyses import (
    cost,
    diagnose,
    drivers,
    health,
    lifecycle,
    lint,
    nodes,
    nvme,
    pending,
    smi,
)
from kubectl_gpu.core.analyses.diagnose import PoolsReport
from kubectl_gpu.core.catalog import Catalog, load_catalog
from kubectl_gpu.core.evaluation import evaluation_instant
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.core.report import Finding, ObjectRef, Report
from kubectl_gpu.kube.heap import without_collection
from kubectl_gpu.kube.namespaces import NamespaceCheck, namespace_check, namespaces_in
from kubectl_gpu.kube.source import ClusterSource
from kubectl_gpu.tui import usage_window

__all__ = ["KINDS", "Refresh", "analyse", "cluster_name", "load"]

#: What one refresh reads: every kind diagnose needs (the union of every analysis's KINDS) and the nodes view's,
#: and the PodDisruptionBudgets `t` (try: `simulate` on the refresh's state) weighs a drift's evictions by.
KINDS = diagnose.KINDS | nodes.KINDS | {"poddisruptionbudgets"}

_ARN_CLUSTER = lazy_pattern(r"^arn:aws[a-z-]*:eks:[a-z0-9-]+:\d+:cluster/(?P<name>.+)$")


def cluster_name(context: str | None, cluster: str | None = None) -> str | None:
    """The cluster's name: from an EKS ARN (context or kubeconfig cluster entry), else the entry's name."""
    for text in (cluster, context):
        match = _ARN_CLUSTER.match(text or "")
        if match:
            return match.group("name")
    return cluster


class Refresh(msgspec.Struct, frozen=True, dict=True, weakref=True):  # weakref: tests see it freed
    """One refresh. `now` is the instant time-based findings are evaluated at; `loaded_at` the wall clock."""

    state: ClusterState
    now: datetime
    loaded_at: datetime
    seconds: float
    nodes: nodes.NodeReport
    health: health.HealthReport
    pending: pending.PendingReport
    drivers: drivers.DriverReport
    nvme: nvme.NvmeReport
    lifecycle: lifecycle.LifecycleReport
    lint: lint.LintReport
    cost: cost.CostReport
    smi: smi.ProbeHealthReport
    diagnose: diagnose.DiagnoseReport
    #: the Overview's rows (`kubectl gpu pools`): per NodePool and the total, from the reports above
    pools: PoolsReport
    #: object -> the diagnose findings about it, worst first
    findings_by_object: Mapping[ObjectRef, tuple[Finding, ...]] = msgspec.field(default_factory=dict)
    #: node name -> its NodePool (None: not Karpenter's)
    pool_of_node: Mapping[str, str | None] = msgspec.field(default_factory=dict)
    #: The reports of the refresh before: nothing it read had changed, and the instant is the same (the
    #: usage window is read anew each time: `usage` may be new).
    reused: bool = False
    #: the Usage view's window and report (`usage_window`); None: not read (a Refresh built by hand)
    usage: usage_window.Usage | None = None
    #: whether the namespace in scope (`-n`, `:ns`) exists (`kube.namespaces`); None: every namespace
    namespace: NamespaceCheck | None = None

    @property
    def namespace_missing(self) -> str | None:
        """The namespace in scope when it does not exist (views say so rather than show nothing)."""
        return self.namespace.name if self.namespace and self.namespace.status == "missing" else None

    @property
    def mode(self) -> str:
        """EKS Auto Mode, Karpenter (self-managed) or static (no NodePool)."""
        if cluster_provider(self.state) == "auto" and (
            self.state.nodepools or any(r.compute_type == "auto" for r in self.nodes.rows)
        ):
            return "Auto Mode"
        return "Karpenter" if self.state.nodepools else "static"

    @staticmethod
    def parts_of(row: NodeRow) -> AcceleratorParts:
        """A node's figures (`core.accelerators.parts`), as every command and view shows them."""
        return row.parts

    @property
    def parts(self) -> AcceleratorParts:
        """Every node's figures summed: the pools report's total (`kubectl gpu pools`' ALL row)."""
        return self.pools.total.parts

    @property
    def pods_counted(self) -> bool:
        """Whether every node's requested, free and idle accelerators are known (False: pods could not be
        listed, or DRA devices are claimed, and the figures would be guesses: views show `?`)."""
        return self.parts.known

    @property
    def free_accelerators(self) -> Decimal:
        """What a new pod could be given now, over every node (the header's `free`)."""
        return self.parts.free

    def findings_for(self, ref: ObjectRef) -> tuple[Finding, ...]:
        return self.findings_by_object.get(ref, ())


R = TypeVar("R")


def _report(reports: Mapping[str, Report], name: str, kind: type[R]) -> R:
    found = reports[name]
    if not isinstance(found, kind):
        raise TypeError(f"diagnose's {name} analysis returned a {type(found).__name__}")
    return found


def _index(findings: tuple[Finding, ...]) -> dict[ObjectRef, tuple[Finding, ...]]:
    by_object: dict[ObjectRef, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_object[finding.object].append(finding)
    return {ref: tuple(items) for ref, items in by_object.items()}


def analyse(
    state: ClusterState, catalog: Catalog, now: datetime, *, loaded_at: datetime, started: float
) -> Refresh:
    """Every report of one refresh, each analysis run once: `diagnose`'s suite (cost priced in the
    cluster's region, as `kubectl gpu cost` prices it), and the nodes report."""
    suite = diagnose.run_suite(state, catalog, now)
    reports, combined = suite.reports, suite.diagnose
    node_report = nodes.analyse(state, catalog, now)
    pools = diagnose.pools_of_suite(state, node_report.rows, suite, now)

    return Refresh(
        state=state,
        now=now,
        loaded_at=loaded_at,
        seconds=time.perf_counter() - started,
        nodes=node_report,
        health=_report(reports, "health", health.HealthReport),
        pending=_report(reports, "pending", pending.PendingReport),
        drivers=_report(reports, "drivers", drivers.DriverReport),
        nvme=_report(reports, "nvme", nvme.NvmeReport),
        lifecycle=_report(reports, "lifecycle", lifecycle.LifecycleReport),
        lint=_report(reports, "lint", lint.LintReport),
        cost=_report(reports, "cost", cost.CostReport),
        smi=_report(reports, "smi", smi.ProbeHealthReport),
        diagnose=combined,
        pools=pools,
        findings_by_object=_index(combined.findings),
        pool_of_node={r.name: r.node_pool for r in node_report.rows},
    )


def _namespace(source: ClusterSource, state: ClusterState) -> NamespaceCheck | None:
    """Whether the namespace in scope exists (None: every namespace): live, one GET; a namespace the
    objects just read are in exists whatever a 404 says (a real API server never has pods without it)."""
    name = state.scope.namespace
    if not name:
        return None
    check = namespace_check(source, name, state)
    if check.status == "missing" and name in namespaces_in(state):
        return NamespaceCheck(name, "exists")
    return check


def load(
    source: ClusterSource,
    *,
    now: datetime | None = None,
    clock: Callable[[], datetime] | None = None,
    previous: Refresh | None = None,
) -> Refresh:
    """Read the source once and analyse it: `now` (--now), else the snapshot's capture time, else the clock.

    A source returns the very state it returned before when nothing it reads changed (see `kube.live`,
    `SnapshotSource`); evaluated at the same instant as `previous`, its reports are `previous`'s (`reused`).
    At a new instant (live, without --now) they are computed again: time-based findings move on. The usage
    window is read each time (live: one round, while the analyses run); a new round is a new refresh. With a
    namespace in scope, whether it exists is checked each time (live: one GET; `kube.namespaces`)."""
    started = time.perf_counter()
    wall = clock or (lambda: datetime.now(UTC))
    state = source.load(KINDS)
    namespace = _namespace(source, state)
    loaded_at = wall()
    instant = evaluation_instant(now, state.captured_at, loaded_at)
    reading = usage_window.start(previous.usage if previous else None, source, state)  # live: in a thread
    if previous is not None and state is previous.state and instant == previous.now:
        used = reading.result(load_catalog(), instant)
        seconds = time.perf_counter() - started
        return msgspec.structs.replace(
            previous, loaded_at=loaded_at, seconds=seconds, reused=True, usage=used, namespace=namespace
        )
    # The analyses make millions of short-lived objects and no cycles: with the collector on they took
    # twice the CPU on 20,000 Pending pods (bench/HISTORY.md), as in a one-shot command (cli/run.py).
    with without_collection():
        refresh = analyse(state, load_catalog(), instant, loaded_at=loaded_at, started=started)
    used = reading.result(load_catalog(), instant)
    seconds = time.perf_counter() - started
    return msgspec.structs.replace(refresh, usage=used, seconds=seconds, namespace=namespace)
