"""`--dry-run` of `smi` and `shell`: the pod each node would get and the equivalent `kubectl debug`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kubectl_gpu.cli.debug.common import collector_script, kubectl_flags, namespace_of
from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.debugpod import (
    Accelerator,
    DebugPodSpec,
    ImageChoice,
    Mode,
    Strategy,
    attempts,
    build_debug_pod,
    collector_command,
    kubectl_debug_command,
    shell_command,
)

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug.runner import NodeTarget

__all__ = ["print_dry_run"]


def print_dry_run(
    targets: Sequence[NodeTarget],
    opts: GlobalOptions,
    context: str | None,
    strategy: Strategy,
    mode: Mode,
    chooser: Callable[[Accelerator], ImageChoice],
    timeout: float,
) -> None:
    from kubectl_gpu.kube.debug.runner import RunnerSettings, random_suffix
    from kubectl_gpu.render.smi_view import DryRunPlan, dry_run_text

    script = collector_script() if mode is Mode.SMI else ""
    plans = []
    lifetime = RunnerSettings().shell_lifetime
    for target in targets:
        first = attempts(strategy)[0]
        notes: list[str] = []
        if strategy is Strategy.AUTO:
            notes.append(
                f"auto: when this pod sees no device, a second pod requests one {target.resource or '-'} "
                f"({target.free} free on the node)"
            )
        if first is Strategy.REQUEST and target.free < 1:
            notes.append(
                f"warning: no {target.resource or 'accelerator'} is free on the node; this pod would stay Pending"
            )
        command = (
            collector_command(script) if mode is Mode.SMI else shell_command(target.accelerator, lifetime)
        )
        spec = DebugPodSpec(
            node=target.name,
            image=target.image,
            suffix=random_suffix(),
            command=command,
            namespace=namespace_of(opts),
            accelerator=target.accelerator,
            strategy=first,
            resource=target.resource,
            mode=mode,
            active_deadline_seconds=lifetime if mode is Mode.SHELL else int(timeout) + 60,
        )
        plans.append(
            DryRunPlan(
                node=target.name,
                strategy=strategy.value,
                image_source=chooser(target.accelerator).source,
                manifest=build_debug_pod(spec),
                kubectl=kubectl_debug_command(spec, kubectl_flags(opts, context)),
                notes=tuple(notes),
            )
        )
    sys.stdout.write(dry_run_text(plans))
