"""The debug-pod runner and preflight against the fake API server and the simulated kubelet.

Every test ends with zero pods labelled app.kubernetes.io/managed-by=kubectl-gpu on the server (autouse).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import config

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.debugpod import Accelerator, Strategy
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.kube.debug.pod_api import PodApi
from kubectl_gpu.kube.debug.preflight import Targets, check_access, check_pod_security, resolve_targets
from kubectl_gpu.kube.debug.runner import (
    Cancelled,
    DebugRunner,
    NodeTarget,
    PodTracker,
    RunnerSettings,
    interrupts_on_sigterm,
    run_parallel,
)
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.kubelet import (
    L4_CGROUPS,
    L4_POD_UIDS,
    SimulatedKubelet,
    by_strategy,
    debug_pods,
    gpu_node,
    gpu_output,
    neuron_output,
    no_gpu_output,
    shell_output,
    wait_for,
)
from tests.kube.wire import status_body

SCRIPT = "echo collector"
FAST = RunnerSettings(namespace="default", timeout=5.0, poll_initial=0.02, poll_max=0.05)


@pytest.fixture
def kubelet(apiserver: FakeKubeAPI) -> Iterator[SimulatedKubelet]:
    with SimulatedKubelet(apiserver, delay=0.02) as k:
        yield k


@pytest.fixture(autouse=True)
def no_debug_pod_left(apiserver: FakeKubeAPI) -> Iterator[None]:
    yield
    assert wait_for(lambda: not debug_pods(apiserver), timeout=3.0), debug_pods(apiserver)


@pytest.fixture
def api(kubeconfig: Path) -> Iterator[PodApi]:
    client = config.new_client_from_config(config_file=str(kubeconfig), context="test")
    client.configuration.retries = False
    try:
        yield PodApi(client, request_timeout=5.0, context="test")
    finally:
        client.close()


def targets(api: PodApi, *names: str, selector: str | None = None) -> Targets:
    return resolve_targets(
        api,
        names=names,
        selector=selector,
        all_gpu=not names,
        catalog=load_catalog(),
        image_for=lambda acc: f"reg.example/debug-{acc.value}:test",
    )


def one(api: PodApi, name: str) -> NodeTarget:
    found = targets(api, name)
    assert not found.errors, found.errors
    (target,) = found.ready
    return target


def runner(api: PodApi, **kw: Any) -> DebugRunner:
    settings = kw.pop("settings", FAST)
    return DebugRunner(api, settings, **kw)


# --- the happy path ---------------------------------------------------------------------------------------------


def test_collects_from_one_node_and_deletes_its_pod(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    assert result.error is None and result.strategy == "privileged-all"
    assert result.probe is not None and [g.name for g in result.probe.gpus] == ["NVIDIA L4", "NVIDIA L4"]
    assert result.probe.driver_version == "555.42.06" and result.raw == gpu_output()
    (created,) = [r for r in apiserver.requests if r.method == "POST" and r.path.endswith("/pods")]
    assert b'"sh", "-c", "echo collector"' in created.body or b'"echo collector"' in created.body
    (deleted,) = [r for r in apiserver.requests if r.method == "DELETE"]
    assert deleted.query["propagationPolicy"] == "Background" and deleted.query["gracePeriodSeconds"] == "0"


def test_auto_falls_back_to_a_gpu_request(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(
        gpu_node("i-0aaa", gpus=4), pod("train", node_name="i-0aaa", requests={"nvidia.com/gpu": "3"})
    )
    kubelet.outputs["i-0aaa"] = by_strategy(privileged=no_gpu_output(), request=gpu_output())
    target = one(api, "i-0aaa")
    assert (target.resource, target.free) == ("nvidia.com/gpu", 1)
    result = runner(api).collect(target, Strategy.AUTO, SCRIPT)
    assert result.error is None and result.strategy == "request"
    assert "auto: privileged-all saw no GPU (exit code 6: No devices were found)" in result.notes[0]
    assert len(kubelet.started) == 2


def test_auto_without_a_free_gpu_says_so(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(
        gpu_node("i-0aaa", gpus=1), pod("serve", node_name="i-0aaa", requests={"nvidia.com/gpu": "1"})
    )
    kubelet.outputs["i-0aaa"] = no_gpu_output()
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    assert result.error is not None
    assert result.error.startswith(
        "node i-0aaa: the container saw no GPU with privileged-all (exit code 6: No devices were found), "
        "and no nvidia.com/gpu is free to request"
    )
    assert result.strategy == "privileged-all" and result.probe is not None  # what it did see is kept
    assert len(kubelet.started) == 1


def test_request_strategy_needs_a_free_gpu(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(
        gpu_node("i-0aaa", gpus=1), pod("serve", node_name="i-0aaa", requests={"nvidia.com/gpu": "1"})
    )
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.REQUEST, SCRIPT)
    assert result.error == (
        "node i-0aaa: the request strategy needs a free nvidia.com/gpu, but no nvidia.com/gpu is free to "
        "request; use --strategy privileged-all (it allocates nothing)"
    )
    assert kubelet.started == []


def test_privileged_only_reports_what_it_saw(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.outputs["i-0aaa"] = no_gpu_output()
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.PRIVILEGED_ALL, SCRIPT)
    assert result.error == (
        "node i-0aaa: the container saw no GPU with strategy privileged-all (exit code 6: No devices were found)"
    )
    assert result.probe is not None and result.probe.kernel_driver is not None  # the rest is still there


def test_neuron_node(apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi) -> None:
    apiserver.add(gpu_node("i-0trn", resource="aws.amazon.com/neuron", gpus=1, instance_type="trn1.2xlarge"))
    kubelet.outputs["i-0trn"] = neuron_output()
    target = one(api, "i-0trn")
    assert target.accelerator is Accelerator.NEURON and target.image == "reg.example/debug-neuron:test"
    result = runner(api).collect(target, Strategy.AUTO, SCRIPT)
    assert result.error is None and result.probe is not None and result.probe.neuron is not None
    assert len(result.probe.neuron.devices) == 1


# --- processes to pods -----------------------------------------------------------------------------------------


def pod_with_uid(name: str, namespace: str, uid: str, node_name: str = "i-0aaa") -> dict[str, Any]:
    obj = pod(name, namespace, node_name=node_name, requests={"nvidia.com/gpu": "1"})
    obj["metadata"]["uid"] = uid
    return obj


def pod_lists(apiserver: FakeKubeAPI, since: int = 0) -> list[Any]:
    return [r for r in apiserver.requests[since:] if r.method == "GET" and r.path == "/api/v1/pods"]


def test_gpu_processes_are_named_by_the_pods_of_their_node(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    train, other = L4_POD_UIDS
    filler = [
        pod(f"job-{i:03d}", "batch", node_name="i-0aaa") for i in range(520)
    ]  # the list takes two pages
    apiserver.add(
        gpu_node("i-0aaa", gpus=4),
        *filler,
        pod_with_uid("train-0", "ml", train),
        pod_with_uid("elsewhere", "ml", other, node_name="i-0bbb"),  # same UID as PID 13597, another node
    )
    kubelet.outputs["i-0aaa"] = gpu_output(pid_cgroups=L4_CGROUPS)
    target = one(api, "i-0aaa")
    before = len(apiserver.requests)
    result = runner(api).collect(target, Strategy.AUTO, SCRIPT)
    assert result.error is None and result.probe is not None
    assert result.process_pods() == {10131: "ml/train-0"}
    assert (
        result.pods is not None and len(result.pods) == 521
    )  # every pod of the node (the debug pod is gone)
    lists = pod_lists(apiserver, before)
    assert [r.query.get("fieldSelector") for r in lists] == ["spec.nodeName=i-0aaa"] * 2
    assert "continue" in lists[1].query  # paginated
    notes = result.all_notes()
    assert any("PID 13597: pod UID 8d2c4a61" in n for n in notes)
    assert any("PID 16870: not in a pod's cgroup" in n for n in notes)


def test_no_pod_list_without_processes_in_pod_cgroups(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    target = one(api, "i-0aaa")
    before = len(apiserver.requests)
    result = runner(api).collect(target, Strategy.AUTO, SCRIPT)  # the default output: no pid-cgroups section
    assert result.error is None and pod_lists(apiserver, before) == []
    assert result.pods is None and result.process_pods() == {}
    assert any("has no pid-cgroups section" in n for n in result.all_notes())


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (403, "the node's pods could not be listed (403 Forbidden: pods is forbidden: User \"dev\" cannot list resource \"pods\"); it needs RBAC 'list' on pods"),
        (500, "the node's pods could not be listed (500 InternalError:"),
    ],
)  # fmt: skip
def test_a_failed_pod_list_leaves_pods_null_with_a_note(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi, status: int, expected: str
) -> None:
    apiserver.add(gpu_node("i-0aaa"), pod_with_uid("train-0", "ml", L4_POD_UIDS[0]))
    kubelet.outputs["i-0aaa"] = gpu_output(pid_cgroups=L4_CGROUPS)
    target = one(api, "i-0aaa")
    message = 'pods is forbidden: User "dev" cannot list resource "pods"' if status == 403 else "etcd timeout"
    apiserver.fault(path=r"^/api/v1/pods$", status=status, body=status_body(status, message))
    result = runner(api).collect(target, Strategy.AUTO, SCRIPT)
    assert result.error is None and result.probe is not None and len(result.probe.gpus) == 2
    assert result.pods is None and result.process_pods() == {}
    assert result.pods_unknown is not None and result.pods_unknown.startswith(expected), result.pods_unknown
    assert f"process pods are null for PIDs 10131, 13597: {result.pods_unknown}" in result.all_notes()


# --- faults -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        # ErrImagePull, or ImagePullBackOff when a poll lands after the kubelet's next step: either fails at once.
        ("image-pull", "node i-0aaa: cannot pull image reg.example/debug-nvidia:test ("),
        ("never-starts", "node i-0aaa: the debug pod did not start within 0.4s (last seen: Pending (ContainerCreating))"),
        ("node-gone", "node i-0aaa no longer exists; its debug pod went with it"),
        ("evicted", "node i-0aaa: the debug pod was evicted (Evicted: The node was low on resource: memory."),
        ("exit-127", "node i-0aaa: the debug pod did not run the collector (exit code 127): sh: exec: line 1"),
    ],
)  # fmt: skip
def test_kubelet_faults_become_one_clear_line(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi, fault: str, expected: str
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.faults["i-0aaa"] = fault
    settings = RunnerSettings(timeout=0.4, poll_initial=0.02, poll_max=0.05)
    result = runner(api, settings=settings).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    assert result.error is not None and result.error.startswith(expected), result.error
    assert "\n" not in result.error


def test_admission_rejection_quotes_the_webhook(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    message = kubelet.reject_admission(
        "policy Pod/default/x for resource violation: disallow-privileged-containers: Privileged mode is "
        "disallowed.",
        webhook="validate.kyverno.svc-fail",
    )
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    assert result.error is not None
    assert result.error.startswith("node i-0aaa: cannot create debug pod default/gpu-debug-i-0aaa-")
    assert f"rejected by admission: {message}" in result.error


def test_rbac_forbidden_create(apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    message = 'pods is forbidden: User "dev" cannot create resource "pods" in API group "" in the namespace "default"'
    apiserver.fault(method="POST", path=r"/pods$", status=403, body=status_body(403, message))
    result = runner(api).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    assert (
        result.error is not None and f"forbidden: {message}; you need RBAC 'create' on pods" in result.error
    )


def test_slow_logs_time_out(apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.slow_logs("i-0aaa", 3.0)
    settings = RunnerSettings(timeout=1.0, poll_initial=0.02, poll_max=0.05)
    result = runner(api, settings=settings).collect(one(api, "i-0aaa"), Strategy.AUTO, SCRIPT)
    # The message, not a clock: the log came after 3 s, so a runner that waited for it would have no error.
    assert result.error is not None and "reading the debug pod's log took longer than" in result.error


def test_pod_bound_to_a_vanished_node_times_out_as_node_gone(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    target = one(api, "i-0aaa")
    apiserver.remove("nodes", "i-0aaa")  # gone between preflight and create: no kubelet picks the pod up
    settings = RunnerSettings(timeout=0.3, poll_initial=0.02, poll_max=0.05)
    result = runner(api, settings=settings).collect(target, Strategy.AUTO, SCRIPT)
    assert result.error == "node i-0aaa no longer exists; its debug pod never started"


# --- fan-out ----------------------------------------------------------------------------------------------------


def test_fifty_nodes_with_bounded_concurrency(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    names = [f"i-{i:03d}" for i in range(50)]
    apiserver.add(*(gpu_node(n) for n in names))
    kubelet.faults["i-007"] = "image-pull"
    peak = 0
    lock = threading.Lock()

    def count(resource: str, obj: dict[str, Any]) -> None:
        nonlocal peak
        with lock:
            peak = max(peak, len(debug_pods(apiserver)))

    apiserver.on_create.append(count)
    found = targets(api)
    assert sorted(t.name for t in found.ready) == names
    api.allow_concurrency(8)
    run = runner(api)
    done: list[str] = []
    results = run_parallel(
        found.ready,
        lambda t: run.collect(t, Strategy.AUTO, SCRIPT),
        concurrency=8,
        cancel=run.cancel,
        on_done=lambda t, r: done.append(t.name),
    )
    assert [r.node for r in results] == [t.name for t in found.ready] and len(done) == 50
    assert [r.node for r in results if r.error] == ["i-007"]
    assert all(r.probe is not None and len(r.probe.gpus) == 2 for r in results if not r.error)
    assert 1 < peak <= 8
    assert run.tracker.pending() == []


# --- interrupts at every phase ----------------------------------------------------------------------------------

PHASES = {
    "create": ("creating pod", dict(method="POST", path=r"/pods$", delay=0.3, times=1)),
    "wait": ("waiting", None),
    "logs": ("reading log", dict(path=r"/log$", delay=0.3, times=1)),
    "delete": ("deleting pod", dict(method="DELETE", path=r"/pods/", delay=0.3, times=1)),
}


@pytest.mark.slow
@pytest.mark.parametrize("phase", list(PHASES))
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_at_each_phase_deletes_the_pods(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi, phase: str, sig: signal.Signals
) -> None:
    """Ctrl-C (or SIGTERM) arrives in the main thread while a worker is in `phase`: every pod goes."""
    apiserver.add(gpu_node("i-0aaa"), gpu_node("i-0bbb"))
    label, fault = PHASES[phase]
    if fault:
        apiserver.fault(**fault)
    if phase == "wait":
        kubelet.faults["i-0aaa"] = "never-starts"
    fired = threading.Event()

    def on_phase(node: str, what: str) -> None:
        if node == "i-0aaa" and what == label and not fired.is_set():
            fired.set()
            os.kill(os.getpid(), sig)  # to the process, as the terminal sends it (the workers leave it to main)

    run = runner(api, on_phase=on_phase)
    found = targets(api)
    with pytest.raises(KeyboardInterrupt), interrupts_on_sigterm():
        run_parallel(
            found.ready, lambda t: run.collect(t, Strategy.AUTO, SCRIPT), concurrency=2, cancel=run.cancel
        )
    assert fired.is_set() and run.cancel.is_set()
    assert run.delete_leftovers() == []
    assert wait_for(lambda: not debug_pods(apiserver), timeout=3.0)


def test_cancel_from_another_thread_unwinds_the_worker(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.faults["i-0aaa"] = "never-starts"
    run = runner(api)
    target = one(api, "i-0aaa")
    threading.Timer(0.2, run.cancel.set).start()
    with pytest.raises(Cancelled):
        run.collect(target, Strategy.AUTO, SCRIPT)
    assert run.tracker.pending() == []


def test_leftovers_are_deleted_by_name(apiserver: FakeKubeAPI, api: PodApi) -> None:
    apiserver.add(pod("gpu-debug-x-abcde", labels={"app.kubernetes.io/managed-by": "kubectl-gpu"}))
    tracker = PodTracker()
    tracker.add("default", "gpu-debug-x-abcde")
    tracker.add("default", "gpu-debug-never-created")
    run = runner(api, tracker=tracker)
    assert run.delete_leftovers() == [] and tracker.pending() == []


# --- the shell pod ----------------------------------------------------------------------------------------------


def test_shell_pod_runs_until_the_block_ends(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    run = runner(api)
    with run.shell_pod(one(api, "i-0aaa"), Strategy.AUTO) as shell:
        assert shell.strategy is Strategy.PRIVILEGED_ALL and shell.probe.devices == 1
        live = apiserver.get("pods", shell.name)
        assert live is not None and live["status"]["phase"] == "Running"
        assert live["metadata"]["labels"]["kubectl-gpu/mode"] == "shell"
    assert debug_pods(apiserver) == []


def test_shell_pod_falls_back_and_is_deleted_on_ctrl_c(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.shell_outputs["i-0aaa"] = by_strategy(
        privileged=shell_output("No devices were found\n", rc=6), request=shell_output()
    )
    run = runner(api)
    with pytest.raises(KeyboardInterrupt), run.shell_pod(one(api, "i-0aaa"), Strategy.AUTO) as shell:
        assert shell.strategy is Strategy.REQUEST and "auto: privileged-all saw no GPU" in shell.notes[0]
        raise KeyboardInterrupt
    assert len(kubelet.started) == 2 and debug_pods(apiserver) == []


def test_shell_without_a_visible_gpu_is_kept_with_a_note(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    apiserver.add(
        gpu_node("i-0aaa", gpus=1), pod("serve", node_name="i-0aaa", requests={"nvidia.com/gpu": "1"})
    )
    kubelet.shell_outputs["i-0aaa"] = shell_output("No devices were found\n", rc=6)
    with runner(api).shell_pod(one(api, "i-0aaa"), Strategy.AUTO) as shell:
        assert shell.strategy is Strategy.PRIVILEGED_ALL and shell.probe.devices == 0
        assert shell.notes == (
            "the container sees no GPU (No devices were found); no nvidia.com/gpu is free to request",
        )
    assert len(kubelet.started) == 1


def test_ctrl_c_during_the_shell_pods_create_still_deletes_it(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    """The shell sets its pod up on the main thread: an interrupted create is finished, then undone."""
    apiserver.add(gpu_node("i-0aaa"))
    apiserver.fault(method="POST", path=r"/pods$", delay=0.4, times=1)
    target = one(api, "i-0aaa")
    threading.Timer(0.1, os.kill, [os.getpid(), signal.SIGINT]).start()
    with pytest.raises(KeyboardInterrupt), runner(api).shell_pod(target, Strategy.AUTO):
        pytest.fail("the block must not run")
    assert len(kubelet.started) == 1  # the pod was created after the interrupt...
    assert debug_pods(apiserver) == []  # ...and deleted right after


def test_shell_pod_image_pull_error(apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi) -> None:
    apiserver.add(gpu_node("i-0aaa"))
    kubelet.faults["i-0aaa"] = "image-pull"
    with pytest.raises(ClusterError, match=r"cannot pull image reg\.example/debug-nvidia:test"):  # noqa: SIM117
        with runner(api).shell_pod(one(api, "i-0aaa"), Strategy.PRIVILEGED_ALL):
            pytest.fail("the block must not run")


# --- preflight --------------------------------------------------------------------------------------------------


def test_rbac_preflight_lists_what_is_missing(apiserver: FakeKubeAPI, api: PodApi) -> None:
    from kubectl_gpu.core.debugpod import Mode

    apiserver.ssar_allowed = {("create", "pods/exec"): False, ("get", "pods/log"): False}
    with pytest.raises(ClusterError, match=r"missing RBAC in namespace default: get pods/log$") as info:
        check_access(api, "default", Mode.SMI)
    with pytest.raises(ClusterError) as info:
        check_access(api, "ops", Mode.SHELL)
    assert info.value.message == "missing RBAC in namespace ops: get pods/log, create pods/exec"
    apiserver.ssar_allowed = None
    assert check_access(api, "default", Mode.SHELL) == []
    apiserver.fault(method="POST", path="selfsubjectaccessreviews", status=403)
    assert "could not check RBAC" in check_access(api, "default", Mode.SMI)[0]


def test_pod_security_preflight(apiserver: FakeKubeAPI, api: PodApi) -> None:
    assert check_pod_security(api, "default") == []
    apiserver.add(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "locked", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}},
        },
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "ops", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}},
        },
    )
    with pytest.raises(ClusterError, match="namespace locked enforces Pod Security level 'baseline'"):
        check_pod_security(api, "locked")
    assert check_pod_security(api, "ops") == []
    with pytest.raises(InvalidInput, match="namespace nowhere not found"):
        check_pod_security(api, "nowhere")
    apiserver.fault(path="/namespaces/default$", status=403)
    assert (
        "could not check the Pod Security level of namespace default" in check_pod_security(api, "default")[0]
    )


def test_targets_skip_cpu_nodes_and_report_unusable_ones(apiserver: FakeKubeAPI, api: PodApi) -> None:
    apiserver.add(
        gpu_node("i-0aaa"),
        gpu_node("i-0bbb", ready=False),
        gpu_node("i-0ccc", unschedulable=True),
        node("i-0cpu", labels={"node.kubernetes.io/instance-type": "c6a.large"}),
    )
    found = targets(api)
    assert [t.name for t in found.ready] == ["i-0aaa", "i-0ccc"]
    assert found.errors == [
        ("i-0bbb", "node i-0bbb is NotReady (KubeletNotReady): its kubelet would not start the debug pod")
    ]
    assert any("i-0ccc is cordoned" in w for w in found.warnings)
    named = targets(api, "i-0cpu", "missing")
    assert named.errors == [("missing", "node missing not found")]
    assert [t.name for t in named.ready] == ["i-0cpu"] and "advertises no accelerator" in named.warnings[0]


def test_selector_with_no_gpu_nodes(apiserver: FakeKubeAPI, api: PodApi) -> None:
    apiserver.add(gpu_node("i-0aaa", labels={"pool": "a"}))
    assert [t.name for t in targets(api, selector="pool=a").ready] == ["i-0aaa"]
    with pytest.raises(InvalidInput, match="no accelerator nodes matching 'pool=b'"):
        targets(api, selector="pool=b")


def test_gke_autopilot_is_refused(apiserver: FakeKubeAPI, api: PodApi) -> None:
    apiserver.add(gpu_node("gk3-prod-nap-1a2b", labels={"cloud.google.com/gke-nodepool": "nap-1"}))
    with pytest.raises(ClusterError, match="GKE Autopilot"):
        targets(api)
