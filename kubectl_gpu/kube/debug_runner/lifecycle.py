"""One debug pod, start to end: create, poll until running or terminated, read the log, always delete;
the error each step can end in; and the last-resort delete of every pod still tracked."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from kubectl_gpu.core.debugpod import DebugPodSpec, Mode, PodProgress, Strategy, build_debug_pod, pod_progress
from kubectl_gpu.core.debugpod.image_pull import explain_pull_failure
from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.debug_runner.errors import (
    AdmissionRejected,
    Cancelled,
    DebugPodError,
    DebugPodTimeout,
    ImagePullFailed,
    NodeGone,
)
from kubectl_gpu.kube.debug_runner.settings import NodeTarget, RunnerSettings
from kubectl_gpu.kube.debug_runner.signals import uninterruptible
from kubectl_gpu.kube.debug_runner.tracker import PodTracker, random_suffix
from kubectl_gpu.kube.pod_api import ApiFailure, PodApi, RequestTimedOut

__all__ = ["Phase", "PodAttempt", "PodLifecycle"]


@dataclass
class PodAttempt:
    """A created pod with its deadline; `last` is the progress last reported for it."""

    spec: DebugPodSpec
    deadline: float
    last: PodProgress | None = None


Phase = Callable[[str, str], None]


def _no_phase(node: str, phase: str) -> None:
    pass


class PodLifecycle:
    """One debug pod from create to delete: create it (tracked before the request is sent), poll it until it
    runs or ends, read its log, delete it with retries; and the error each step can end in. Thread-safe."""

    def __init__(
        self,
        api: PodApi,
        settings: RunnerSettings,
        *,
        cancel: threading.Event | None = None,
        tracker: PodTracker | None = None,
        suffix: Callable[[], str] = random_suffix,
        on_phase: Phase = _no_phase,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self.settings = settings
        self.cancel = cancel or threading.Event()
        self.tracker = tracker or PodTracker()
        self.suffix = suffix
        self.on_phase = on_phase
        self.clock = clock
        self.delete_failures: list[str] = []

    def _spec(
        self, target: NodeTarget, strategy: Strategy, command: tuple[str, ...], mode: Mode
    ) -> DebugPodSpec:
        deadline = self.settings.shell_lifetime if mode is Mode.SHELL else int(self.settings.timeout) + 60
        return DebugPodSpec(
            node=target.name,
            image=target.image,
            suffix=self.suffix(),
            command=command,
            namespace=self.settings.namespace,
            accelerator=target.accelerator,
            strategy=strategy,
            resource=target.resource,
            mode=mode,
            active_deadline_seconds=max(1, deadline),
        )

    def _checkpoint(self) -> None:
        if self.cancel.is_set():
            raise Cancelled

    def _run_to_completion(self, spec: DebugPodSpec) -> tuple[str, PodProgress]:
        attempt = self._create(spec)
        try:
            progress = self._wait(attempt, until_running=False)
            self._checkpoint()
            self.on_phase(spec.node, "reading log")
            return self._read_log(attempt), progress
        finally:
            self._delete(spec)

    def _create(self, spec: DebugPodSpec) -> PodAttempt:
        self._checkpoint()
        manifest = build_debug_pod(spec)
        self.on_phase(spec.node, "creating pod")
        self.tracker.add(
            spec.namespace, spec.name
        )  # before the request: an interrupted create is still known
        try:
            uninterruptible(lambda: self.api.create_pod(spec.namespace, manifest))
        except ApiFailure as exc:
            self.tracker.discard(spec.namespace, spec.name)
            raise self._create_error(spec, exc) from None
        except BaseException:
            # The create may or may not have happened; keep the name so the delete is attempted.
            self._delete(spec)
            raise
        try:
            self._checkpoint()
        except Cancelled:
            self._delete(spec)
            raise
        return PodAttempt(spec, self.clock() + self.settings.timeout)

    def _create_error(self, spec: DebugPodSpec, exc: ApiFailure) -> DebugPodError:
        where = f"node {spec.node}: cannot create debug pod {spec.namespace}/{spec.name}"
        message = exc.message or exc.reason
        if exc.status == 403 and ("admission webhook" in message or "violates PodSecurity" in message):
            return AdmissionRejected(
                f"{where}: rejected by admission: {message}",
                "the cluster's policy forbids privileged host-namespace pods here; try another namespace with -n "
                "or ask for an exception for pods labelled app.kubernetes.io/managed-by=kubectl-gpu",
            )
        if exc.status == 403:
            return DebugPodError(
                f"{where}: forbidden: {message}", "you need RBAC 'create' on pods in this namespace"
            )
        if exc.status == 404:
            return DebugPodError(f"{where}: namespace {spec.namespace} not found", "choose one with -n")
        if exc.status in (400, 422) and "webhook" in message:
            return AdmissionRejected(f"{where}: rejected by admission: {message}")
        return DebugPodError(f"{where}: {exc.status} {exc.reason}: {message}")

    def _wait(self, attempt: PodAttempt, *, until_running: bool) -> PodProgress:
        spec = attempt.spec
        delay = self.settings.poll_initial
        self.on_phase(spec.node, "waiting")
        while True:
            self._checkpoint()
            try:
                pod = self.api.get_pod(spec.namespace, spec.name)
            except ApiFailure as exc:
                if exc.status == 404:
                    raise self._vanished(spec) from None
                raise DebugPodError(f"node {spec.node}: reading pod {spec.name}: {exc}") from None
            progress = pod_progress(pod)
            if progress != attempt.last:
                attempt.last = progress
                self.on_phase(spec.node, progress.describe())
            if progress.state == "failed":
                raise self._failure(spec, progress)
            if until_running and progress.state == "terminated":
                raise DebugPodError(
                    f"node {spec.node}: the shell pod exited ({progress.describe()})",
                    f"check the image {spec.image} has sh and sleep",
                )
            if progress.state == ("running" if until_running else "terminated"):
                return progress
            remaining = attempt.deadline - self.clock()
            if remaining <= 0:
                raise self._timeout(spec, progress)
            if self.cancel.wait(min(delay, remaining)):
                raise Cancelled
            delay = min(delay * self.settings.poll_factor, self.settings.poll_max)

    def _failure(self, spec: DebugPodSpec, progress: PodProgress) -> DebugPodError:
        detail = f"{progress.reason}: {progress.message}" if progress.message else str(progress.reason)
        if progress.failure == "image-pull":
            image = progress.image or spec.image
            pull = explain_pull_failure(image, progress.reason, progress.message, spec.accelerator)
            return ImagePullFailed(
                f"node {spec.node}: cannot pull image {image} ({detail}): {pull.why}", pull.hint
            )
        if progress.failure == "evicted":
            return NodeGone(f"node {spec.node}: the debug pod was evicted ({detail})")
        if progress.failure == "deadline":
            return DebugPodTimeout(
                f"node {spec.node}: the debug pod hit its activeDeadlineSeconds ({detail})"
            )
        if progress.failure == "container":
            return DebugPodError(f"node {spec.node}: the debug container could not start ({detail})")
        return DebugPodError(f"node {spec.node}: the kubelet rejected the debug pod ({detail})")

    def _node_exists(self, node: str) -> bool | None:
        try:
            self.api.get_node(node)
        except ApiFailure as exc:
            return False if exc.status == 404 else None
        except ClusterError:
            return None
        return True

    def _vanished(self, spec: DebugPodSpec) -> DebugPodError:
        if self._node_exists(spec.node) is False:
            return NodeGone(f"node {spec.node} no longer exists; its debug pod went with it")
        return DebugPodError(
            f"node {spec.node}: debug pod {spec.namespace}/{spec.name} disappeared (deleted or evicted)"
        )

    def _timeout(self, spec: DebugPodSpec, progress: PodProgress) -> DebugPodError:
        if progress.state == "pending" and self._node_exists(spec.node) is False:
            return NodeGone(f"node {spec.node} no longer exists; its debug pod never started")
        verb = "start" if progress.state == "pending" else "finish"
        return DebugPodTimeout(
            f"node {spec.node}: the debug pod did not {verb} within {self.settings.timeout:g}s "
            f"(last seen: {progress.describe()})",
            "raise --timeout (a first pull of the image can take minutes) or look at the node",
        )

    def _read_log(self, attempt: PodAttempt) -> str:
        spec = attempt.spec
        remaining = max(1.0, attempt.deadline - self.clock())
        limit = min(remaining, self.api.request_timeout or remaining)
        try:
            return self.api.pod_log(spec.namespace, spec.name, timeout=limit)
        except RequestTimedOut:
            raise DebugPodTimeout(
                f"node {spec.node}: reading the debug pod's log took longer than {limit:g}s",
                "raise --timeout or --request-timeout",
            ) from None
        except ApiFailure as exc:
            if exc.status == 404:
                raise self._vanished(spec) from None
            raise DebugPodError(f"node {spec.node}: reading the debug pod's log: {exc}") from None

    def _delete(self, spec: DebugPodSpec) -> None:
        """Delete (Background propagation, no grace), retrying briefly; never raises except for Ctrl-C."""
        self.on_phase(spec.node, "deleting pod")
        problem: str | None = None
        for attempt in range(3):
            try:
                uninterruptible(lambda: self.api.delete_pod(spec.namespace, spec.name))
                problem = None
                break
            except ApiFailure as exc:
                if exc.status == 404:
                    problem = None
                    break
                problem = str(exc)
                if exc.status < 500 and exc.status != 429:
                    break
            except ClusterError as exc:
                problem = exc.line()
            time.sleep(0.2 * (attempt + 1))
        if problem is not None:
            self.delete_failures.append(f"{spec.namespace}/{spec.name}: {problem}")
            return
        self.tracker.discard(spec.namespace, spec.name)

    def delete_leftovers(self) -> list[str]:
        """Delete every pod still tracked (workers that could not unwind); returns what could not be."""
        failed: list[str] = []
        for namespace, name in self.tracker.pending():
            try:
                self.api.delete_pod(namespace, name)
            except ApiFailure as exc:
                if exc.status != 404:
                    failed.append(f"{namespace}/{name}: {exc}")
                    continue
            except ClusterError as exc:
                failed.append(f"{namespace}/{name}: {exc.line()}")
                continue
            self.tracker.discard(namespace, name)
        return failed
