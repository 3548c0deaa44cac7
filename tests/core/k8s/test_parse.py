"""Parsing real objects (vendored in tests/fixtures with their provenance) and the edge cases around them."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from kubectl_gpu.core.k8s.models import Node, NodeClass, NodePool, Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_object, parse_objects
from tests.helpers import FIXTURES, load_yaml_docs, node, pod

OBJECTS = FIXTURES / "objects"


def test_automode_gpu_nodepool_from_eks_docs() -> None:
    (doc,) = load_yaml_docs(OBJECTS / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml")
    pool = parse_object(doc)
    assert isinstance(pool, NodePool)
    assert pool.name == "gpu"
    assert pool.node_class_ref is not None and pool.node_class_ref.kind == "NodeClass"
    assert pool.node_class_ref.group == "eks.amazonaws.com"
    assert [r["key"] for r in pool.requirements] == [
        "karpenter.sh/capacity-type",
        "kubernetes.io/arch",
        "eks.amazonaws.com/instance-family",
    ]
    assert pool.consolidation_policy == "WhenEmpty"
    assert pool.consolidate_after == "1h"
    assert pool.termination_grace_period == "24h0m0s"
    assert pool.expire_after is None  # unset: the CRD default applies, analyses must say so
    assert [b.nodes for b in pool.budgets] == ["10%"]
    assert pool.taints == ()


def test_self_managed_gpu_nodepool_with_taint_and_limits() -> None:
    (doc,) = load_yaml_docs(OBJECTS / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml")
    pool = parse_object(doc)
    assert isinstance(pool, NodePool)
    assert pool.node_class_ref is not None and pool.node_class_ref.kind == "EC2NodeClass"
    assert pool.taints == ()  # this real GPU pool has no GPU taint: a lint finding later
    assert pool.limits == {"cpu": Decimal(1000), "nvidia.com/gpu": Decimal(8)}
    assert pool.weight == 20
    assert pool.consolidation_policy == "WhenEmptyOrUnderutilized"


def test_automode_nodeclass_ephemeral_storage() -> None:
    (doc,) = load_yaml_docs(OBJECTS / "eks-docs__automode-nodeclass-ephemeral-storage.yaml")
    nc = parse_object(doc)
    assert isinstance(nc, NodeClass)
    assert nc.kind == "NodeClass" and nc.group == "eks.amazonaws.com"
    assert nc.ephemeral_storage_size == Decimal(80 * 2**30)
    assert nc.ready is None  # the manifest has no status


def test_ec2nodeclasses_with_raid0() -> None:
    docs = load_yaml_docs(OBJECTS / "data-on-eks__ec2nodeclasses-multi-incl-gpu-raid0.yaml")
    models, skipped = parse_objects(docs)
    classes = [m for m in models if isinstance(m, NodeClass)]
    assert [c.name for c in classes][:4] == ["default", "gpu", "spark-vertical-ebs-scale", "generic-ebs"]
    assert len(classes) == 8
    assert all(c.kind == "EC2NodeClass" for c in classes)
    # every class sets RAID0 except the last, where the line is commented out
    assert [c.instance_store_policy for c in classes] == ["RAID0"] * 7 + [None]
    assert skipped == 0


def test_deployments_are_skipped_not_errors() -> None:
    docs = load_yaml_docs(OBJECTS / "karpenter-provider-aws__workload-gpu-nvidia.yaml")
    models, skipped = parse_objects(docs)
    assert models == [] and skipped == len(docs)


def test_pod_from_eks_docs_requests() -> None:
    (doc,) = load_yaml_docs(OBJECTS / "eks-docs__automode-pod-nvidia-smi-gpu-memory-selector.yaml")
    p = parse_object(doc)
    assert isinstance(p, Pod)
    assert p.requests == {"memory": Decimal(30 * 2**30), "cpu": Decimal("3.5"), "nvidia.com/gpu": Decimal(1)}
    assert p.node_selector["eks.amazonaws.com/instance-gpu-memory"] == "45776"
    assert p.phase == "Pending" and p.namespace == "default"


@pytest.mark.parametrize(
    "name",
    [
        "cloud-native-docs__h100-mig-single__node-labels.json",
        "cloud-native-docs__h100-mig-mixed__node-labels.json",
        "cloud-native-docs__a100-dgx-mig-mixed__gfd-labels-450.json",
    ],
)
def test_real_gfd_label_sets_parse_on_a_node(name: str) -> None:
    labels = json.loads((OBJECTS / name).read_text())
    n = parse_object(node("gpu-1", labels=labels))
    assert isinstance(n, Node)
    assert n.labels["nvidia.com/gpu.product"]


def test_effective_requests_follow_kubernetes_rules() -> None:
    # app containers sum to 2 cpu; the biggest init container needs 3 -> effective 3.
    p = parse_object(pod("p", requests={"cpu": "2"}, init_requests=[{"cpu": "3"}, {"cpu": "1"}]))
    assert isinstance(p, Pod)
    assert p.requests["cpu"] == Decimal(3)


def test_sidecar_init_containers_add_to_app_requests() -> None:
    raw = pod("p", requests={"nvidia.com/gpu": "1", "cpu": "1"})
    raw["spec"]["initContainers"] = [
        {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        {"name": "setup", "resources": {"requests": {"cpu": "1"}}},
    ]
    p = parse_object(raw)
    assert isinstance(p, Pod)
    # app 1 + sidecar 0.5 = 1.5; init peak = sidecar 0.5 + setup 1 = 1.5
    assert p.requests == {"nvidia.com/gpu": Decimal(1), "cpu": Decimal("1.5")}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda o: o["metadata"].pop("name"), "without metadata.name"),
        (lambda o: o["status"]["capacity"].update({"nvidia.com/gpu": "lots"}), "not a quantity"),
        (lambda o: o["status"]["capacity"].update({"cpu": "1e999"}), "out of range"),
        (lambda o: o["spec"].update({"taints": "nvidia.com/gpu"}), "must be a list"),
        (lambda o: o["metadata"].update({"labels": ["a"]}), "must be an object"),
    ],
)
def test_broken_fields_raise_model_error_naming_the_object(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    obj = node("gpu-1", capacity={"cpu": "4", "nvidia.com/gpu": "1"})
    mutate(obj)
    with pytest.raises(ModelError, match=message):
        parse_object(obj)


def test_events_v1_and_core_shapes() -> None:
    core = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "e1", "namespace": "ml"},
        "involvedObject": {"kind": "Pod", "namespace": "ml", "name": "train-0"},
        "reason": "FailedScheduling",
        "message": "0/3 nodes are available",
        "source": {"component": "default-scheduler"},
        "count": 4,
        "lastTimestamp": "2026-11-28T08:00:00Z",
    }
    new = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "e2", "namespace": "ml"},
        "regarding": {"kind": "Pod", "namespace": "ml", "name": "train-0"},
        "reason": "Nominated",
        "note": "Pod should schedule on: nodeclaim/gpu-abcde",
        "reportingController": "eks-auto-mode/compute",
        "eventTime": "2026-11-28T08:01:00.000000Z",
    }
    e1, e2 = parse_object(core), parse_object(new)
    assert e1 is not None and e2 is not None
    assert (e1.component, e1.count, e1.involved.name) == ("default-scheduler", 4, "train-0")  # type: ignore[union-attr]
    assert (e2.component, e2.message) == (
        "eks-auto-mode/compute",
        "Pod should schedule on: nodeclaim/gpu-abcde",
    )  # type: ignore[union-attr]
