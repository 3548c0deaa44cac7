"""`usage --sample`: sampled nvidia-smi on the nodes no DCGM exporter covers, through the debug pods `smi`
runs (`run_collectors`: the same pod, preflight, cleanup on errors and Ctrl-C, leftovers named).

`smi_sampler(opts)` is the `sampler` that `kube.usage.collect` calls once per round with the nodes to
sample; each node's collector output becomes a `Scrape(source="smi")` (its text as the collector printed
it: `core.usage` parses it as `smi --from-file` does, and names the pod of each GPU process from the
collector's pid-cgroups section). It says on stderr that it creates pods before creating any. What stops a
round before any pod (RBAC, Pod Security, an unknown node) is each node's one-line error; a pod that could
not be deleted stops the command (exit 3, with the cleanup command), as for `smi`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from kubectl_gpu.cli.debug.common import (
    connect,
    find_targets,
    image_chooser,
    namespace_of,
    pods_left_error,
    preflight,
    print_warnings,
)
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.usage.scrape import Scrape

__all__ = ["DEBUG_POD", "smi_sampler"]

#: Scrape.pod of a sampled node: the debug pods are named `gpu-debug-<node>-<random>`.
DEBUG_POD = "gpu-debug-{node}"
Sampler = Callable[[Sequence[str]], list[Scrape]]


def _failed(namespace: str, node: str, error: str, at: datetime) -> Scrape:
    return Scrape(
        "smi", namespace, DEBUG_POD.format(node=node), at, node=node, path="nvidia-smi", error=error
    )


def _round(opts: GlobalOptions, nodes: Sequence[str], timeout: float, concurrency: int) -> list[Scrape]:
    from kubectl_gpu.cli.debug.collectors import run_collectors
    from kubectl_gpu.cli.say import say

    namespace = namespace_of(opts)
    try:
        chooser = image_chooser(None, None)
        api = connect(opts)
        targets = find_targets(api, opts, list(nodes), False, chooser)
        warnings = [*targets.warnings, *preflight(api, namespace, Mode.SMI)]
    except (ClusterError, InvalidInput) as exc:
        at = datetime.now(UTC)
        return [_failed(namespace, node, f"--sample: {exc.line()}", at) for node in nodes]
    print_warnings(warnings, opts.no_color)
    say(
        f"--sample: creating a debug pod on {len(targets.ready)} node(s) in namespace {namespace} to run "
        "nvidia-smi (deleted when done, also on Ctrl-C)",
        no_color=opts.no_color,
    )
    context = api.context
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
    if left:
        raise pods_left_error(left, opts, context)
    at = datetime.now(UTC)
    scrapes = [
        Scrape(
            "smi",
            namespace,
            DEBUG_POD.format(node=r.node),
            at,
            node=r.node,
            path="nvidia-smi",
            text=r.raw,
            error=r.error,
        )
        for r in results
        if r.node is not None
    ]
    scrapes += [_failed(namespace, node, error, at) for node, error in targets.errors]
    return scrapes


def smi_sampler(opts: GlobalOptions, *, timeout: float = 120.0, concurrency: int = 8) -> Sampler:
    """The `sampler` of `kube.usage.collect` for the cluster of `opts`: one debug pod per node a round."""

    def sample(nodes: Sequence[str]) -> list[Scrape]:
        return _round(opts, nodes, timeout, concurrency) if nodes else []

    return sample
