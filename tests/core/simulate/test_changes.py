"""The change engine's patches: kubectl's strategic merge keys, RFC 7386 and RFC 6902."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.changes import json_merge, json_patch, strategic_merge
from kubectl_gpu.core.changes.patches import PatchFailed

POD: dict[str, Any] = {
    "spec": {
        "containers": [
            {"name": "a", "image": "x:1", "env": [{"name": "K", "value": "1"}]},
            {"name": "b", "image": "y:1"},
        ],
        "tolerations": [{"key": "t1", "operator": "Exists"}],
    }
}


def test_strategic_merge_merges_containers_by_name_and_replaces_tolerations() -> None:
    patch = {
        "spec": {
            "containers": [{"name": "a", "image": "x:2", "env": [{"name": "J", "value": "2"}]}],
            "tolerations": [{"key": "t2", "operator": "Exists"}],
        }
    }
    out = strategic_merge(POD, patch)
    a, b = out["spec"]["containers"]
    assert a["image"] == "x:2" and [e["name"] for e in a["env"]] == ["K", "J"]
    assert b == {"name": "b", "image": "y:1"}
    assert out["spec"]["tolerations"] == [{"key": "t2", "operator": "Exists"}]
    assert POD["spec"]["containers"][0]["image"] == "x:1"  # the input is not changed


def test_strategic_merge_directives() -> None:
    deleted = strategic_merge(POD, {"spec": {"containers": [{"name": "b", "$patch": "delete"}]}})
    assert [c["name"] for c in deleted["spec"]["containers"]] == ["a"]
    replaced = strategic_merge(POD, {"spec": {"$patch": "replace", "containers": []}})
    assert replaced["spec"] == {"containers": []}
    assert "tolerations" not in strategic_merge(POD, {"spec": {"tolerations": None}})["spec"]
    with pytest.raises(PatchFailed, match="merge key"):
        strategic_merge(POD, {"spec": {"containers": [{"image": "z"}]}})


def test_json_merge_and_json_patch() -> None:
    assert json_merge({"a": {"b": 1, "c": 2}}, {"a": {"b": None, "d": 3}}) == {"a": {"c": 2, "d": 3}}
    assert json_merge({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}
    out = json_patch(POD, [{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "t3"}}])
    assert out["spec"]["tolerations"][-1] == {"key": "t3"}
    with pytest.raises(PatchFailed):
        json_patch(POD, [{"op": "test", "path": "/spec/tolerations/0/key", "value": "nope"}])
    with pytest.raises(PatchFailed):
        json_patch(POD, {"op": "add"})
