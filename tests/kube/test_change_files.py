"""`simulate`'s inputs: files, directories, Lists, patches and deletions read into changes, or exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_gpu.core.changes import ChangeError
from kubectl_gpu.kube.change_files import read_changes

POOL = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec: {limits: {nvidia.com/gpu: '8'}}\n"
DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"


def test_a_directory_of_documents_and_a_list(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(POOL + "---\n" + DEPLOY)
    (tmp_path / "b.json").write_text(
        '{"kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}'
    )
    (tmp_path / "notes.txt").write_text("ignored")
    changes = read_changes([str(tmp_path)], ["deploy/ml/train", "nodeclass/old"], namespace="serving")
    assert [(c.action, c.kind, c.namespace, c.name) for c in changes] == [
        ("apply", "NodePool", None, "gpu"),
        ("apply", "Deployment", "serving", "web"),
        ("apply", "Pod", "serving", "p"),
        ("delete", "Deployment", "ml", "train"),
        ("delete", "NodeClass", None, "old"),
    ]
    assert changes[0].source.endswith("a.yaml (document 1)")


def test_patches_name_their_target(tmp_path: Path) -> None:
    ops = tmp_path / "ops.json"
    ops.write_text('[{"op": "remove", "path": "/spec/limits"}]')
    (change,) = read_changes([str(ops)], patch_type="json", target="nodepools/gpu")
    assert (change.action, change.kind, change.name, change.patch_type) == (
        "patch",
        "NodePool",
        "gpu",
        "json",
    )
    with pytest.raises(ChangeError, match="a json patch names no object") as refused:
        read_changes([str(ops)], patch_type="json")
    assert "--target" in (refused.value.hint or "")
    merge = tmp_path / "m.yaml"
    merge.write_text("kind: NodePool\nmetadata: {name: gpu}\nspec: {weight: 5}\n")
    assert read_changes([str(merge)], patch_type="merge")[0].body == {
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {"weight": 5},
    }


def test_bad_input_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: 1\na: 2\n")
    with pytest.raises(ChangeError, match=r"bad\.yaml: does not parse: .*duplicate key"):
        read_changes([str(bad)])
    svc = tmp_path / "svc.yaml"
    svc.write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    with pytest.raises(ChangeError, match='resource type "Service"'):
        read_changes([str(svc)])
    with pytest.raises(ChangeError, match="does not exist"):
        read_changes([str(tmp_path / "nope.yaml")])
    with pytest.raises(ChangeError, match="no change to simulate"):
        read_changes([])
    with pytest.raises(ChangeError, match="not KIND/NAME"):
        read_changes([], ["nodepool"])
