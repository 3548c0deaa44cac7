"""A large `kind: List` is decoded to the fields the parsers read (`snapshot_decode._parts_read`, issue 22):
the loaded state is the one the whole-file parse gives, and anything the decode does not take (another kind,
a key a NodePool should not have, invalid or too deeply nested JSON) is read whole, with the same answer or
the same error as before. The TUI, which keeps every object for its YAML view, still gets them whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.parse import KINDS, kind_of
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube import snapshot_decode
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.k8s.test_fields import OBJECTS

#: Every object the tests hold of a kind we parse, plus two kinds read as skipped.
ITEMS: list[dict[str, Any]] = [o for o in OBJECTS if kind_of(o) in KINDS] + [
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "x"},
        "data": {"a": "b"},
    },
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1}},
]


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every input of any size goes to the decode; whether each call took the file (True) or left it."""
    calls: list[bool] = []
    real = snapshot_decode._parts_read

    def spy(data: bytes) -> dict[str, Any] | None:
        found = real(data)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(snapshot_decode, "PARTS_READ_FROM", 0)
    monkeypatch.setattr(snapshot_decode, "_parts_read", spy)
    return calls


def _write(tmp_path: Path, items: list[Any], **extra: Any) -> Path:
    path = tmp_path / "list.json"
    path.write_bytes(orjson.dumps({"apiVersion": "v1", "items": items, "kind": "List", **extra}))
    return path


def _whole(path: Path, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> ClusterState:
    with monkeypatch.context() as patch:
        patch.setattr(snapshot_decode, "PARTS_READ_FROM", 1 << 62)
        return load_snapshot([path], **kwargs)


def _models(state: ClusterState) -> dict[str, str]:
    """Every kind's models and the notes, as text (a model's repr is every field it has)."""
    kinds = ("nodes", "pods", "events", "nodepools", "nodeclaims", "nodeclasses", "resourceslices")
    out = {kind: repr(getattr(state, kind)) for kind in (*kinds, "legacy_karpenter", "storageclasses")}
    out["notes"] = repr(state.notes)
    out["details"] = repr([(p.limits, p.containers, p.container_statuses) for p in state.pods])
    return out


def test_a_list_of_every_kind_loads_as_it_does_whole(
    tmp_path: Path, decoded: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, ITEMS)
    state = load_snapshot([path])
    assert decoded == [True]
    assert _models(state) == _models(_whole(path, monkeypatch))
    assert len(state.pods) > 100 and len(state.nodepools) > 10


@pytest.mark.parametrize(
    "odd",
    [
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},  # a kind not listed
        {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"}, "specs": {}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": "not an object"},
        {"apiVersion": "v1", "metadata": {"name": "no-kind"}},
    ],
    ids=["unknown-kind", "nodepool-unknown-key", "pod-spec-not-object", "no-kind"],
)
def test_a_list_the_decode_does_not_take_is_read_whole(
    tmp_path: Path, decoded: list[bool], monkeypatch: pytest.MonkeyPatch, odd: dict[str, Any]
) -> None:
    """The same models, or the same error, as the whole-file read: a NodePool's unknown key still reaches
    lint (its field paths), an unknown kind is still counted as skipped."""
    path = _write(tmp_path, [*ITEMS[:50], odd])
    try:
        expected: Any = _models(_whole(path, monkeypatch))
    except InvalidInput as exc:
        expected = exc.line()
    try:
        got: Any = _models(load_snapshot([path]))
    except InvalidInput as exc:
        got = exc.line()
    assert decoded == [False]
    assert got == expected


