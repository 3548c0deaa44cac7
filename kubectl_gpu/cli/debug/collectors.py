"""The collector on live nodes: one debug pod per node, in parallel, always deleted - for `smi` and for
`snapshot --probe`."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.debug.common import (
    collector_script,
    connect,
    find_targets,
    image_chooser,
    namespace_of,
    pods_left_error,
    preflight,
)
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import ClusterError, Interrupted, InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.debug.runner import Leftover, NodeTarget

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
    left_error: Callable[[Sequence[Leftover]], ClusterError],
) -> tuple[list[SmiResult], list[Leftover]]:
    """Fan the collector out over the nodes, with a progress display on a terminal; Ctrl-C deletes pods.
    Returns the results and the pods that could not be deleted (the caller exits non-zero for them).

    From the first signal to the end of the cleanup, further signals cannot stop it (interrupts_on_sigterm);
    interrupted, this raises `Interrupted` naming any pod left and how to delete it (`left_error`)."""
    from rich.live import Live

    from kubectl_gpu.cli.say import say
    from kubectl_gpu.kube.debug.runner import DebugRunner, RunnerSettings, interrupts_on_sigterm, run_parallel
    from kubectl_gpu.render.output import make_console
    from kubectl_gpu.render.smi_view import FanoutProgress

    script = collector_script()
    err = make_console(stderr=True, no_color=no_color)
    api.allow_concurrency(concurrency)
    cancel = threading.Event()
    settings = RunnerSettings(namespace=namespace, timeout=timeout)
    # Long enough for a worker to finish its request and then its delete, retries included.
    grace = (api.request_timeout or 30.0) + settings.delete_budget + 5
    progress = FanoutProgress(len(targets))
    shown = Live(progress, console=err, transient=True, refresh_per_second=10) if err.is_terminal else None
    runner = DebugRunner(api, settings, cancel=cancel, on_phase=progress.on_phase)

    def again(signum: int) -> None:
        say("interrupted again: still deleting debug pods (at most a minute); SIGKILL would leave them")

    with interrupts_on_sigterm(on_again=again), shown or contextlib.nullcontext():
        try:
            results = run_parallel(
                targets,
                lambda target: runner.collect(target, strategy, script),
                concurrency=concurrency,
                cancel=cancel,
                grace=grace,
                on_done=lambda target, _result: progress.on_done(target.name),
                on_interrupt=lambda: say("interrupted: deleting debug pods...", console=err),
            )
        except KeyboardInterrupt:
            left = runner.delete_leftovers() + runner.delete_failures
            if left:
                raise Interrupted(left_error(_unique(left)).line()) from None
            raise Interrupted("debug pods deleted") from None
    return results, runner.left_behind()


def _unique(left: Sequence[Leftover]) -> list[Leftover]:
    found = {(item.namespace, item.name): item for item in reversed(left)}
    return [found[key] for key in sorted(found)]


def probe_for_snapshot(
    opts: GlobalOptions, *, timeout: float = 120.0, concurrency: int = 8
) -> tuple[dict[str, Any], list[str], ClusterError | None]:
    """Collector output of every accelerator node, for a snapshot bundle: ({node: entry}, warnings, and
    the error to exit with once the bundle is written when a debug pod could not be deleted).

    Never raises for a cluster problem: a bundle without probes is still worth writing."""
    warnings: list[str] = []
    left: list[Leftover] = []
    context: str | None = None
    try:
        chooser = image_chooser(None, None)
        api = connect(opts)
        context = api.context
        targets = find_targets(api, opts, [], True, chooser)
        warnings += targets.warnings
        namespace = namespace_of(opts)
        warnings += preflight(api, namespace, Mode.SMI)
        results, left = run_collectors(
            api,
            targets.ready,
            namespace=namespace,
            strategy=Strategy.AUTO,
            timeout=timeout,
            concurrency=concurrency,
            no_color=opts.no_color,
            left_error=lambda pods: pods_left_error(pods, opts, context),
        )
    except (ClusterError, InvalidInput) as exc:
        return {}, [*warnings, f"--probe: no probes: {exc.line()}"], None
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
    return probes, warnings, pods_left_error(left, opts, context) if left else None
