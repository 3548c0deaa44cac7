"""`:ctx` alone: the fleet overview, every context of the kubeconfig read at once, on the same code as the
CLI's fleet mode (`kube.fleet.gather`: bounded, a deadline per cluster, a slow or broken one never holds
the others back; `core.clusters`: each cluster's exit code and the fleet's) and the same refresh as the
TUI's own (`data.load`: every analysis once). Plain data: the screen (`screens/fleet.py`) only shows it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from kubectl_gpu.core.analyses import diagnose
from kubectl_gpu.core.clusters import ClusterFailure, ClusterResult, fleet_exit_code
from kubectl_gpu.core.errors import ExitCode, KubectlGpuError
from kubectl_gpu.core.k8s.state import could_not_look
from kubectl_gpu.core.report import Severity, severity_counts
from kubectl_gpu.kube.contexts import KubeContexts
from kubectl_gpu.kube.fleet import MAX_PARALLEL, Failed, Outcome, TimedOut, gather
from kubectl_gpu.kube.source import ClusterSource, SourceOptions
from kubectl_gpu.kube.transport import DEADLINE_FACTOR
from kubectl_gpu.tui import data
from kubectl_gpu.tui.config import TuiConfig

__all__ = ["FleetOverview", "FleetRow", "read_fleet"]


@dataclass(frozen=True, slots=True)
class FleetRow:
    """One context: what was read (None where it could not be), or why not."""

    context: str
    cluster: str | None
    code: ExitCode  # as `kubectl gpu diagnose --context NAME` would exit
    error: str | None = None
    mode: str | None = None
    nodes: int | None = None
    free: int | None = None
    blocked: int | None = None
    errors: int | None = None
    warnings: int | None = None


@dataclass(frozen=True, slots=True)
class FleetOverview:
    rows: tuple[FleetRow, ...]
    code: ExitCode  # the fleet's (docs/exit-codes.md#fleet-mode)


def _row(context: str, cluster: str | None, snapshot: data.Snapshot) -> FleetRow:
    counts = severity_counts(snapshot.diagnose.findings)
    code = snapshot.diagnose.exit_code()
    if code == ExitCode.OK and could_not_look(snapshot.state.notes, diagnose.KINDS):
        code = ExitCode.INCOMPLETE  # could not look: never shown as clean
    return FleetRow(
        context,
        cluster,
        code,
        mode=snapshot.mode,
        nodes=len(snapshot.nodes.rows),
        free=int(snapshot.free_accelerators),
        blocked=sum(1 for p in snapshot.pending.pods if p.verdict.blocking),
        errors=counts[str(Severity.ERROR)],
        warnings=counts[str(Severity.WARNING)],
    )


def _failure(outcome: Failed | TimedOut) -> ClusterFailure:
    if isinstance(outcome, TimedOut):
        return ClusterFailure(f"no answer within {outcome.seconds:g}s", ExitCode.CLUSTER)
    error = outcome.error
    if isinstance(error, KubectlGpuError):
        return ClusterFailure(error.line(), error.exit_code)
    return ClusterFailure(f"{type(error).__name__}: {' '.join(str(error).split())[:300]}", ExitCode.CLUSTER)


def read_fleet(
    config: TuiConfig,
    contexts: KubeContexts,
    *,
    factory: Callable[[SourceOptions], ClusterSource],
    clock: Callable[[], datetime],
) -> FleetOverview:
    """Every context of `contexts`, read and analysed at once (in a worker thread: this blocks)."""

    def load(context: str) -> data.Snapshot:
        source = factory(dataclasses.replace(config.source, context=context, keep_manifests=False))
        return data.load(source, now=config.now, clock=clock)

    timeout = config.source.request_timeout
    deadline = None if timeout is None else timeout * (DEADLINE_FACTOR + 1)
    outcomes = gather(list(contexts.names), load, parallel=MAX_PARALLEL, deadline=deadline)
    rows, results = [], []
    for outcome in outcomes:
        cluster = contexts.clusters.get(outcome.key)
        if isinstance(outcome, Outcome):
            row = _row(outcome.key, cluster, outcome.value)
            results.append(ClusterResult(outcome.key, cluster, exit_code=row.code))
        else:
            failure = _failure(outcome)
            row = FleetRow(outcome.key, cluster, failure.exit_code, error=failure.message)
            results.append(ClusterResult(outcome.key, cluster, error=failure))
        rows.append(row)
    return FleetOverview(tuple(rows), fleet_exit_code(results))
