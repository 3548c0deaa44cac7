"""`:ctx` alone: the fleet overview, every context of the kubeconfig read at once, on the same code as the
CLI's fleet mode (`kube.fleet.gather`: bounded, a deadline per cluster, a slow or broken one never holds
the others back; `core.clusters`: each cluster's exit code and the fleet's) and the same refresh as the
TUI's own (`data.load`: every analysis once). Plain data: the screen (`tui/fleet/screen.py`) only shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from kubectl_gpu.core.analyses import diagnose
from kubectl_gpu.core.clusters import ClusterFailure, ClusterResult, fleet_exit_code
from kubectl_gpu.core.errors import ExitCode, KubectlGpuError
from kubectl_gpu.core.evaluation import verdict_exit_code
from kubectl_gpu.core.k8s.times import go_duration
from kubectl_gpu.core.report import FailOn, Severity, severity_counts
from kubectl_gpu.kube.contexts import KubeContexts
from kubectl_gpu.kube.fleet import MAX_PARALLEL, Failed, Outcome, TimedOut, cluster_deadline, gather
from kubectl_gpu.kube.source import ClusterSource, SourceOptions
from kubectl_gpu.render.messages import error_line
from kubectl_gpu.tui import data
from kubectl_gpu.tui.config import TuiConfig

__all__ = ["FleetOverview", "FleetRow", "read_fleet"]


class FleetRow(msgspec.Struct, frozen=True):
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


class FleetOverview(msgspec.Struct, frozen=True):
    rows: tuple[FleetRow, ...]
    code: ExitCode  # the fleet's (docs/exit-codes.md#fleet-mode)


def _row(context: str, cluster: str | None, refresh: data.Refresh) -> FleetRow:
    counts = severity_counts(refresh.diagnose.findings)
    # as `kubectl gpu diagnose` decides it: could not look is never shown as clean
    code = verdict_exit_code(refresh.diagnose, refresh.state.notes, diagnose.KINDS, fail_on=FailOn.error)
    return FleetRow(
        context,
        cluster,
        ExitCode(code),
        mode=refresh.mode,
        nodes=len(refresh.nodes.rows),
        free=int(refresh.free_accelerators),
        blocked=sum(1 for p in refresh.pending.pods if p.verdict.blocking),
        errors=counts[str(Severity.ERROR)],
        warnings=counts[str(Severity.WARNING)],
    )


def _failure(outcome: Failed | TimedOut) -> ClusterFailure:
    if isinstance(outcome, TimedOut):
        return ClusterFailure(f"no answer within {go_duration(outcome.seconds)}", ExitCode.CLUSTER)
    error = outcome.error
    code = error.exit_code if isinstance(error, KubectlGpuError) else ExitCode.CLUSTER
    return ClusterFailure(error_line(error)[:400], code)


def read_fleet(
    config: TuiConfig,
    contexts: KubeContexts,
    *,
    factory: Callable[[SourceOptions], ClusterSource],
    clock: Callable[[], datetime],
) -> FleetOverview:
    """Every context of `contexts`, read and analysed at once (in a worker thread: this blocks)."""

    def load(context: str) -> data.Refresh:
        source = factory(msgspec.structs.replace(config.source, context=context, keep_manifests=False))
        return data.load(source, now=config.now, clock=clock)

    deadline = cluster_deadline(config.source.request_timeout)
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
