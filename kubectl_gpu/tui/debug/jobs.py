"""`s` and `x`: nvidia-smi and a shell on nodes, through the same runner as `kubectl gpu smi` / `shell`.

A job runs in a worker thread (the API calls block); the UI thread only cancels it. The runner deletes each
pod in a `finally`, also when cancelled; `DebugJobs.cleanup()` is the last resort, run when the app ends
(also after a crash), for any pod still tracked. Offline (`--snapshot`), `s` reads the stored probes.
A job never raises: whatever goes wrong is its outcome's `error`, shown by the page or a notification.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from kubectl_gpu.core.analyses.smi import SmiResult, stored_results
from kubectl_gpu.core.debugpod import Mode, Strategy
from kubectl_gpu.core.errors import KubectlGpuError
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.tui.background import failure_line
from kubectl_gpu.tui.config import TuiConfig

if TYPE_CHECKING:  # the runner and the pod API load the kubernetes client: only when a debug pod is made
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.debug.runner import DebugRunner, NodeTarget, ShellPod

__all__ = ["DebugJobs", "JobOutcome", "ShellJob", "SmiJob", "offline_smi"]

Phase = Callable[[str, str], None]
HandOver = Callable[[list[str], list[str]], int]


def offline_smi(state: ClusterState, nodes: Sequence[str]) -> list[SmiResult]:
    """`kubectl gpu smi --snapshot`: the probes the bundle stored for these nodes."""
    return stored_results(state, nodes)


class JobOutcome(msgspec.Struct, dict=True):
    results: list[SmiResult] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    #: debug pods that could not be deleted (run `kubectl gpu cleanup`)
    left: list[str] = msgspec.field(default_factory=list)
    cancelled: bool = False
    error: str | None = None
    exit_code: int | None = None


class _Job:
    """What both jobs share: the connection, the targets, cancel, and the runner whose pods must go."""

    mode: Mode = Mode.SMI

    def __init__(self, config: TuiConfig, nodes: Sequence[str], *, timeout: float = 120.0) -> None:
        self.config = config
        self.nodes = list(nodes)
        self.timeout = timeout
        self.cancel_event = threading.Event()
        self.runner: DebugRunner | None = None
        self.done = threading.Event()
        self.outcome = JobOutcome()

    @property
    def namespace(self) -> str:
        return self.config.debug_namespace

    def cancel(self) -> None:
        self.cancel_event.set()

    def _connect(self) -> tuple[PodApi, list[NodeTarget]]:
        from kubectl_gpu.kube.debug.setup import connect, find_targets, image_chooser, preflight

        source = self.config.source
        api = connect(source.kubeconfig, source.context, source.request_timeout, source.flags)
        targets = find_targets(
            api, self.nodes, selector=None, all_nodes=False, chooser=image_chooser(None, None)
        )
        self.outcome.warnings += targets.warnings
        self.outcome.results += [SmiResult(node, None, None, error=error) for node, error in targets.errors]
        if targets.ready:
            self.outcome.warnings += preflight(api, self.namespace, self.mode)
        return api, list(targets.ready)

    def _runner(self, api: PodApi, on_phase: Phase | None = None) -> DebugRunner:
        from kubectl_gpu.kube.debug.runner import DebugRunner, RunnerSettings

        settings = RunnerSettings(namespace=self.namespace, timeout=self.timeout)
        if on_phase is None:
            self.runner = DebugRunner(api, settings, cancel=self.cancel_event)
        else:
            self.runner = DebugRunner(api, settings, cancel=self.cancel_event, on_phase=on_phase)
        return self.runner

    def cleanup(self) -> list[str]:
        """Delete every pod of this job still tracked; what could not be deleted (namespace/name: why)."""
        if self.runner is None:
            return []
        self.runner.delete_leftovers()
        return [str(left) for left in self.runner.left_behind()]

    def _finish(self) -> JobOutcome:
        if self.runner is not None:
            self.outcome.left = self.cleanup()
        self.done.set()
        return self.outcome


class SmiJob(_Job):
    """nvidia-smi (Neuron: neuron-ls) on each node, `concurrency` at a time, as `kubectl gpu smi NODE...`."""

    def __init__(
        self,
        config: TuiConfig,
        nodes: Sequence[str],
        *,
        on_phase: Phase,
        on_done: Callable[[SmiResult], None],
        timeout: float = 120.0,
        concurrency: int = 8,
    ) -> None:
        super().__init__(config, nodes, timeout=timeout)
        self.on_phase = on_phase
        self.on_done = on_done
        self.concurrency = concurrency

    def run(self) -> JobOutcome:
        from kubectl_gpu.kube.debug.runner import Cancelled, run_parallel
        from kubectl_gpu.kube.debug.setup import collector_script

        finished: list[SmiResult] = []
        try:
            api, targets = self._connect()
            if self.cancel_event.is_set():
                raise Cancelled
            api.allow_concurrency(self.concurrency)
            runner = self._runner(api, self.on_phase)
            script = collector_script()

            def done(_: NodeTarget, result: SmiResult) -> None:
                finished.append(result)
                self.on_done(result)

            results = run_parallel(
                targets,
                lambda target: runner.collect(target, Strategy.AUTO, script),
                concurrency=self.concurrency,
                cancel=self.cancel_event,
                grace=2 * (api.request_timeout or 30.0) + 5,
                on_done=done,
            )
            self.outcome.results = results + self.outcome.results
        except Cancelled:
            self.outcome.cancelled = True
            self.outcome.results = finished + self.outcome.results
        except KubectlGpuError as exc:
            self.outcome.error = exc.line()
        except Exception as exc:  # a bug: said, and the job still ends (its pods deleted, `done` set)
            self.outcome.error = f"internal error (please report it): {failure_line(exc)}"
        return self._finish()


class ShellJob(_Job):
    """A shell pod on one node; `hand_over(greeting, argv)` runs `kubectl exec` with the terminal (the app
    suspends itself for it) and returns its exit status; the pod is deleted when it returns."""

    mode = Mode.SHELL

    def __init__(self, config: TuiConfig, node: str, *, hand_over: HandOver, timeout: float = 120.0) -> None:
        super().__init__(config, [node], timeout=timeout)
        self.hand_over = hand_over

    def run(self) -> JobOutcome:
        from kubectl_gpu.kube.debug.runner import Cancelled
        from kubectl_gpu.kube.debug.shell import exec_argv, kubectl_binary, kubectl_flags

        try:
            kubectl = kubectl_binary()  # before any pod exists
            api, targets = self._connect()
            if not targets:
                self.outcome.error = self.outcome.results[0].error if self.outcome.results else "no such node"
                return self._finish()
            target = targets[0]
            runner = self._runner(api)
            with runner.shell_pod(target, Strategy.AUTO) as pod:
                if self.cancel_event.is_set():
                    raise Cancelled
                argv = exec_argv(
                    kubectl, kubectl_flags(self.config.source.kubeconfig, api.context), pod, tty=True
                )
                self.outcome.exit_code = self.hand_over(self._greeting(target, pod), argv)
        except Cancelled:
            self.outcome.cancelled = True
        except KubectlGpuError as exc:
            self.outcome.error = exc.line()
        except Exception as exc:  # a bug: said, and the job still ends (its pods deleted, `done` set)
            self.outcome.error = f"internal error (please report it): {failure_line(exc)}"
        return self._finish()

    def _greeting(self, target: NodeTarget, pod: ShellPod) -> list[str]:
        from kubectl_gpu.kube.debug.shell import greeting

        return [*(f"warning: {w}" for w in self.outcome.warnings), *greeting(target, pod)]


class DebugJobs:
    """Every job the app started: to cancel the running ones on quit and delete what they left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: list[_Job] = []

    def add(self, job: _Job) -> None:
        with self._lock:
            self._jobs.append(job)

    @property
    def running(self) -> list[_Job]:
        with self._lock:
            return [job for job in self._jobs if not job.done.is_set()]

    def cancel_all(self) -> None:
        for job in self.running:
            job.cancel()

    def wait(self, timeout: float) -> bool:
        """Wait for the running jobs to unwind (their pods deleted); False if some did not in time."""
        return all(job.done.wait(timeout) for job in self.running)

    def cleanup(self) -> list[str]:
        """Cancel whatever still runs and delete every pod still tracked; what could not be deleted."""
        self.cancel_all()
        left: list[str] = []
        with self._lock:
            jobs = list(self._jobs)
        for job in jobs:
            left += job.cleanup()
        return left
