"""shapes.py: a shape key that tells apart any two pods the analysis could answer differently, and owners."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending.shapes import Owner, owner_key, shape_key
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from tests.helpers import pod


def _pod(obj: dict[str, Any]) -> Pod:
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    return parsed


def _owned(kind: str, name: str, labels: dict[str, str] | None = None) -> Pod:
    obj = pod("p-0", "ml", phase="Pending", labels=labels)
    obj["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": kind, "name": name, "uid": "u"}]
    return _pod(obj)


@pytest.mark.parametrize(
    ("kind", "name", "labels", "owner"),
    [
        ("Job", "train", None, Owner("ml", "Job", "train")),
        ("ReplicaSet", "serve-7d9f8", {"pod-template-hash": "7d9f8"}, Owner("ml", "Deployment", "serve")),
        ("ReplicaSet", "serve-7d9f8", None, Owner("ml", "ReplicaSet", "serve-7d9f8")),
        (
            "StatefulSet",
            "db",
            {"statefulset.kubernetes.io/pod-name": "db-0"},
            Owner("ml", "StatefulSet", "db"),
        ),
        (
            "StatefulSet",
            "llm-0",
            {"leaderworkerset.sigs.k8s.io/name": "llm"},
            Owner("ml", "LeaderWorkerSet", "llm"),
        ),
    ],
)
def test_owner_key(kind: str, name: str, labels: dict[str, str] | None, owner: Owner) -> None:
    assert owner_key(_owned(kind, name, labels)) == owner


def test_a_bare_pod_has_no_owner() -> None:
    assert owner_key(_pod(pod("p-0", "ml", phase="Pending"))) is None


def test_replicas_share_a_shape_key_and_names_do_not_count() -> None:
    a = _pod(
        pod("a", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}, created="2026-11-28T08:00:00Z")
    )
    b = _pod(
        pod("b", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}, created="2026-11-28T07:00:00Z")
    )
    assert shape_key(a) == shape_key(b)
    hash(shape_key(a))
