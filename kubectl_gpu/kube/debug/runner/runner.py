"""The runner: the collector on one node (trying the strategies of `auto` in turn, naming the pods of GPU
processes) and the interactive shell pod; the pods themselves go through `PodLifecycle`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import msgspec

from kubectl_gpu.core.analyses.smi import SmiResult, sees_accelerator, unseen_reason
from kubectl_gpu.core.debugpod import (
    Accelerator,
    DebugPodSpec,
    Mode,
    PodProgress,
    ShellProbe,
    Strategy,
    attempts,
    collector_command,
    parse_shell_probe,
    shell_command,
)
from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_pod
from kubectl_gpu.core.probe import ProbeResult, parse_collector_output
from kubectl_gpu.core.probe.attribution import pod_names_by_uid
from kubectl_gpu.kube.debug.pod_api import ApiFailure
from kubectl_gpu.kube.debug.runner.errors import (
    Cancelled,
    DebugPodError,
    DebugPodTimeout,
    NoAcceleratorVisible,
)
from kubectl_gpu.kube.debug.runner.lifecycle import PodAttempt, PodLifecycle
from kubectl_gpu.kube.debug.runner.settings import NodeTarget, ShellPod, poll_delay

__all__ = ["DebugRunner"]


class DebugRunner(PodLifecycle):
    """Runs debug pods on nodes. Thread-safe: one runner serves every worker of a fan-out."""

    # --- smi -----------------------------------------------------------------------------------

    def collect(self, target: NodeTarget, strategy: Strategy, script: str) -> SmiResult:
        """Run the collector on one node; errors become the result's `error` (Cancelled propagates). When GPU
        processes run in pod cgroups, the node's pods are listed once to name them."""
        try:
            return self._with_pods(self._collect(target, strategy, script))
        except DebugPodError as exc:
            return SmiResult(target.name, None, None, error=exc.line(), image=target.image)
        except ClusterError as exc:
            return SmiResult(
                target.name, None, None, error=f"node {target.name}: {exc.line()}", image=target.image
            )
        except ApiFailure as exc:
            return SmiResult(target.name, None, None, error=f"node {target.name}: {exc}", image=target.image)

    def _collect(self, target: NodeTarget, strategy: Strategy, script: str) -> SmiResult:
        notes: list[str] = []
        seen: tuple[Strategy, ProbeResult, str, str] | None = None  # the last try: strategy, result, log, why
        device = self._device(target)
        for concrete in attempts(strategy):
            if concrete is Strategy.REQUEST:
                blocker = self._request_blocker(target)
                if blocker is not None and seen is None:
                    raise NoAcceleratorVisible(
                        f"node {target.name}: the request strategy needs a free {target.resource or 'device'}, "
                        f"but {blocker}",
                        "use --strategy privileged-all (it allocates nothing)",
                    )
                if blocker is not None and seen is not None:
                    used, result, raw, why = seen
                    error = (
                        f"node {target.name}: the container saw no {device} with {used.value} ({why}), and "
                        f"{blocker}; the node's runtime may ignore NVIDIA_VISIBLE_DEVICES (README 'Debug pods')"
                    )
                    return SmiResult(target.name, used.value, result, error, raw, tuple(notes), target.image)
                if seen is not None:
                    notes.append(
                        f"auto: {seen[0].value} saw no {device} ({seen[3]}); retried with a {target.resource} request"
                    )
            spec = self._spec(target, concrete, collector_command(script), Mode.SMI)
            raw, progress = self._run_to_completion(spec)
            result = self._parse(spec, raw, progress)
            if sees_accelerator(result, target.accelerator):
                return SmiResult(target.name, concrete.value, result, None, raw, tuple(notes), spec.image)
            seen = (concrete, result, raw, unseen_reason(result, target.accelerator))
        assert seen is not None
        used, result, raw, why = seen
        error = f"node {target.name}: the container saw no {device} with strategy {used.value} ({why})"
        return SmiResult(target.name, used.value, result, error, raw, tuple(notes), target.image)

    def _with_pods(self, result: SmiResult) -> SmiResult:
        """The result with the node's pods (UID -> namespace/name), when some process runs in a pod's cgroup.

        A failed list (403, a timeout) leaves the pods unknown, with why, for the note; it never fails the run."""
        if result.probe is None or not result.probe.pid_pods or result.node is None:
            return result
        self._checkpoint()
        self.on_phase(result.node, "listing pods")
        try:
            raw = self.api.list_node_pods(result.node)
        except ApiFailure as exc:
            hint = "; it needs RBAC 'list' on pods" if exc.status == 403 else ""
            why = f"the node's pods could not be listed ({exc}){hint}"
            return msgspec.structs.replace(result, pods_unknown=why)
        except ClusterError as exc:
            return msgspec.structs.replace(
                result, pods_unknown=f"the node's pods could not be listed ({exc.line()})"
            )
        pods: list[Pod] = []
        for obj in raw:
            try:
                pods.append(parse_pod(obj))
            except ModelError:
                continue
        return msgspec.structs.replace(result, pods=pod_names_by_uid(pods))

    @staticmethod
    def _device(target: NodeTarget) -> str:
        return "Neuron device" if target.accelerator is Accelerator.NEURON else "GPU"

    @staticmethod
    def _request_blocker(target: NodeTarget) -> str | None:
        """Why the request strategy cannot be used on this node, or None."""
        if target.resource is None:
            return "the node advertises no device-plugin resource to request"
        if target.free < 1:
            return f"no {target.resource} is free to request"
        return None

    def _parse(self, spec: DebugPodSpec, raw: str, progress: PodProgress) -> ProbeResult:
        result = parse_collector_output(raw)
        if result.collector_version is None:
            first = next((line.strip() for line in raw.splitlines() if line.strip()), "no output")
            code = (
                f"exit code {progress.exit_code}" if progress.exit_code is not None else progress.describe()
            )
            raise DebugPodError(
                f"node {spec.node}: the debug pod did not run the collector ({code}): {first[:200]}",
                f"check the image {spec.image} has a POSIX sh",
            )
        return result

    # --- shell ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def shell_pod(self, target: NodeTarget, strategy: Strategy) -> Iterator[ShellPod]:
        """A running shell pod on the node, deleted when the block exits (normally, by error or Ctrl-C).

        With `auto`, a privileged pod that sees no device is replaced by one requesting a device when one is
        free; otherwise it is kept (the node is still worth a shell) and a note says what it lacks."""
        notes: list[str] = []
        device = self._device(target)
        tries = attempts(strategy)
        for number, concrete in enumerate(tries):
            blocker = self._request_blocker(target)
            if concrete is Strategy.REQUEST and blocker is not None:
                raise NoAcceleratorVisible(
                    f"node {target.name}: the request strategy needs a free {target.resource or 'device'}, "
                    f"but {blocker}",
                    "use --strategy privileged-all (it allocates nothing)",
                )
            command = shell_command(target.accelerator, self.settings.shell_lifetime)
            spec = self._spec(target, concrete, command, Mode.SHELL)
            attempt = self._create(spec)
            try:
                probe = self._wait_shell_ready(attempt, target.accelerator)
                final = number == len(tries) - 1 or blocker is not None
                if probe.devices or final:
                    if not probe.devices:
                        why = probe.detail or "no output"
                        notes.append(
                            f"the container sees no {device} ({why})" + (f"; {blocker}" if blocker else "")
                        )
                    yield ShellPod(spec.namespace, spec.name, concrete, probe, tuple(notes))
                    return
                notes.append(
                    f"auto: {concrete.value} saw no {device} ({probe.detail}); retried with a "
                    f"{target.resource} request"
                )
            finally:
                self._delete(spec)

    def _wait_shell_ready(self, attempt: PodAttempt, accelerator: Accelerator) -> ShellProbe:
        self._wait(attempt, until_running=True)
        started = self.clock()
        while True:
            self._checkpoint()
            log = self._read_log(attempt)
            probe = parse_shell_probe(log, accelerator)
            if probe.ready:
                return probe
            if self.clock() >= attempt.deadline:
                raise DebugPodTimeout(
                    f"node {attempt.spec.node}: the shell pod started but did not finish its device check "
                    f"within {self.settings.timeout:g}s",
                    "raise --timeout",
                )
            if self.cancel.wait(poll_delay(self.clock() - started, self.settings)):
                raise Cancelled
