"""Run GPU debug pods: create, poll until done, read the log, delete — always, whatever happens.

Every API call happens in worker threads; the main thread only waits, so Ctrl-C (and SIGTERM, turned into
the same `KeyboardInterrupt`) lands there, sets `cancel`, and each worker stops at its next step and deletes
its pod in a `finally`. Pod names are chosen here, before the create is sent, so a pod whose create was in
flight when the user interrupted is still known and deleted once the create returns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

from kubectl_gpu.core.analyses.smi import SmiResult, sees_accelerator, unseen_reason
from kubectl_gpu.core.debugpod import (
    SUFFIX_ALPHABET,
    Accelerator,
    DebugPodSpec,
    Mode,
    PodProgress,
    ShellProbe,
    Strategy,
    attempts,
    build_debug_pod,
    collector_command,
    parse_shell_probe,
    pod_progress,
    shell_command,
)
from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_pod
from kubectl_gpu.core.probe import ProbeResult, parse_collector_output
from kubectl_gpu.core.probe.attribution import pod_names_by_uid
from kubectl_gpu.kube.pod_api import ApiFailure, PodApi, RequestTimedOut

__all__ = [
    "AdmissionRejected",
    "Cancelled",
    "DebugPodError",
    "DebugPodTimeout",
    "DebugRunner",
    "ImagePullFailed",
    "NoAcceleratorVisible",
    "NodeGone",
    "NodeTarget",
    "PodTracker",
    "RunnerSettings",
    "ShellPod",
    "interrupts_on_sigterm",
    "random_suffix",
    "run_parallel",
]


# --------------------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------------------


class DebugPodError(ClusterError):
    """A debug pod could not do its job on one node (exit 3)."""


class ImagePullFailed(DebugPodError):
    pass


class AdmissionRejected(DebugPodError):
    pass


class NoAcceleratorVisible(DebugPodError):
    pass


class DebugPodTimeout(DebugPodError):
    pass


class NodeGone(DebugPodError):
    pass


class Cancelled(Exception):
    """The user interrupted; the worker unwinds (deleting its pod) without reporting an error of its own."""


# --------------------------------------------------------------------------------------------------------------
# Bookkeeping and signals
# --------------------------------------------------------------------------------------------------------------


def random_suffix(rng: random.Random | None = None) -> str:
    chooser = rng or random.SystemRandom()
    return "".join(chooser.choice(SUFFIX_ALPHABET) for _ in range(5))


class PodTracker:
    """Pods we created or are creating, until their delete succeeded: the last-resort cleanup list."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pods: set[tuple[str, str]] = set()

    def add(self, namespace: str, name: str) -> None:
        with self._lock:
            self._pods.add((namespace, name))

    def discard(self, namespace: str, name: str) -> None:
        with self._lock:
            self._pods.discard((namespace, name))

    def pending(self) -> list[tuple[str, str]]:
        with self._lock:
            return sorted(self._pods)


