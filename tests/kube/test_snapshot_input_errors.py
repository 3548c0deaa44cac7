"""Snapshot inputs we refuse rather than guess at (issue 8, item 10): YAML that names a key twice, and
files of several clusters in one --snapshot."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
import yaml

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot, load_text, write_bundle
from kubectl_gpu.kube.yaml_input import DuplicateKeyError, safe_load
from tests.helpers import as_list, node

POD_WITH_TWO_NODE_NAMES = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  nodeName: gpu-a
  containers:
  - name: main
    image: cuda
  nodeName: gpu-b
"""


def test_duplicate_key_in_snapshot_yaml_names_file_key_and_lines(tmp_path: Path) -> None:
    path = tmp_path / "pods.yaml"
    path.write_text(POD_WITH_TWO_NODE_NAMES)
    with pytest.raises(InvalidInput) as info:
        load_snapshot([path])
    line = info.value.line()
    assert str(path) in line
    assert "duplicate key 'nodeName'" in line
    assert "line 11" in line and "line 7" in line
    assert "\n" not in line


def test_duplicate_key_in_a_later_document_and_from_stdin() -> None:
    text = "kind: List\nitems: []\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a, name: b}\n"
    with pytest.raises(InvalidInput, match=r"<stdin>: duplicate key 'name' at line 6"):
        load_text(text)


def test_duplicate_top_level_kind() -> None:
    with pytest.raises(InvalidInput, match="duplicate key 'kind'"):
        load_text("apiVersion: v1\nkind: Node\nmetadata: {name: a}\nkind: Pod\n", "x.yaml")


def test_merge_keys_may_be_overridden() -> None:
    """`<<: *base` then a key of the merged mapping is YAML's way to override, not a duplicate."""
    text = (
        "base: &base {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
        "kind: List\n"
        "items:\n"
        "- <<: *base\n"
        "  metadata: {name: b}\n"
    )
    assert [n.name for n in load_text(text).nodes] == ["b"]


def test_same_key_in_different_mappings_is_fine() -> None:
    text = "kind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n- {apiVersion: v1, kind: Node, metadata: {name: b}}\n"
    assert sorted(n.name for n in load_text(text).nodes) == ["a", "b"]


def test_keys_of_different_types_are_distinct_and_equal_values_are_not() -> None:
    assert safe_load('{"1": a, 1: b, "null": c, null: d}') == {"1": "a", 1: "b", "null": "c", None: "d"}
    with pytest.raises(DuplicateKeyError, match="duplicate key 1 at line 2"):
        safe_load("1: a\n0x1: b\n")  # the same int, written twice


def test_unhashable_keys_are_left_to_pyyaml() -> None:
    with pytest.raises(yaml.YAMLError, match="unhashable"):
        safe_load("? [a]\n: b\n")


# --- one --snapshot, one cluster ------------------------------------------------------------------------


def _bundle(path: Path, context: str | None, *objects: dict[str, object]) -> Path:
    bundle = build_bundle(
        list(objects), captured_at=datetime(2026, 1, 1, tzinfo=UTC), context=context, notes=[], absent=[]
    )
    write_bundle(bundle, path)
    return path


def test_directory_with_bundles_of_two_contexts_is_refused(tmp_path: Path) -> None:
    a = _bundle(tmp_path / "a.json", "prod", node("n1"))
    b = _bundle(tmp_path / "b.json", "staging", node("n2"))
    with pytest.raises(InvalidInput) as info:
        load_snapshot([tmp_path])
    line = info.value.line()
    assert str(a) in line and str(b) in line and "'prod'" in line and "'staging'" in line
    assert "one cluster's files (or one bundle) at a time" in line
    assert info.value.exit_code == 2


def test_two_bundles_of_two_contexts_named_one_by_one_are_refused(tmp_path: Path) -> None:
    a = _bundle(tmp_path / "a.json", "prod", node("n1"))
    b = _bundle(tmp_path / "b.json", "staging", node("n2"))
    with pytest.raises(InvalidInput, match="'staging'"):
        load_snapshot([a, b])


def test_two_contexts_in_one_multi_document_stream_are_refused(tmp_path: Path) -> None:
    docs = [
        build_bundle([], captured_at=datetime(2026, 1, 1, tzinfo=UTC), context=c, notes=[], absent=[])
        for c in ("prod", "staging")
    ]
    with pytest.raises(InvalidInput, match=r"<stdin>.*'prod'.*'staging'"):
        load_text(yaml.safe_dump_all(docs))


def test_same_context_and_plain_lists_merge(tmp_path: Path) -> None:
    _bundle(tmp_path / "a.json", "prod", node("n1"))
    _bundle(tmp_path / "b.json", "prod", node("n2"))
    _bundle(tmp_path / "c.json", None, node("n3"))  # a bundle that names no context conflicts with none
    (tmp_path / "d.json").write_bytes(orjson.dumps(as_list(node("n4"))))  # kubectl get -o json: no context
    state = load_snapshot([tmp_path])
    assert sorted(n.name for n in state.nodes) == ["n1", "n2", "n3", "n4"]
    assert state.context == "prod"


def test_a_huge_yaml_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Issue 21 item 7: a 2 GB YAML snapshot was read whole into memory before it failed. A sparse file:
    2 GiB long, a few bytes on disk."""
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.write(b"apiVersion: v1\nkind: List\nitems:\n")
        handle.truncate(2 * 1024**3)
    with pytest.raises(InvalidInput, match=r"YAML of 2\.0 GiB is too big to read \(over 512 MiB"):
        load_snapshot([path])
    # JSON of any size is read as before (a stream for our bundles): only YAML is bounded.
    small = tmp_path / "nodes.yaml"
    small.write_text(yaml.safe_dump(as_list([node("n1")])))
    assert [n.name for n in load_snapshot([small]).nodes] == ["n1"]
