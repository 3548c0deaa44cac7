"""The fields the analyses read, parsed once into the models (no analysis reads the object dict)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import Container, ContainerPort, Node, NodeClaim, NodeClass, Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_object
from kubectl_gpu.core.scheduling.affinity import NO_NODE_AFFINITY, NodeAffinity, NodeSelectorTerm
from tests.helpers import node, pod


def _pod(obj: dict[str, Any]) -> Pod:
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    return parsed


def test_containers_keep_name_image_env_and_resource_names() -> None:
    obj = pod("p", requests={"cpu": "1"}, image="nvcr.io/nvidia/pytorch:25.01-py3")
    main = obj["spec"]["containers"][0]
    main["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    main["env"] = [
        {"name": "CUDA_VERSION", "value": "12.8"},
        {"name": "CUDA_VERSION", "value": "11.0"},  # a repeated name: the first one is kept
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "EMPTY"},
        {"name": "NUMBER", "value": 12.4},  # hand-written YAML
        "not an entry",
    ]
    obj["spec"]["containers"].append({"image": ""})
    p = _pod(obj)
    assert p.containers == (
        Container(
            name="main",
            image="nvcr.io/nvidia/pytorch:25.01-py3",
            env={"CUDA_VERSION": "12.8", "TOKEN": None, "EMPTY": "", "NUMBER": "12.4"},
            resource_names=frozenset({"cpu", "nvidia.com/gpu"}),
        ),
        Container(name=None, image=None, env={}, resource_names=frozenset()),
    )


def test_container_ports_are_read_leniently() -> None:
    obj = pod("p")
    obj["spec"]["containers"][0]["ports"] = [
        {"name": "metrics", "containerPort": 9400},
        {"containerPort": 8000, "name": ""},
        {"containerPort": "9400"},  # not an integer: skipped
        {"containerPort": 70000},
        "not an entry",
    ]
    assert _pod(obj).containers[0].ports == (ContainerPort(9400, "metrics"), ContainerPort(8000))


def test_limits_are_effective_and_lenient() -> None:
    obj = pod("p", requests={"cpu": "1"})
    obj["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "2"}
    obj["spec"]["initContainers"] = [{"name": "init", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]
    assert _pod(obj).limits == {"nvidia.com/gpu": Decimal(4)}
    obj["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "lots"}
    assert _pod(obj).limits == {}  # limits are only shown: a broken one does not refuse the pod


def test_container_statuses_init_first_with_finish_time() -> None:
    obj = pod(
        "p",
        container_statuses=[
            {"name": "main", "state": {"terminated": {"exitCode": 0, "finishedAt": "2026-11-28T09:00:00Z"}}},
            "not a status",
        ],
    )
    obj["status"]["initContainerStatuses"] = [
        {
            "name": "init",
            "ready": False,
            "restartCount": 2,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        }
    ]
    statuses = _pod(obj).container_statuses
    assert [(c.name, c.init, c.state, c.reason, c.restart_count) for c in statuses] == [
        ("init", True, "waiting", "CrashLoopBackOff", 2),
        ("main", False, "terminated", None, 0),
    ]
    assert statuses[1].finished_at == datetime(2026, 11, 28, 9, tzinfo=UTC)
    assert statuses[0].finished_at is None
    obj["status"]["containerStatuses"] = [{"name": "main", "state": "running"}]
    assert _pod(obj).container_statuses == ()  # the status is the API server's: read leniently


def test_node_affinity_is_parsed_once_into_the_pod() -> None:
    assert _pod(pod("plain")).node_affinity is NO_NODE_AFFINITY
    term = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    p = _pod(pod("p", affinity=affinity))
    assert p.node_affinity == NodeAffinity(True, (NodeSelectorTerm.from_dict(term),))
    broken = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "x"}]}}
    assert _pod(pod("p", affinity=broken)).node_affinity.preferred_error is not None  # kept, not raised


def test_termination_grace_period_seconds() -> None:
    obj = pod("p")
    assert _pod(obj).termination_grace_period_seconds is None
    obj["spec"]["terminationGracePeriodSeconds"] = 3600
    assert _pod(obj).termination_grace_period_seconds == 3600
    obj["spec"]["terminationGracePeriodSeconds"] = "3600"
    with pytest.raises(
        ModelError, match=r"Pod default/p spec.terminationGracePeriodSeconds must be an integer"
    ):
        parse_object(obj)


def test_deletion_timestamp_marks_the_object_deleting() -> None:
    obj = node("n1")
    parsed = parse_object(obj)
    assert isinstance(parsed, Node) and not parsed.meta.deleting
    obj["metadata"]["deletionTimestamp"] = "2026-11-28T09:00:00Z"
    parsed = parse_object(obj)
    assert isinstance(parsed, Node) and parsed.meta.deleting


def test_node_ephemeral_storage_as_reported() -> None:
    parsed = parse_object(node("n1", capacity={"cpu": "4", "ephemeral-storage": "83873772Ki"}))
    assert isinstance(parsed, Node)
    assert parsed.ephemeral_storage_text == "83873772Ki"
    assert parsed.capacity["ephemeral-storage"] == Decimal(83873772 * 1024)
    bare = parse_object(node("n2", capacity={"cpu": "4"}))
    assert isinstance(bare, Node) and bare.ephemeral_storage_text is None


def test_nodeclaim_last_pod_event() -> None:
    claim = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": "c1"},
        "status": {"lastPodEventTime": "2026-11-28T03:40:01Z"},
    }
    parsed = parse_object(claim)
    assert isinstance(parsed, NodeClaim)
    assert parsed.last_pod_event == datetime(2026, 11, 28, 3, 40, 1, tzinfo=UTC)


def test_node_classes_keep_size_text_user_data_and_ami_aliases() -> None:
    auto = {
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {"ephemeralStorage": {"size": "300Gi"}},
    }
    parsed = parse_object(auto)
    assert isinstance(parsed, NodeClass)
    assert (parsed.ephemeral_storage_text, parsed.ephemeral_storage_size) == ("300Gi", Decimal(300 * 2**30))
    assert (parsed.user_data, parsed.ami_aliases) == (None, ())
    ec2 = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {
            "userData": "mdadm --create /dev/md0",
            "amiSelectorTerms": [{"alias": "al2023@latest"}, {"id": "ami-0123"}, "junk"],
        },
    }
    parsed = parse_object(ec2)
    assert isinstance(parsed, NodeClass)
    assert (parsed.user_data, parsed.ami_aliases) == ("mdadm --create /dev/md0", ("al2023@latest",))
    ec2["spec"]["amiSelectorTerms"] = {"alias": "al2023@latest"}
    with pytest.raises(ModelError, match=r"EC2NodeClass gpu spec.amiSelectorTerms must be a list"):
        parse_object(ec2)


def test_pod_details_are_read_once_on_first_use() -> None:
    p = _pod(pod("p", container_statuses=[{"name": "main", "state": {"running": {}}}]))
    assert p.container_statuses is p.container_statuses
    assert p.containers is p.containers
    assert p.limits is p.limits
    assert not hasattr(p, "raw") and not hasattr(p, "spec")  # the object itself is not kept
