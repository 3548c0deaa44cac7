"""Issue 38: lifecycle's per-pod GPU check reads a pod's limits only when they can change the answer, and
answers as it did when it read them for every pod."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.analyses.lifecycle.pods import wants_accelerator
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_pod
from tests.helpers import pod


def _before(p: Pod) -> bool:
    return bool(accelerator_requests(p.requests) or accelerator_requests(p.limits) or p.resource_claims)


def _with(resources: dict[str, Any], init: dict[str, Any] | None = None, claims: bool = False) -> Pod:
    obj = pod("p", node_name="n1")
    obj["spec"]["containers"][0]["resources"] = resources
    if init is not None:
        obj["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": init}]
    if claims:
        obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    return parse_pod(obj)


CASES = {
    "cpu only": ({"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}, None, False),
    "gpu request": ({"requests": {"nvidia.com/gpu": "1"}}, None, False),
    "gpu limit only (defaulted into requests)": ({"limits": {"nvidia.com/gpu": "2"}}, None, False),
    "gpu request 0, limit 1 (a manifest)": (
        {"requests": {"nvidia.com/gpu": "0"}, "limits": {"nvidia.com/gpu": "1"}},
        None,
        False,
    ),
    "gpu request 0, no limit": ({"requests": {"nvidia.com/gpu": "0"}}, None, False),
    "mig limit only": ({"limits": {"nvidia.com/mig-1g.10gb": "1"}}, None, False),
    "neuron in an init container's limits": (
        {"requests": {"cpu": "1"}},
        {"limits": {"aws.amazon.com/neuron": "1"}},
        False,
    ),
    "a DRA claim": ({"requests": {"cpu": "1"}}, None, True),
    "nothing": ({}, None, False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_answer_as_reading_every_pods_limits(case: str) -> None:
    resources, init, claims = CASES[case]
    p = _with(resources, init, claims)
    assert wants_accelerator(p) == _before(p)


def test_limits_are_not_read_when_requests_decide() -> None:
    class Details:
        def __init__(self, inner: Any) -> None:
            self.inner, self.reads = inner, 0

        def limits(self) -> Any:
            self.reads += 1
            return self.inner.limits()

    for case in ("cpu only", "gpu request", "nothing"):
        p = _with(*CASES[case])
        details = Details(p._details)
        p = msgspec.structs.replace(p, _details=details)
        wants_accelerator(p)
        assert details.reads == 0, case
    p = _with(*CASES["gpu request 0, limit 1 (a manifest)"])
    assert wants_accelerator(p) is True


def test_accelerator_pods_are_the_pods_that_want_one_replicas_read_once() -> None:
    """`accelerator_pods` answers `wants_accelerator` for every pod of a state, each case as three replicas
    (one requests object for each case's replicas, from one template), in one pass per state."""
    from kubectl_gpu.core.analyses.lifecycle.pods import accelerator_pods
    from tests.core.analyses.pending._scenarios import state_of

    objects = []
    for n, case in enumerate(sorted(CASES)):
        resources, init, claims = CASES[case]
        for replica in range(3):
            obj = pod(f"p{n}-{replica}", node_name="n1")
            obj["spec"]["containers"][0]["resources"] = resources
            if init is not None:
                obj["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": init}]
            if claims:
                obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
            objects.append(obj)
    state = state_of(objects)
    found = accelerator_pods(state)
    assert found == frozenset(id(p) for p in state.pods if _before(p))
    names = {p.name for p in state.pods if id(p) in found}
    assert {"p0-0", "p2-2", "p4-1"} <= names  # a DRA claim, a GPU limit only, a request of 0 with a limit
    assert not names & {"p1-0", "p5-1", "p8-2"}  # CPU only, a request of 0 alone, nothing
    assert accelerator_pods(state) is found
