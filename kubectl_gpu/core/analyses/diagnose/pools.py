"""`kubectl gpu pools` and the TUI's Overview: one summary per NodePool (its nodes, their accelerator
figures, the Pending pods nearest to it, its worst finding) and the fleet's total row.

It combines the nodes' rows, the pending report (each Pending pod's nearest NodePool or node) and
diagnose's findings (each placed on the pools its object belongs to), so it lives beside diagnose, the one
analysis that combines the others. The figures are `core.accelerators.parts`', summed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Protocol

import msgspec

from kubectl_gpu.core.accelerators.nodes import NodeRow, node_rows
from kubectl_gpu.core.accelerators.parts import AcceleratorParts
from kubectl_gpu.core.analyses import lint, pending
from kubectl_gpu.core.analyses.diagnose.analysis import Suite, run_suite
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import FailOn, Finding, ObjectRef, ReportBase, severity_counts

__all__ = ["ALL", "NO_POOL", "PoolSummary", "PoolsReport", "analyse", "pools_of_suite", "pools_report"]

ALL = "ALL"  # the name of the total row
NO_POOL = "(no NodePool)"  # nodes outside Karpenter, and Pending pods near none


class Target(Protocol):
    """A Pending pod's nearest target, as the pending report names it: a NodePool or a node."""

    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...


#: (namespace, name) of a Pending pod -> its nearest target, None when none
Nearest = Mapping[tuple[str, str], Target | None]


