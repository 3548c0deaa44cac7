"""`is_deleting`: Karpenter's `StateNode.MarkedForDeletion`, read from a node and its NodeClaim."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import Node, NodeClaim
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.karpenter.lifecycle import instance_terminating, is_deleting
from tests.helpers import node

DELETED = "2026-11-28T09:00:00Z"


def _node(*, deleted: bool = False, taint: str | None = None) -> Node:
    obj = node("i-0abc", taints=[{"key": taint, "effect": "NoSchedule"}] if taint else None)
    if deleted:
        obj["metadata"]["deletionTimestamp"] = DELETED
    parsed = parse_object(obj)
    assert isinstance(parsed, Node)
    return parsed


def _claim(*, deleted: bool = False, terminating: str | None = None) -> NodeClaim:
    obj: dict[str, Any] = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": "gpu-abcde"},
        "status": {"nodeName": "i-0abc", "conditions": []},
    }
    if deleted:
        obj["metadata"]["deletionTimestamp"] = DELETED
    if terminating is not None:
        obj["status"]["conditions"].append({"type": "InstanceTerminating", "status": terminating})
    parsed = parse_object(obj)
    assert isinstance(parsed, NodeClaim)
    return parsed


@pytest.mark.parametrize(
    ("node_", "claim", "deleting"),
    [
        (_node(), None, False),
        (_node(), _claim(), False),
        (_node(deleted=True), None, True),  # no NodeClaim: the Node's deletionTimestamp
        (_node(), _claim(deleted=True), True),  # a NodeClaim: its deletionTimestamp
        (_node(), _claim(terminating="True"), True),  # ... or its InstanceTerminating condition
        (_node(), _claim(terminating="False"), False),
        (_node(taint="karpenter.sh/disrupted"), _claim(), True),  # marked for deletion by disruption
        (_node(taint="karpenter.sh/unregistered"), None, False),
        (_node(deleted=True), _claim(), True),  # the finalizer deletes the NodeClaim next (see module)
    ],
)
def test_is_deleting(node_: Node, claim: NodeClaim | None, deleting: bool) -> None:
    assert is_deleting(node_, claim) is deleting


def test_instance_terminating() -> None:
    assert instance_terminating(_claim(terminating="True"))
    assert not instance_terminating(_claim(terminating="Unknown"))
    assert not instance_terminating(None)
