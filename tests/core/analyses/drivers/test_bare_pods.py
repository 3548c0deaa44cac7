"""Bare GPU pods (no controller: `kubectl run`, notebooks, hand-made jobs) are grouped by namespace and
template, so `drivers` reports and checks them once, not once a pod (issue 22: 6,149 workloads and 5,399
CUDA_UNCHECKED findings at 1,000 nodes); and what an image needs is read once per image."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubectl_gpu.core.analyses.drivers import workload_cuda
from kubectl_gpu.core.analyses.drivers.analysis import DriverReport, build_driver_report
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from tests.helpers import node, pod

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
GPU = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
IMAGE = "nvcr.io/nvidia/pytorch:24.05-py3"
OTHER = "nvcr.io/nvidia/pytorch:24.10-py3"


def _report(*pods: dict[str, Any]) -> DriverReport:
    labels = {"node.kubernetes.io/instance-type": "g6e.xlarge", "eks.amazonaws.com/instance-family": "g6e"}
    nodes = [node(f"i-{i:02d}", labels=labels, capacity=GPU) for i in range(3)]  # driver unknown: UNCHECKED
    models, _ = parse_objects([*nodes, *pods])
    return build_driver_report(ClusterState.of(models), load_catalog(), NOW)


def _bare(name: str, namespace: str = "ml", image: str = IMAGE, **kw: Any) -> dict[str, Any]:
    return pod(name, namespace, node_name="i-00", requests={"nvidia.com/gpu": "1"}, image=image, **kw)


def _owned(name: str, owner: str, image: str = IMAGE) -> dict[str, Any]:
    obj = _bare(name, image=image)
    obj["metadata"]["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": owner}
    ]
    return obj


def test_bare_pods_alike_are_one_workload_named_by_their_image() -> None:
    report = _report(*(_bare(f"notebook-{i}") for i in range(5)))
    (w,) = report.workloads
    assert (w.namespace, w.kind, w.name) == ("ml", "BarePods", IMAGE)
    assert w.pods == tuple(f"notebook-{i}" for i in range(5))
    assert w.to_dict()["pods"] == [f"notebook-{i}" for i in range(5)]  # every pod is still listed
    assert [f.code for f in report.findings if f.object.kind == "BarePods"] == ["CUDA_UNCHECKED"]


def test_a_lone_bare_pod_is_still_a_pod() -> None:
    (w,) = _report(_bare("debug-0")).workloads
    assert (w.kind, w.name, w.pods) == ("Pod", "debug-0", ("debug-0",))


def test_bare_pods_apart_where_their_checks_could_differ() -> None:
    report = _report(
        _bare("a-0"),
        _bare("a-1"),
        _bare("b-0", image=OTHER),
        _bare("b-1", image=OTHER),
        _bare("c-0", annotations={"kubectl-gpu.io/cuda": "12.8"}),  # its own CUDA need: not with a-*
        _bare("c-1", annotations={"kubectl-gpu.io/cuda": "12.8"}),
        _bare("d-0", node_selector={"karpenter.sh/nodepool": "x"}),  # lands elsewhere: not with a-*
        _bare("d-1", node_selector={"karpenter.sh/nodepool": "x"}),
        _bare("e-0", "research"),
        _bare("e-1", "research"),
    )
    got = [(w.namespace, w.kind, w.name, w.pods) for w in report.workloads]
    assert got == [
        ("ml", "BarePods", IMAGE, ("a-0", "a-1")),
        ("ml", "BarePods", f"{IMAGE} #2", ("c-0", "c-1")),
        ("ml", "BarePods", f"{IMAGE} #3", ("d-0", "d-1")),
        ("ml", "BarePods", OTHER, ("b-0", "b-1")),
        ("research", "BarePods", IMAGE, ("e-0", "e-1")),
    ]
    declared = next(w for w in report.workloads if w.pods[0] == "c-0")
    assert declared.cuda.need is not None and declared.cuda.need.version == "12.8"


def test_owned_pods_stay_by_owner() -> None:
    report = _report(_owned("job-a-0", "job-a"), _owned("job-a-1", "job-a"), _owned("job-b-0", "job-b"))
    assert [(w.kind, w.name, w.pods) for w in report.workloads] == [
        ("Job", "job-a", ("job-a-0", "job-a-1")),
        ("Job", "job-b", ("job-b-0",)),
    ]


@pytest.mark.parametrize("count", [10, 200])
def test_the_document_is_bounded_by_workloads(count: int) -> None:
    report = _report(*(_bare(f"nb-{i:03d}") for i in range(count)))
    assert len(report.workloads) == 1
    assert len([f for f in report.findings if f.object.kind != "Node"]) == 1


def test_an_image_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = workload_cuda.cuda_from_image

    def counting(image: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(image)
        return real(image, *args, **kwargs)

    monkeypatch.setattr(workload_cuda, "cuda_from_image", counting)
    report = _report(*(_owned(f"job-{i}-0", f"job-{i}") for i in range(6)), _owned("x-0", "x", image=OTHER))
    assert len(report.workloads) == 7
    assert sorted(calls) == [IMAGE, OTHER]