class PoolSummary(msgspec.Struct, frozen=True):
    """A NodePool (or the `(no NodePool)` row, or the `ALL` total): its nodes' figures, its Pending pods
    and the findings about it, worst first."""

    name: str
    parts: AcceleratorParts
    pending: int
    findings: tuple[Finding, ...]

    @property
    def nodes(self) -> int:
        return self.parts.nodes

    @property
    def worst(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    @property
    def ref(self) -> ObjectRef | None:
        return ObjectRef("NodePool", self.name) if self.name not in (ALL, NO_POOL) else None

    def to_dict(self) -> dict[str, Any]:
        worst = self.worst
        return {
            "name": None if self.name in (ALL, NO_POOL) else self.name,
            "nodes": self.nodes,
            "accelerators": self.parts.to_dict(),
            "pending": self.pending,
            "findings": severity_counts(self.findings),
            "worstFinding": worst.to_dict() if worst else None,
        }


class PoolsReport(msgspec.Struct, ReportBase, frozen=True):
    """A summary: the findings are diagnose's (the pools name the worst); always exit 0."""

    kind: ClassVar[str] = "PoolsReport"
    default_fail_on: ClassVar[FailOn | None] = None
    pools: tuple[PoolSummary, ...]
    total: PoolSummary
    now: datetime
    #: NodePool -> every node it has launched, accelerators or not (the TUI's NodePools view)
    all_nodes: Mapping[str, int] = msgspec.field(default_factory=dict)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return ()

    @property
    def rows(self) -> tuple[PoolSummary, ...]:
        """The pools, then the total."""
        return (*self.pools, self.total)

    def body(self) -> dict[str, Any]:
        return {
            "evaluatedAt": self.now.isoformat().replace("+00:00", "Z"),
            "nodePools": [p.to_dict() for p in self.pools],
            "total": self.total.to_dict(),
        }


def _pending_pools(nearest: Nearest, pool_of_node: Mapping[str, str | None]) -> dict[tuple[str, str], str]:
    out = {}
    for key, near in nearest.items():
        pool = None
        if near is not None:
            pool = near.name if near.kind == "NodePool" else pool_of_node.get(near.name)
        out[key] = pool or NO_POOL
    return out


def _bound_pools(
    state: ClusterState, findings: Sequence[Finding], pool_of_node: Mapping[str, str | None]
) -> dict[tuple[str, str], str]:
    """(namespace, name) -> pool of the node it runs on, for the bound pods findings are about."""
    wanted = {(f.object.namespace or "", f.object.name) for f in findings if f.object.kind == "Pod"}
    out = {}
    for pod in state.pods if wanted else ():
        key = (pod.namespace, pod.name)
        if key in wanted and pod.node_name and (pool := pool_of_node.get(pod.node_name)):
            out[key] = pool
    return out


def _pools_of(
    ref: ObjectRef, state: ClusterState, pool_of_node: Mapping[str, str | None], pods: Mapping[Any, str]
) -> list[str]:
    """The pools a finding's object belongs to: a NodePool itself, a node's pool, a pod's (Pending: its
    nearest; bound: its node's), the pools that use a NodeClass."""
    if ref.kind == "NodePool":
        return [ref.name]
    if ref.kind == "Node":
        pool = pool_of_node.get(ref.name)
        return [pool] if pool else []
    if ref.kind == "Pod":
        pool = pods.get((ref.namespace or "", ref.name))
        return [pool] if pool else []
    if ref.kind in ("NodeClass", "EC2NodeClass"):
        return [
            p.name
            for p in state.nodepools
            if p.node_class_ref is not None and p.node_class_ref.name == ref.name
        ]
    return []


def pools_report(
    state: ClusterState,
    rows: Sequence[NodeRow],
    nearest: Nearest,
    gpu_pools: Iterable[str],
    findings: Sequence[Finding],
    now: datetime,
) -> PoolsReport:
    """One summary per NodePool with accelerator nodes, a GPU NodePool (`gpu_pools`: lint's) or Pending
    pods, by name, `(no NodePool)` last; then the total of every row, with every finding."""
    pool_of_node = {n.name: n.labels.get("karpenter.sh/nodepool") for n in state.nodes}
    parts: dict[str, AcceleratorParts] = defaultdict(AcceleratorParts)
    for row in rows:
        name = row.node_pool or NO_POOL
        parts[name] = parts[name] + row.parts
    pending_pods = _pending_pools(nearest, pool_of_node)
    pending_counts: dict[str, int] = defaultdict(int)
    for pool in pending_pods.values():
        pending_counts[pool] += 1
    pods = {**_bound_pools(state, findings, pool_of_node), **pending_pods}
    names = set(parts) | set(pending_counts) | set(gpu_pools)
    placed: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        for pool in _pools_of(finding.object, state, pool_of_node, pods):
            placed[pool].append(finding)
    summaries = tuple(
        PoolSummary(
            name,
            parts.get(name, AcceleratorParts()),
            pending_counts.get(name, 0),
            tuple(sorted(placed.get(name, ()), key=Finding.sort_key)),
        )
        for name in sorted(names, key=lambda n: (n == NO_POOL, n))
    )
    total_parts = AcceleratorParts()
    for summary in summaries:
        total_parts = total_parts + summary.parts
    total = PoolSummary(ALL, total_parts, len(pending_pods), tuple(sorted(findings, key=Finding.sort_key)))
    all_nodes: dict[str, int] = defaultdict(int)
    for launched_by in pool_of_node.values():
        if launched_by:
            all_nodes[launched_by] += 1
    return PoolsReport(summaries, total, now, dict(all_nodes))


def pools_of_suite(state: ClusterState, rows: Sequence[NodeRow], suite: Suite, now: datetime) -> PoolsReport:
    """The pools report from a run of the analyses (`run_suite`): what the TUI's refresh and `kubectl gpu
    pools` both call."""
    pending_report = suite.reports.get("pending")
    lint_report = suite.reports.get("lint")
    nearest: dict[tuple[str, str], Target | None] = {}
    if isinstance(pending_report, pending.PendingReport):
        nearest = {(d.namespace, d.name): d.nearest for d in pending_report.pods}
    gpu = [p.name for p in lint_report.pools if p.gpu] if isinstance(lint_report, lint.LintReport) else []
    return pools_report(state, rows, nearest, gpu, suite.diagnose.findings, now)


def analyse(state: ClusterState, catalog: Catalog, now: datetime) -> PoolsReport:
    """`kubectl gpu pools`: every analysis once (as diagnose and the TUI run them), then the pools."""
    return pools_of_suite(state, node_rows(state, catalog), run_suite(state, catalog, now), now)
