"""One debug pod, start to end: create, poll until running or terminated, read the log, always delete;
the error each step can end in; and the last-resort delete of every pod still tracked."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec

from kubectl_gpu.core.debugpod import DebugPodSpec, Mode, PodProgress, Strategy, build_debug_pod, pod_progress
from kubectl_gpu.core.debugpod.image_pull import explain_pull_failure
from kubectl_gpu.core.debugpod.leftover import creator_value
from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.debug.pod_api import ApiFailure, PodApi, RequestTimedOut
from kubectl_gpu.kube.debug.runner.creator import this_creator
from kubectl_gpu.kube.debug.runner.errors import (
    AdmissionRejected,
    Cancelled,
    DebugPodError,
    DebugPodTimeout,
    ImagePullFailed,
    NodeGone,
)
from kubectl_gpu.kube.debug.runner.settings import Leftover, NodeTarget, RunnerSettings, poll_delay
from kubectl_gpu.kube.debug.runner.signals import uninterruptible
from kubectl_gpu.kube.debug.runner.tracker import PodTracker, random_suffix

__all__ = ["Phase", "PodAttempt", "PodLifecycle"]


class PodAttempt(msgspec.Struct, dict=True):
    """A created pod with its deadline; `last` is the progress last reported for it."""

    spec: DebugPodSpec
    deadline: float
    last: PodProgress | None = None
    poll_error: str = ""  # the last transient failure reading the pod, while polling goes on


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
        self.sleep: Callable[[float], None] = time.sleep
        self.delete_failures: list[Leftover] = []

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
            creator=creator_value(this_creator()),
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
        # Tracked before the request, in flight until it returns: an interrupted create is still known, and a
        # 404 to a DELETE sent meanwhile (the last-resort cleanup) is not taken for "gone".
        self.tracker.creating(spec.namespace, spec.name, spec.node)
        try:
            uninterruptible(lambda: self.api.create_pod(spec.namespace, manifest))
        except ApiFailure as exc:
            self.tracker.settled(spec.namespace, spec.name)
            if exc.status_body and 400 <= exc.status < 500:  # refused: nothing was created
                self.tracker.discard(spec.namespace, spec.name)
            else:  # a 5xx or a proxy's page: the create may have happened behind it
                self._delete(spec)
            raise self._create_error(spec, exc) from None
        except BaseException:
            # The create may or may not have happened; keep the name so the delete is attempted.
            self.tracker.settled(spec.namespace, spec.name)
            self._delete(spec)
            raise
        self.tracker.settled(spec.namespace, spec.name)
        try:
            self._checkpoint()
        except Cancelled:
            self._delete(spec)
            raise
        return PodAttempt(spec, self.clock() + self.settings.timeout)

    def _create_error(self, spec: DebugPodSpec, exc: ApiFailure) -> DebugPodError:
        where = f"node {spec.node}: cannot create debug pod {spec.namespace}/{spec.name}"
        message = exc.message or exc.reason
        if exc.status == 401 or exc.transient or exc.html:
            error = self.api.failure_error(exc, where)
            return DebugPodError(error.message, error.hint)
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

    def _request_timeout(self, attempt: PodAttempt) -> float:
        """A request's timeout within the pod's deadline (with --request-timeout 0, the deadline alone)."""
        remaining = max(1.0, attempt.deadline - self.clock())
        return min(remaining, self.api.request_timeout or remaining)

    def _poll(self, attempt: PodAttempt) -> dict[str, Any] | None:
        """The pod, or None after a transient failure (5xx, 429, a proxy's page, no connection): polling
        goes on through those until the pod's deadline. A 404 means it is gone; a 403 is final."""
        spec = attempt.spec
        try:
            return self.api.get_pod(spec.namespace, spec.name, timeout=self._request_timeout(attempt))
        except ApiFailure as exc:
            if exc.status == 404 and exc.status_body:
                raise self._vanished(spec) from None
            if exc.transient or exc.html:
                attempt.poll_error = str(exc)
                return None
            raise DebugPodError(f"node {spec.node}: reading pod {spec.name}: {exc}") from None
        except ClusterError as exc:
            attempt.poll_error = exc.line()
            return None

    def _wait(self, attempt: PodAttempt, *, until_running: bool) -> PodProgress:
        spec = attempt.spec
        started = self.clock()
        failures = 0  # looks in a row that failed: the next backs off (`poll_delay`)
        self.on_phase(spec.node, "waiting")
        while True:
            self._checkpoint()
            pod = self._poll(attempt)
            failures = failures + 1 if pod is None else 0
            progress = pod_progress(pod) if pod is not None else attempt.last
            if pod is not None and progress != attempt.last:
                attempt.last = progress
                self.on_phase(spec.node, progress.describe() if progress else "waiting")
            if progress is not None and pod is not None:
                done = self._settled(spec, progress, until_running)
                if done is not None:
                    return done
            remaining = attempt.deadline - self.clock()
            if remaining <= 0:
                if pod is None and attempt.poll_error:
                    raise DebugPodError(
                        f"node {spec.node}: reading pod {spec.name} kept failing until its deadline: "
                        f"{attempt.poll_error}"
                    )
                raise self._timeout(spec, progress or pod_progress({}))
            if self.cancel.wait(min(poll_delay(self.clock() - started, self.settings, failures), remaining)):
                raise Cancelled

    def _settled(self, spec: DebugPodSpec, progress: PodProgress, until_running: bool) -> PodProgress | None:
        """The progress when waiting is over (raises when the pod failed), else None."""
        if progress.state == "failed":
            raise self._failure(spec, progress)
        if until_running and progress.state == "terminated":
            raise DebugPodError(
                f"node {spec.node}: the shell pod exited ({progress.describe()})",
                f"check the image {spec.image} has sh and sleep",
            )
        if progress.state == ("running" if until_running else "terminated"):
            return progress
        return None

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
        while True:
            limit = self._request_timeout(attempt)
            try:
                return self.api.pod_log(spec.namespace, spec.name, timeout=limit)
            except RequestTimedOut:
                raise DebugPodTimeout(
                    f"node {spec.node}: reading the debug pod's log took longer than {limit:g}s",
                    "raise --timeout or --request-timeout",
                ) from None
            except ApiFailure as exc:
                if exc.status == 404 and exc.status_body:
                    raise self._vanished(spec) from None
                if not (exc.transient or exc.html) or self.clock() >= attempt.deadline:
                    raise DebugPodError(f"node {spec.node}: reading the debug pod's log: {exc}") from None
            self._checkpoint()
            self.sleep(min(self.settings.poll_max, max(0.0, attempt.deadline - self.clock())))

    # --- deleting ------------------------------------------------------------------------------

    def _delete(self, spec: DebugPodSpec) -> None:
        """Delete (Background propagation, no grace), retrying through errors for `delete_budget` seconds;
        never raises except for Ctrl-C (and Ctrl-C cannot cut it short: see `uninterruptible`)."""
        self.on_phase(spec.node, "deleting pod")
        problem = uninterruptible(lambda: self.delete_until_gone(spec.namespace, spec.name))
        if problem is not None:
            self.delete_failures.append(Leftover(spec.namespace, spec.name, spec.node, problem))

    def delete_until_gone(self, namespace: str, name: str, *, until: float | None = None) -> str | None:
        """Delete one pod until it is known gone (retrying until `until` on the clock, default for
        delete_budget seconds); None, or why it could not be (the last error). One attempt at least."""
        end = until if until is not None else self.clock() + self.settings.delete_budget
        delay = self.settings.delete_backoff
        while True:
            problem = self._delete_once(namespace, name)
            if problem is None:
                self.tracker.discard(namespace, name)
                return None
            if problem.startswith("!") or self.clock() + delay > end:
                return problem.lstrip("!")
            self.sleep(delay)
            delay = min(delay * 2, self.settings.delete_backoff_max)

    def _delete_once(self, namespace: str, name: str) -> str | None:
        """One DELETE: None when the pod is gone, else the problem ("!..." when retrying cannot help)."""
        try:
            self.api.delete_pod(namespace, name)
            return None
        except ApiFailure as exc:
            if exc.status == 404 and exc.status_body and not self.tracker.in_flight(namespace, name):
                return None  # gone, and no create in flight can bring it back
            if exc.transient or exc.html or exc.status == 404:
                return str(exc)
            return f"!{exc}"  # 403 and the like: RBAC will not change while we retry
        except ClusterError as exc:
            return exc.line()

    def delete_leftovers(self, settle: float | None = None) -> list[Leftover]:
        """Delete every pod still tracked (workers that could not unwind): first wait for creates still in
        flight (`settle` seconds at most; default the request timeout and a margin), then delete each with
        the same retries, all of them within one delete_budget (past it, one attempt each). Returns what
        could not be deleted, or never stopped being created."""
        wait = settle if settle is not None else (self.api.request_timeout or 30.0) + 5.0
        stuck = set(self.tracker.wait_settled(wait))
        until = self.clock() + self.settings.delete_budget
        failed: list[Leftover] = []
        for namespace, name in self.tracker.pending():
            node = self.tracker.nodes.get((namespace, name), "")
            if (namespace, name) in stuck:
                failed.append(Leftover(namespace, name, node, "its create never returned"))
                continue
            problem = self.delete_until_gone(namespace, name, until=until)
            if problem is not None:
                failed.append(Leftover(namespace, name, node, problem))
        return failed

    def left_behind(self) -> list[Leftover]:
        """Every pod that may still exist: failed deletes, and whatever is still tracked."""
        found = {(item.namespace, item.name): item for item in self.delete_failures}
        for namespace, name in self.tracker.pending():
            node = self.tracker.nodes.get((namespace, name), "")
            found.setdefault((namespace, name), Leftover(namespace, name, node, "not deleted"))
        return [found[key] for key in sorted(found)]
