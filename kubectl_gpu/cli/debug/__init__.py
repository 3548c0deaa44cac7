"""`kubectl gpu smi`, `shell` and `cleanup`: GPU debug pods on nodes, and the pods they may leave behind.

Exit codes: `smi` 0 ok, 1 a GPU health finding (uncorrectable ECC, row remapping failed or pending, pending
page retirement, an NVML error value), 2 bad input (flags, --from-file), 3 a node failed (partial results
are still shown), 130 interrupted (pods deleted first). `shell` exits with kubectl exec's status.
`cleanup` 0 nothing left or all deleted, 1 pods listed but not deleted (no --yes), 3 a delete failed.

Modules: `smi`, `shell` and `cleanup` (one per command), `collectors` (the collector on live nodes, also
for `snapshot --probe`), `dry_run` (`--dry-run`), `common` (what they share).
"""

from __future__ import annotations

import typer

from kubectl_gpu.cli.debug import cleanup, shell, smi
from kubectl_gpu.cli.debug.collectors import probe_for_snapshot
from kubectl_gpu.cli.debug.common import NEURON_HELP as NEURON_HELP
from kubectl_gpu.cli.debug.common import NVIDIA_HELP as NVIDIA_HELP
from kubectl_gpu.cli.debug.common import collector_script, config_path
from kubectl_gpu.cli.debug.shell import exec_argv as exec_argv
from kubectl_gpu.cli.debug.shell import greeting as greeting

__all__ = ["config_path", "probe_for_snapshot", "register"]

#: The collector's text as the CLI sends it (the name this module had before the split).
_collector_script = collector_script


def register(app: typer.Typer) -> None:
    smi.register(app)
    shell.register(app)
    cleanup.register(app)
