"""Run GPU debug pods: create, poll until done, read the log, delete — always, whatever happens.

Every API call happens in worker threads; the main thread only waits, so Ctrl-C (and SIGTERM, turned into
the same `KeyboardInterrupt`) lands there, sets `cancel`, and each worker stops at its next step and deletes
its pod in a `finally`. Pod names are chosen here, before the create is sent, so a pod whose create was in
flight when the user interrupted is still known and deleted once the create returns.

The package: `errors` (how a debug pod fails), `tracker` (pod names; what was created and must be deleted),
`signals` (SIGTERM as Ctrl-C; requests an interrupt cannot cut off), `parallel` (the fan-out the main thread
waits on), `settings` (the runner's inputs and outputs), `lifecycle` (one pod, create to delete), `runner`
(`DebugRunner`: the collector and the shell pod).
"""

from kubectl_gpu.kube.debug.runner.errors import (
    AdmissionRejected,
    Cancelled,
    DebugPodError,
    DebugPodTimeout,
    ImagePullFailed,
    NoAcceleratorVisible,
    NodeGone,
)
from kubectl_gpu.kube.debug.runner.parallel import run_parallel
from kubectl_gpu.kube.debug.runner.runner import DebugRunner
from kubectl_gpu.kube.debug.runner.settings import Leftover, NodeTarget, RunnerSettings, ShellPod
from kubectl_gpu.kube.debug.runner.signals import interrupts_on_sigterm, say
from kubectl_gpu.kube.debug.runner.tracker import PodTracker, random_suffix

__all__ = [
    "AdmissionRejected",
    "Cancelled",
    "DebugPodError",
    "DebugPodTimeout",
    "DebugRunner",
    "ImagePullFailed",
    "Leftover",
    "NoAcceleratorVisible",
    "NodeGone",
    "NodeTarget",
    "PodTracker",
    "RunnerSettings",
    "ShellPod",
    "interrupts_on_sigterm",
    "random_suffix",
    "run_parallel",
    "say",
]
