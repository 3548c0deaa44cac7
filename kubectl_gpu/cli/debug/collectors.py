"""The collector on live nodes: one debug pod per node, in parallel, always deleted - for `smi` and for
`snapshot --probe`."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.debug.common import (
    collector_script,
    connect,
    find_targets,
    image_chooser,
    namespace_of,
    preflight,
    warn_left,
)
from kubectl_gpu.cli.options import GlobalOptions
from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import ClusterError, Interrupted, InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug_runner import NodeTarget
    from kubectl_gpu.kube.pod_api import PodApi

__all__ = ["probe_for_snapshot", "run_collectors"]


def run_collectors(
    api: PodApi,
    targets: Sequence[NodeTarget],
    *,
    namespace: str,
    strategy: Strategy,
    timeout: float,
    concurrency: int,
    no_color: bool,
) -> list[SmiResult]:
    """Fan the collector out over the nodes, with a progress display on a terminal; Ctrl-C deletes pods."""
    from rich.live import Live

    from kubectl_gpu.kube.debug_runner import DebugRunner, RunnerSettings, interrupts_on_sigterm, run_parallel
    from kubectl_gpu.render.output import make_console
    from kubectl_gpu.render.smi_view import FanoutProgress

    script = collector_script()
    err = make_console(stderr=True, no_color=no_color)
    api.allow_concurrency(concurrency)
    cancel = threading.Event()
    grace = 2 * (api.request_timeout or 30.0) + 5
    progress = FanoutProgress(len(targets))
    shown = Live(progress, console=err, transient=True, refresh_per_second=10) if err.is_terminal else None
    with shown or contextlib.nullcontext():
        runner = DebugRunner(
            api,
            RunnerSettings(namespace=namespace, timeout=timeout),
            cancel=cancel,
            on_phase=progress.on_phase,
        )
        try:
            with interrupts_on_sigterm():
                results = run_parallel(
                    targets,
                    lambda target: runner.collect(target, strategy, script),
                    concurrency=concurrency,
                    cancel=cancel,
                    grace=grace,
                    on_done=lambda target, _result: progress.on_done(target.name),
                    on_interrupt=lambda: err.print("interrupted: deleting debug pods...", markup=False),
                )
        except KeyboardInterrupt:
            left = runner.delete_leftovers()
            warn_left(left, no_color)
            raise Interrupted("debug pods deleted" if not left else "") from None
    warn_left(runner.delete_failures, no_color)
    return results


def probe_for_snapshot(
    opts: GlobalOptions, *, timeout: float = 120.0, concurrency: int = 8
) -> tuple[dict[str, Any], list[str]]:
    """Collector output of every accelerator node, for a snapshot bundle: ({node: entry}, warnings).

    Never raises for a cluster problem: a bundle without probes is still worth writing."""
    warnings: list[str] = []
    try:
        chooser = image_chooser(None, None)
        api = connect(opts)
        targets = find_targets(api, opts, [], True, chooser)
        warnings += targets.warnings
        namespace = namespace_of(opts)
        warnings += preflight(api, namespace, Mode.SMI)
        results = run_collectors(
            api,
            targets.ready,
            namespace=namespace,
            strategy=Strategy.AUTO,
            timeout=timeout,
            concurrency=concurrency,
            no_color=opts.no_color,
        )
    except (ClusterError, InvalidInput) as exc:
        return {}, [*warnings, f"--probe: no probes: {exc.line()}"]
    captured = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    probes: dict[str, Any] = {}
    for result in results:
        probes[result.node or "?"] = {
            "output": result.raw,
            "strategy": result.strategy,
            "image": result.image,
            "error": result.error,
            "capturedAt": captured,
        }
        if result.error:
            warnings.append(f"--probe: {result.error}")
    for node, error in targets.errors:
        probes[node] = {
            "output": None,
            "strategy": None,
            "image": None,
            "error": error,
            "capturedAt": captured,
        }
        warnings.append(f"--probe: {error}")
    return probes, warnings