def test_a_nodepool_keeps_every_field_path(
    tmp_path: Path, decoded: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lint reads every field a NodePool has (unknown ones are its findings): none is dropped."""
    pool = next(o for o in ITEMS if o["kind"] == "NodePool" and "status" in o)
    path = _write(tmp_path, [pool])
    (read,) = load_snapshot([path]).nodepools
    assert decoded == [True]
    assert read.field_paths == _whole(path, monkeypatch).nodepools[0].field_paths
    assert len(read.field_paths) > 20 and ".spec.template.spec.requirements[].values" in read.field_paths


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"apiVersion": "v1", "items": [{"kind": "Pod", "metadata": {"name": "a"}}', "not valid JSON"),
        (b'{"items": ' + b"[" * 3000 + b"]" * 3000 + b', "kind": "List"}', "nested too deeply"),
        (b'{"items": [{"kind": "Pod", "metadata": {"name": "\\ud800"}}], "kind": "List"}', "not valid JSON"),
    ],
    ids=["truncated", "deep", "lone-surrogate"],
)
def test_invalid_json_is_refused_in_the_words_of_the_whole_read(
    tmp_path: Path, decoded: list[bool], data: bytes, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(InvalidInput) as info:
        load_snapshot([path])
    assert words in info.value.line()
    assert decoded == [False]


@pytest.mark.parametrize("where", ["tolerations", "resources", "claim conditions", "claim requirements"])
def test_a_number_orjson_refuses_in_a_part_kept_as_text_is_refused_as_the_whole_read_does(
    tmp_path: Path, decoded: list[bool], where: str
) -> None:
    """The decode keeps a pod's template parts and a NodeClaim's requirements and conditions as text
    without reading their numbers: one out of a double's range (1e400) is then found where the part is
    read, and the file is read whole, which refuses it in orjson's words (not an internal error)."""
    pod = next(o for o in ITEMS if o["kind"] == "Pod" and o["spec"].get("tolerations"))
    claim = next(o for o in ITEMS if o["kind"] == "NodeClaim" and o.get("status", {}).get("conditions"))
    marked = orjson.loads(orjson.dumps(claim if where.startswith("claim") else pod))
    if where == "tolerations":
        marked["spec"]["tolerations"][0]["tolerationSeconds"] = "HUGE"
    elif where == "resources":
        marked["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "HUGE"}}
    elif where == "claim conditions":
        marked["status"]["conditions"][0]["observedGeneration"] = "HUGE"
    else:
        marked["spec"]["requirements"] = [{"key": "k", "operator": "Gt", "values": ["1"], "minValues": "HUGE"}]
    marked["metadata"]["name"] = "marked"
    data = orjson.dumps({"apiVersion": "v1", "items": [*ITEMS, marked], "kind": "List"})
    path = tmp_path / "huge.json"
    path.write_bytes(data.replace(b'"HUGE"', b"1e400"))
    with pytest.raises(InvalidInput) as info:
        load_snapshot([path])
    assert "not valid JSON (number is infinity" in info.value.line()
    assert decoded == [True]  # read to its parts once; then whole, past the decode


def test_kept_manifests_are_the_objects_whole(
    tmp_path: Path, decoded: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI's YAML view shows what was read, not what the parsers look at: each object is read whole
    from the input's bytes when it is first asked for, and is the object the whole-file read keeps."""
    path = _write(tmp_path, ITEMS)
    state = load_snapshot([path], keep_manifests=True)
    assert decoded == [True]
    whole = _whole(path, monkeypatch, keep_manifests=True)
    assert list(state.manifests) == list(whole.manifests)
    pod = next(o for o in ITEMS if o["kind"] == "Pod" and o["spec"]["containers"][0].get("volumeMounts"))
    key = ("Pod", pod["metadata"].get("namespace", "default"), pod["metadata"]["name"])
    assert state.manifests[key] == whole.manifests[key]
    assert state.manifests[key]["spec"]["containers"][0]["volumeMounts"]
    assert dict(state.manifests) == dict(whole.manifests)


def test_small_files_are_parsed_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below `PARTS_READ_FROM` the decoder's import would cost more than it saves."""
    calls: list[bytes] = []
    monkeypatch.setattr(snapshot_decode, "_parts_read", lambda data: calls.append(data))
    load_snapshot([_write(tmp_path, ITEMS[:5])])
    assert calls == []
