"""A simulated kubelet for the fake API server: it runs kubectl-gpu's debug pods.

Attached through `FakeKubeAPI.on_create`, it moves every pod labelled `app.kubernetes.io/managed-by:
kubectl-gpu` Pending (ContainerCreating) -> Running -> Succeeded, one step per `delay` seconds, on a timer
thread, through `update_status` (with containerStatuses, as the real kubelet reports them). A shell pod
(`kubectl-gpu/mode: shell`) stays Running. The pod's log is the node's recorded output (`outputs[node]`: a
string, or a function of the pod, e.g. to answer differently with and without a GPU request).

Faults per node (`faults[node]`): "image-pull" (ErrImagePull then ImagePullBackOff, the image and containerd's
"not found" in both messages, as kubelet 1.32+ words them), "never-starts" (stays ContainerCreating), "node-gone" (the node object and the pod disappear, as
after a node deletion and pod garbage collection), "evicted" (phase Failed, reason Evicted), "exit-127" (the
container ends with 127 and a shell error in its log). A pod bound to a node that does not exist is never
started, as no kubelet owns it. Admission rejections and slow logs happen in the API server: `reject_admission`
and `slow_logs` install the matching `FakeKubeAPI.fault`.

Collector outputs are built from the real fixtures in tests/fixtures/probe with `collector_output`.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.kube.apiserver import FakeKubeAPI
from tests.kube.wire import status_body

Obj = dict[str, Any]
Output = str | Callable[[Obj], str]

PROBE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probe"
MANAGED = ("app.kubernetes.io/managed-by", "kubectl-gpu")
FAULTS = frozenset({"image-pull", "never-starts", "node-gone", "evicted", "exit-127"})
IMAGE_PULL_BACKOFF_STEPS = 20  # "image-pull": ErrImagePull for this many steps, then ImagePullBackOff


def fixture(rel: str) -> str:
    return (PROBE_FIXTURES / rel).read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------------------------
# Collector outputs built from real fixtures
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    name: str
    rc: int
    body: str
    stderr: str = ""


def collector_output(blocks: Sequence[Block], *, run_id: str = "5e1b2c4a3f9c0a7d", done: bool = True) -> str:
    """Exactly what collector.sh prints for these command results (see its header)."""
    out = [f"===KUBECTL-GPU:COLLECTOR v1 id={run_id}===\n"]
    for b in blocks:
        out.append(f"===KUBECTL-GPU:BEGIN {b.name} rc={b.rc} id={run_id}===\n{b.body}\n")
        if b.stderr:
            out.append(f"===KUBECTL-GPU:STDERR {b.name} id={run_id}===\n{b.stderr}\n")
        out.append(f"===KUBECTL-GPU:END {b.name} id={run_id}===\n")
    if done:
        out.append(f"===KUBECTL-GPU:DONE id={run_id}===\n")
    return "".join(out)


def _host_blocks() -> list[Block]:
    return [
        Block("driver-version", 0, fixture("ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt")),
        Block("lsblk", 0, fixture("storage/gpud__lsblk-J__8x-nvme-7T-md0-raid0.json")),
        Block("mdstat", 0, fixture("ours/mdstat/ours__mdstat__raid0-2x-nvme.txt")),
        Block("findmnt", 0, fixture("ours/findmnt/ours__findmnt-J__md127-mounted.json")),
        Block("uname", 0, "6.1.119-129.201.amzn2023.x86_64\n"),
        Block("os-release", 0, fixture("ours/os-release/ours__os-release__bottlerocket-nvidia.txt")),
    ]  # fmt: skip


#: The cgroups of the L4 XML's GPU processes: 10131 in pod L4_POD_UIDS[0], 13597 in L4_POD_UIDS[1], 16870 on the host.
L4_CGROUPS = "ours/cgroup/ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt"
L4_POD_UIDS = ("4f1e25a0-7c3b-4d2e-9a61-0b8c5d7e9f12", "8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37")


def gpu_output(
    xml: str = "nvidia-smi/xml/datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml",
    *,
    pid_cgroups: str | None = None,
) -> str:
    """A node whose container sees its GPUs: the real `nvidia-smi -q -x` fixture `xml` plus host sections.

    `pid_cgroups`: the fixture of the pid-cgroups section (e.g. `L4_CGROUPS`); None leaves the section out, as
    collectors before it did."""
    cgroups = [] if pid_cgroups is None else [Block("pid-cgroups", 0, fixture(pid_cgroups))]
    return collector_output(
        [
            Block("nvidia-smi-xml", 0, fixture(xml)),
            Block("nvidia-smi-csv", 0, ""),
            Block("nvidia-smi-list", 0, ""),
            Block("nvidia-smi-topo", 0, fixture("ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt")),
            *cgroups,
            *_host_blocks(),
        ]
    )


def no_gpu_output() -> str:
    """A container that sees no GPU (the runtime ignored NVIDIA_VISIBLE_DEVICES): nvidia-smi finds none."""
    message = fixture("ours/garbled/ours__nvidia-smi__no-devices.txt")
    return collector_output(
        [
            Block("nvidia-smi-xml", 6, message),
            Block("nvidia-smi-csv", 6, message),
            Block("nvidia-smi-list", 6, message),
            Block("nvidia-smi-topo", 6, message),
            *_host_blocks(),
        ]
    )


def neuron_output() -> str:
    """A Trainium node: no nvidia-smi, the real `neuron-ls --json-output` fixture."""
    missing = "nvidia-smi: command not found"
    return collector_output(
        [
            Block("nvidia-smi-xml", 127, "", missing),
            Block("nvidia-smi-csv", 127, "", missing),
            Block("nvidia-smi-list", 127, "", missing),
            Block("nvidia-smi-topo", 127, "", missing),
            *_host_blocks()[1:],
            Block("neuron-ls", 0, fixture("neuron/all-smi__neuron-ls-json-output__trn1.2xlarge__no-trailing-newline.json")),
        ]
    )  # fmt: skip


def requests_gpu(pod: Obj) -> bool:
    limits = (pod["spec"]["containers"][0].get("resources") or {}).get("limits") or {}
    return any(k.startswith(("nvidia.com/", "aws.amazon.com/neuron")) for k in limits)


def by_strategy(*, privileged: str, request: str) -> Callable[[Obj], str]:
    """An output that depends on whether the pod requested a GPU (privileged-all vs request)."""
    return lambda pod: request if requests_gpu(pod) else privileged


SHELL_LIST = fixture("nvidia-smi/list/gpuexporter__l40s__595.80__L__capabilities.txt")


def shell_output(devices: str = SHELL_LIST, rc: int = 0) -> str:
    """What the shell pod prints before sleeping (`nvidia-smi -L`, then its ready marker)."""
    return f"{devices}===KUBECTL-GPU:SHELL-READY rc={rc}===\n"


# --------------------------------------------------------------------------------------------------------------
# The kubelet
# --------------------------------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_debug_pod(obj: Obj) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return labels.get(MANAGED[0]) == MANAGED[1]


class SimulatedKubelet:
    """Runs debug pods on a timer thread. `attach()` (or use as a context manager), `close()` after."""

    def __init__(
        self, api: FakeKubeAPI, *, delay: float = 0.05, default_output: Output | None = None
    ) -> None:
        self.api = api
        self.delay = delay
        self.default_output = default_output if default_output is not None else gpu_output()
        self.outputs: dict[str, Output] = {}
        self.shell_outputs: dict[str, Output] = {}
        self.faults: dict[str, str] = {}
        self.started: list[str] = []  # pods seen, in creation order
        self._queue: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._loop, name="simulated-kubelet", daemon=True)

    def __enter__(self) -> SimulatedKubelet:
        return self.attach()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def attach(self) -> SimulatedKubelet:
        self.api.on_create.append(self._on_create)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._on_create in self.api.on_create:
            self.api.on_create.remove(self._on_create)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    # --- faults of the API server in front of us -------------------------------------------------------------

    def reject_admission(self, message: str, *, webhook: str = "deny-privileged.example.com") -> str:
        """Every pod create is refused with 403 and a Status quoting an admission webhook (as a validating
        webhook's denial reads); returns the full message."""
        text = f'admission webhook "{webhook}" denied the request: {message}'
        self.api.fault(method="POST", path=r"/pods$", status=403, body=status_body(403, text))
        return text

    def slow_logs(self, node: str, delay: float) -> None:
        """Reading the log of any debug pod on `node` takes `delay` seconds."""
        self.api.fault(path=rf"/pods/gpu-debug-{re.escape(node)}-[a-z0-9]+/log$", delay=delay)

    # --- scheduling ------------------------------------------------------------------------------------------

    def _at(self, steps: float, action: Callable[[], None]) -> None:
        with self._cond:
            heapq.heappush(self._queue, (time.monotonic() + steps * self.delay, next(self._seq), action))
            self._cond.notify_all()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and (not self._queue or self._queue[0][0] > time.monotonic()):
                    timeout = self._queue[0][0] - time.monotonic() if self._queue else None
                    self._cond.wait(timeout)
                if self._stopping:
                    return
                _, _, action = heapq.heappop(self._queue)
            with contextlib.suppress(KeyError):  # the pod was deleted before this step, nothing to do
                action()

    # --- pods ------------------------------------------------------------------------------------------------

    def _on_create(self, resource: str, obj: Obj) -> None:
        if resource != "pods" or not is_debug_pod(obj):
            return
        meta, spec = obj["metadata"], obj["spec"]
        name, namespace, node = meta["name"], meta["namespace"], spec.get("nodeName", "")
        self.started.append(name)
        if self.api.get("nodes", node) is None:
            return  # no kubelet owns this pod: it stays Pending
        fault = self.faults.get(node)
        image = spec["containers"][0]["image"]
        shell = meta.get("labels", {}).get("kubectl-gpu/mode") == "shell"

        def status(**kw: Any) -> Callable[[], None]:
            return lambda: self.api.update_status("pods", name, kw, namespace)

        creating = {"name": "debugger", "ready": False, "restartCount": 0, "image": image,
                    "state": {"waiting": {"reason": "ContainerCreating"}}}  # fmt: skip
        scheduled = [{"type": "PodScheduled", "status": "True"}]
        self._at(1, status(phase="Pending", conditions=scheduled, containerStatuses=[creating]))
        if fault == "never-starts":
            return
        if fault == "image-pull":
            pull = (
                f'failed to pull and unpack image "{image}": failed to resolve reference "{image}": not found'
            )
            err = {**creating, "state": {"waiting": {"reason": "ErrImagePull", "message": f"rpc error: code = NotFound desc = {pull}"}}}  # fmt: skip
            # kubelet >= 1.32 repeats the pull error in the back-off message (kubernetes/kubernetes#127918).
            backoff = {**creating, "state": {"waiting": {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}": ErrImagePull: {pull}'}}}  # fmt: skip
            self._at(2, status(containerStatuses=[err]))
            # a real kubelet backs off for seconds before it says ImagePullBackOff; a one-step window let a
            # runner polling every few steps on a loaded machine (xdist) see only the back-off
            self._at(2 + IMAGE_PULL_BACKOFF_STEPS, status(containerStatuses=[backoff]))
            return
        if fault == "node-gone":

            def vanish() -> None:
                self.api.remove("nodes", node)
                self.api.remove("pods", name, namespace)

            self._at(2, vanish)
            return
        if fault == "evicted":
            message = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi."
            self._at(2, status(phase="Failed", reason="Evicted", message=message))
            return
        running = {**creating, "ready": True, "started": True, "state": {"running": {"startedAt": _now()}}}

        def run() -> None:
            self.api.pod_logs[(namespace, name)] = self._log(node, obj, shell, fault)
            self.api.update_status(
                "pods", name, {"phase": "Running", "containerStatuses": [running]}, namespace
            )

        self._at(2, run)
        if shell:
            return
        code = 127 if fault == "exit-127" else 0
        terminated = {
            **creating,
            "ready": False,
            "state": {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                     "startedAt": _now(), "finishedAt": _now()}},
        }  # fmt: skip
        self._at(3, status(phase="Succeeded" if code == 0 else "Failed", containerStatuses=[terminated]))

    def _log(self, node: str, pod: Obj, shell: bool, fault: str | None) -> str:
        if fault == "exit-127":
            return "sh: exec: line 1: sh: not found\n"
        source = (
            (self.shell_outputs.get(node, shell_output()))
            if shell
            else self.outputs.get(node, self.default_output)
        )
        return source(pod) if callable(source) else source


def debug_pods(api: FakeKubeAPI) -> list[str]:
    """`namespace/name` of every pod with our label: what must be empty after every test."""
    return [
        f"{p['metadata']['namespace']}/{p['metadata']['name']}"
        for p in api.objects("pods")
        if is_debug_pod(p)
    ]


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, interval: float = 0.01) -> bool:
    """Poll `predicate` until true or `timeout` seconds passed; returns the last answer."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def gpu_node(
    name: str,
    *,
    gpus: int = 2,
    allocatable: int | None = None,
    resource: str = "nvidia.com/gpu",
    instance_type: str = "g6.12xlarge",
    ready: bool = True,
    unschedulable: bool = False,
    labels: dict[str, str] | None = None,
) -> Obj:
    """A GPU node as the API shows it (Auto Mode labels, a device-plugin resource)."""
    from tests.helpers import node

    capacity = {"cpu": "48", "memory": "192Gi", "pods": "110", resource: str(gpus)}
    alloc = {**capacity, resource: str(gpus if allocatable is None else allocatable)}
    return node(
        name,
        labels={"node.kubernetes.io/instance-type": instance_type, "eks.amazonaws.com/compute-type": "auto", **(labels or {})},
        capacity=capacity,
        allocatable=alloc,
        conditions=[{"type": "Ready", "status": "True" if ready else "False", "reason": "KubeletReady" if ready else "KubeletNotReady"}],
        unschedulable=unschedulable,
    )  # fmt: skip


def iter_names(prefix: str, count: int) -> Iterator[str]:
    return (f"{prefix}{i:02d}" for i in range(count))
