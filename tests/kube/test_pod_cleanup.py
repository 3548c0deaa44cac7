"""Debug pods are deleted through API trouble, or named as left behind (issue 12, item 3), at the runner:
DELETE failing N times, an outage of about a second (errors or dropped connections), a create still in
flight when the last-resort cleanup runs, polling through transient errors. Every test counts the debug
pods left on the server: zero, or the runner names each one."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import config

from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.debugpod import Strategy
from kubectl_gpu.kube.debug.pod_api import PodApi
from kubectl_gpu.kube.debug.preflight import resolve_targets
from kubectl_gpu.kube.debug.runner import DebugRunner, NodeTarget, RunnerSettings
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

SCRIPT = "echo collector"
# Fast polls, and deletes that back off quickly but keep trying for a few seconds.
FAST = RunnerSettings(
    timeout=5.0,
    poll_initial=0.02,
    poll_max=0.05,
    delete_budget=5.0,
    delete_backoff=0.05,
    delete_backoff_max=0.1,
)


@pytest.fixture
def kubelet(apiserver: FakeKubeAPI) -> Iterator[SimulatedKubelet]:
    with SimulatedKubelet(apiserver, delay=0.02) as k:
        yield k


@pytest.fixture
def api(kubeconfig: Path) -> Iterator[PodApi]:
    client = config.new_client_from_config(config_file=str(kubeconfig), context="test")
    try:
        yield PodApi(client, request_timeout=5.0, context="test")
    finally:
        client.close()


def _target(api: PodApi, apiserver: FakeKubeAPI, name: str = "i-0aaa") -> NodeTarget:
    apiserver.add(gpu_node(name))
    found = resolve_targets(
        api, names=[name], selector=None, all_gpu=False, catalog=load_catalog(), image_for=lambda a: "img:1"
    )
    (target,) = found.ready
    return target


def _deletes(apiserver: FakeKubeAPI) -> int:
    return sum(r.method == "DELETE" for r in apiserver.requests)


@pytest.mark.parametrize(
    "fault", [{"status": 503}, {"status": 500}, {"status": 429}, {"drop": True}], ids=str
)
def test_delete_failing_n_times_still_deletes(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi, fault: dict[str, Any]
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(method="DELETE", path=r"/pods/gpu-debug-", times=5, **fault)
    run = DebugRunner(api, FAST)
    result = run.collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)
    assert result.error is None, result.error
    assert run.delete_failures == [] and run.left_behind() == []
    assert _deletes(apiserver) == 6 and debug_pods(apiserver) == []


@pytest.mark.slow
def test_an_outage_of_about_a_second_with_the_default_settings(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    """The default budget (30 s, backing off to 5 s) outlasts an API blip of a second or so."""
    target = _target(api, apiserver)
    apiserver.fault(method="DELETE", path=r"/pods/gpu-debug-", status=503, seconds=1.5)
    run = DebugRunner(api, RunnerSettings(timeout=5.0, poll_initial=0.02, poll_max=0.05))
    assert run.collect(target, Strategy.PRIVILEGED_ALL, SCRIPT).error is None
    assert run.left_behind() == [] and debug_pods(apiserver) == []


def test_a_delete_that_cannot_succeed_names_the_pod(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(method="DELETE", path=r"/pods/gpu-debug-", status=403, times=1)  # RBAC: not retried
    run = DebugRunner(api, FAST)
    run.collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)
    (left,) = run.left_behind()
    assert (left.namespace, left.node) == ("default", "i-0aaa") and left.name.startswith("gpu-debug-i-0aaa-")
    assert left.problem.startswith("403 Forbidden") and _deletes(apiserver) == 1
    assert debug_pods(apiserver) == [f"default/{left.name}"]
    apiserver.remove("pods", left.name)


def test_a_delete_budget_used_up_names_the_pod(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(method="DELETE", path=r"/pods/gpu-debug-", status=503)
    settings = RunnerSettings(
        timeout=5.0, poll_initial=0.02, poll_max=0.05, delete_budget=0.3, delete_backoff=0.05
    )
    run = DebugRunner(api, settings)
    run.collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)
    (left,) = run.left_behind()
    assert left.problem.startswith("503 ServiceUnavailable") and _deletes(apiserver) > 2
    apiserver.clear_faults()
    assert run.delete_leftovers() == [] and debug_pods(apiserver) == []


def test_a_create_in_flight_is_not_counted_as_deleted_by_a_404(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    """The last-resort cleanup runs while a worker's create is still on the wire: the DELETE's 404 must not
    count, or the pod the create makes a moment later is left behind."""
    target = _target(api, apiserver)
    kubelet.faults["i-0aaa"] = "never-starts"
    apiserver.fault(method="POST", path=r"/pods$", delay=0.8, times=1)
    run = DebugRunner(api, FAST)
    worker = threading.Thread(target=lambda: _swallow(run, target))
    worker.start()
    assert wait_for(lambda: any(r.method == "POST" for r in apiserver.requests))
    run.cancel.set()  # the user interrupted; the main thread cleans up without waiting for the worker
    assert run.delete_leftovers(settle=10.0) == []
    worker.join(10)
    assert debug_pods(apiserver) == []


def _swallow(run: DebugRunner, target: NodeTarget) -> None:
    from kubectl_gpu.kube.debug.runner import Cancelled

    with contextlib.suppress(Cancelled):
        run.collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)


def test_a_create_that_never_returns_is_named(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(method="POST", path=r"/pods$", delay=1.0, times=1)
    run = DebugRunner(api, FAST)
    worker = threading.Thread(target=lambda: _swallow(run, target))
    worker.start()
    assert wait_for(lambda: any(r.method == "POST" for r in apiserver.requests))
    run.cancel.set()
    (left,) = run.delete_leftovers(settle=0.1)
    assert left.problem == "its create never returned"
    worker.join(10)  # the worker deletes it once its create returns
    assert wait_for(lambda: not debug_pods(apiserver), timeout=5)


def test_polling_goes_on_through_transient_errors(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(path=r"/pods/gpu-debug-[a-z0-9-]+$", status=503, times=3)
    apiserver.fault(path=r"/pods/gpu-debug-[a-z0-9-]+$", drop=True, times=2)
    result = DebugRunner(api, FAST).collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)
    assert result.error is None, result.error
    assert debug_pods(apiserver) == []


def test_polling_that_keeps_failing_says_so_at_the_deadline(
    apiserver: FakeKubeAPI, kubelet: SimulatedKubelet, api: PodApi
) -> None:
    target = _target(api, apiserver)
    apiserver.fault(path=r"/pods/gpu-debug-[a-z0-9-]+$", status=503)
    settings = RunnerSettings(
        timeout=0.4, poll_initial=0.02, poll_max=0.05, delete_budget=1.0, delete_backoff=0.05
    )
    result = DebugRunner(api, settings).collect(target, Strategy.PRIVILEGED_ALL, SCRIPT)
    assert result.error is not None
    assert "kept failing until its deadline: 503 ServiceUnavailable" in result.error, result.error
    assert debug_pods(apiserver) == []
