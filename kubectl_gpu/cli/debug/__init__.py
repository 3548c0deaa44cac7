"""`kubectl gpu smi`, `shell` and `cleanup`: GPU debug pods on nodes, and the pods they may leave behind.

Exit codes: `smi` 0 ok, 1 a GPU health finding (uncorrectable ECC, row remapping failed or pending, pending
page retirement, an NVML error value), 2 bad input (flags, --from-file), 3 a node failed (partial results
are still shown), 130 interrupted (pods deleted first). `shell` exits with kubectl exec's status.
`cleanup` 0 nothing left or all deleted, 1 pods listed but not deleted (no --yes), 3 a delete failed.

Modules: `smi`, `shell` and `cleanup` (one per command), `collectors` (the collector on live nodes, also
for `snapshot --probe`), `dry_run` (`--dry-run`), `common` (what they share).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.cli.debug.collectors import probe_for_snapshot
    from kubectl_gpu.cli.debug.common import NEURON_HELP as NEURON_HELP
    from kubectl_gpu.cli.debug.common import NVIDIA_HELP as NVIDIA_HELP
    from kubectl_gpu.cli.debug.common import collector_script as collector_script
    from kubectl_gpu.cli.debug.common import config_path
    from kubectl_gpu.kube.debug.shell import exec_argv as exec_argv
    from kubectl_gpu.kube.debug.shell import greeting as greeting

__all__ = ["config_path", "probe_for_snapshot", "register"]

#: name -> (module, attribute), imported on first use: `--help` needs the commands' options, not the
#: collectors (the probe parsers) or the debug shell.
_LAZY = {
    "probe_for_snapshot": ("kubectl_gpu.cli.debug.collectors", "probe_for_snapshot"),
    "NEURON_HELP": ("kubectl_gpu.cli.debug.common", "NEURON_HELP"),
    "NVIDIA_HELP": ("kubectl_gpu.cli.debug.common", "NVIDIA_HELP"),
    "collector_script": ("kubectl_gpu.cli.debug.common", "collector_script"),
    #: The collector's text as the CLI sends it (the name this module had before the split).
    "_collector_script": ("kubectl_gpu.cli.debug.common", "collector_script"),
    "config_path": ("kubectl_gpu.cli.debug.common", "config_path"),
    "exec_argv": ("kubectl_gpu.kube.debug.shell", "exec_argv"),
    "greeting": ("kubectl_gpu.kube.debug.shell", "greeting"),
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    import importlib

    return getattr(importlib.import_module(module), attribute)


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.debug import cleanup, shell, smi

    smi.register(app)
    shell.register(app)
    cleanup.register(app)
