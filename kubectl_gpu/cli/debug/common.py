"""What `smi`, `shell` and `cleanup` share: durations, the connection and the target nodes from the global
options, warnings. The config file, the image it picks, the collector script and the preflight checks live
in `kube.debug.setup` (the TUI uses them too) and are re-exported here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.debugpod import Accelerator, ImageChoice
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.kube.debug import setup as debug_setup
from kubectl_gpu.kube.debug.setup import (
    collector_script,
    config_path,
    image_chooser,
    preflight,
    read_config,
)

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.debug.preflight import Targets
    from kubectl_gpu.kube.debug.runner import Leftover

__all__ = [
    "NEURON_HELP",
    "NVIDIA_HELP",
    "PodsLeftBehind",
    "cleanup_command",
    "collector_script",
    "config_path",
    "connect",
    "find_targets",
    "image_chooser",
    "kubectl_flags",
    "namespace_of",
    "pods_left_error",
    "preflight",
    "print_warnings",
    "read_config",
]

NVIDIA_HELP = "Debug image for NVIDIA nodes (else KUBECTL_GPU_IMAGE, the config file, the default)."
NEURON_HELP = "Debug image for Neuron nodes (else KUBECTL_GPU_NEURON_IMAGE, the config file, the default)."


def connect(opts: GlobalOptions) -> PodApi:
    """The pod API of the connection the options make (`opts.connection()`: resolved once, the same one
    `namespace_of` takes the namespace from)."""
    if opts.snapshot:
        raise InvalidInput("debug pods need a live cluster; --snapshot cannot be used here")
    return debug_setup.open_pod_api(opts.connection())


def namespace_of(opts: GlobalOptions) -> str:
    """Where debug pods go: -n, else the context's namespace, else `default`, as `kubectl debug` would
    put them (`kube.connection` decides)."""
    return opts.default_namespace()


def kubectl_flags(opts: GlobalOptions, context: str | None, *, token: bool = False) -> list[str]:
    """Pin the kubeconfig and context we used, so a context switch meanwhile cannot retarget anything, and
    pass on kubectl's connection flags (--server, --as, ...), so that kubectl connects as we do. `--token`
    only with `token` (a kubectl we run): a command line printed for the user never holds it."""
    from kubectl_gpu.kube.debug.shell import kubectl_flags as flags_of

    flags = opts.connection_flags()
    if not token:
        flags = msgspec.structs.replace(flags, token=None)
    return flags_of(opts.kubeconfig, context) + flags.argv()


def print_warnings(lines: Sequence[str], no_color: bool) -> None:
    from kubectl_gpu.cli.say import say

    for line in dict.fromkeys(lines):
        say(f"warning: {line}", style="yellow", no_color=no_color)


def find_targets(
    api: PodApi,
    opts: GlobalOptions,
    names: Sequence[str],
    all_nodes: bool,
    chooser: Callable[[Accelerator], ImageChoice],
) -> Targets:
    return debug_setup.find_targets(api, names, selector=opts.selector, all_nodes=all_nodes, chooser=chooser)


def cleanup_command(opts: GlobalOptions, context: str | None, namespace: str, names: Sequence[str]) -> str:
    """The exact `kubectl gpu cleanup` line that deletes these pods (and no other), for copy and paste."""
    import shlex

    from kubectl_gpu.kube.secret_text import scrub

    argv = ["kubectl", "gpu", "cleanup", *kubectl_flags(opts, context), "-n", namespace, "--yes", *names]
    return shlex.join(scrub(arg) for arg in argv)


def pods_left_error(left: Sequence[Leftover], opts: GlobalOptions, context: str | None) -> ClusterError:
    """Debug pods that may still run on their nodes: one line naming each, and the cleanup command."""
    shown = ", ".join(f"{item.namespace}/{item.name} ({item.problem})" for item in left)
    what = "debug pod" if len(left) == 1 else f"{len(left)} debug pods:"
    commands = []
    for namespace in sorted({item.namespace for item in left}):
        names = [item.name for item in left if item.namespace == namespace]
        commands.append(cleanup_command(opts, context, namespace, names))
    return PodsLeftBehind(
        f"could not delete {what} {shown}",
        f"{'it is' if len(left) == 1 else 'they are'} still on the node; delete with: "
        + " && ".join(commands),
    )


class PodsLeftBehind(ClusterError):
    """A privileged debug pod may be left on a node: exit 3 (or 130 when interrupted), never 0."""