@contextlib.contextmanager
def interrupts_on_sigterm() -> Iterator[None]:
    """Treat SIGTERM and SIGHUP like Ctrl-C (KeyboardInterrupt) for the duration, so `finally` cleanup runs.

    Only the main thread may install handlers; elsewhere (tests driving a runner) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # A signal ignored on purpose (nohup ignores SIGHUP) stays ignored.
    wanted = [sig for sig in (signal.SIGTERM, signal.SIGHUP) if signal.getsignal(sig) is not signal.SIG_IGN]
    saved = {sig: signal.signal(sig, interrupt) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


T = TypeVar("T")
R = TypeVar("R")


def _uninterruptible(call: Callable[[], R]) -> R:
    """Finish `call` even when Ctrl-C arrives meanwhile, then re-raise the interrupt.

    Only matters on the main thread (the shell): a create cut off mid-request may still create the pod on
    the server after we gave up on it, and we would never delete it.
    """
    if threading.current_thread() is not threading.main_thread():
        return call()
    box: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=target, name="kubectl-gpu-request", daemon=True).start()
    interrupted = False
    while True:  # not Thread.join: after an interrupted join, is_alive() wrongly says False (CPython 3.11)
        try:
            if finished.wait(0.1):
                break
        except KeyboardInterrupt:
            interrupted = True
    if "error" in box:
        raise box["error"]
    if interrupted:
        raise KeyboardInterrupt
    value: R = box["value"]
    return value


def run_parallel(
    items: Sequence[T],
    work: Callable[[T], R],
    *,
    concurrency: int,
    cancel: threading.Event,
    grace: float = 30.0,
    on_done: Callable[[T, R], None] | None = None,
    on_interrupt: Callable[[], None] | None = None,
) -> list[R]:
    """`work` over `items` on `concurrency` threads, results in order. The calling thread only waits, so a
    KeyboardInterrupt lands here: it sets `cancel`, gives running workers `grace` seconds to unwind (they
    delete their pods), and re-raises."""
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="kubectl-gpu-pod")
    futures: dict[Future[R], T] = {}
    try:
        for item in items:
            futures[pool.submit(work, item)] = item
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in done:
                if on_done is not None and future.exception() is None:
                    on_done(futures[future], future.result())
        return [future.result() for future in futures]
    except KeyboardInterrupt:
        cancel.set()
        if on_interrupt is not None:
            on_interrupt()
        for future in futures:
            future.cancel()
        wait(futures, timeout=grace)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


# --------------------------------------------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    namespace: str = "default"
    #: Seconds per node from create to log (the pod's activeDeadlineSeconds adds a margin to it).
    timeout: float = 120.0
    poll_initial: float = 0.1
    poll_max: float = 2.0
    poll_factor: float = 1.6
    #: How long the shell pod may live at most.
    shell_lifetime: int = 4 * 3600


@dataclass(frozen=True, slots=True)
class NodeTarget:
    """A node to debug, with what decides the pod: device kind, the resource to request, how many are free."""

    node: Node
    accelerator: Accelerator
    image: str
    resource: str | None = None
    free: int = 0

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True, slots=True)
class ShellPod:
    namespace: str
    name: str
    strategy: Strategy
    probe: ShellProbe
    notes: tuple[str, ...] = ()


@dataclass
class _Attempt:
    spec: DebugPodSpec
    deadline: float
    last: PodProgress | None = None


Phase = Callable[[str, str], None]


def _no_phase(node: str, phase: str) -> None:
    pass


class DebugRunner:
    """Runs debug pods on nodes. Thread-safe: one runner serves every worker of a fan-out."""

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
            return dataclasses.replace(result, pods_unknown=why)
        except ClusterError as exc:
            return dataclasses.replace(
                result, pods_unknown=f"the node's pods could not be listed ({exc.line()})"
            )
        pods: list[Pod] = []
        for obj in raw:
            try:
                pods.append(parse_pod(obj))
            except ModelError:
                continue
        return dataclasses.replace(result, pods=pod_names_by_uid(pods))

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

    def _wait_shell_ready(self, attempt: _Attempt, accelerator: Accelerator) -> ShellProbe:
        self._wait(attempt, until_running=True)
        delay = self.settings.poll_initial
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
            if self.cancel.wait(delay):
                raise Cancelled
            delay = min(delay * self.settings.poll_factor, self.settings.poll_max)

    # --- one pod, start to end -----------------------------------------------------------------

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

    def _create(self, spec: DebugPodSpec) -> _Attempt:
        self._checkpoint()
        manifest = build_debug_pod(spec)
        self.on_phase(spec.node, "creating pod")
        self.tracker.add(
            spec.namespace, spec.name
        )  # before the request: an interrupted create is still known
        try:
            _uninterruptible(lambda: self.api.create_pod(spec.namespace, manifest))
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
        return _Attempt(spec, self.clock() + self.settings.timeout)

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

    def _wait(self, attempt: _Attempt, *, until_running: bool) -> PodProgress:
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
            return ImagePullFailed(
                f"node {spec.node}: cannot pull image {progress.image or spec.image} ({detail})",
                "check the image reference and that the node can reach its registry; override it with --image "
                "or KUBECTL_GPU_IMAGE",
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

    def _read_log(self, attempt: _Attempt) -> str:
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
                _uninterruptible(lambda: self.api.delete_pod(spec.namespace, spec.name))
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
