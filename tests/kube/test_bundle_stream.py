"""A bundle in `write_bundle`'s layout is read one object at a time (`kube/bundle_stream.py`, issue 13):
the same ClusterState as the whole-file read, the same one-line errors, and anything else read whole."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from kubectl_gpu.core.clusters import SeveralClusters
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube import bundle_stream, snapshot
from kubectl_gpu.kube.bundle_stream import open_bundle
from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot, write_bundle
from tests.helpers import REPO, as_list, node, pod

DEMO = REPO / "examples" / "automode-gpu-demo.json"
ODD = '}\n    },\n    {\n  ]\n}\n \\n    } ü—🙂 {"kind": "Pod"} [[\t'  # layout lines, escaped in JSON


def _whole(monkeypatch: pytest.MonkeyPatch, paths: list[Path], **options: Any) -> ClusterState:
    """Today's read: every file parsed whole."""
    with monkeypatch.context() as patch:
        patch.setattr(snapshot, "open_bundle", lambda path: None)
        return load_snapshot(paths, **options)


def _streamed(monkeypatch: pytest.MonkeyPatch, paths: list[Path], **options: Any) -> ClusterState:
    """The streamed read, proved so: a whole-file read fails the test."""

    def whole_read(path: Path) -> list[Any]:
        raise AssertionError(f"{path} was read whole")

    with monkeypatch.context() as patch:
        for reader in ("read_documents", "read_file"):  # every whole-file read `snapshot` makes
            patch.setattr(snapshot, reader, whole_read)
        return load_snapshot(paths, **options)


def _pods(state: ClusterState) -> list[Pod]:
    return [*state.pods, *(d.pod for d in state.daemonsets)]


def _assert_same(streamed: ClusterState, whole: ClusterState) -> None:
    assert streamed == whole
    assert [(p.limits, p.containers, p.container_statuses) for p in _pods(streamed)] == [
        (p.limits, p.containers, p.container_statuses) for p in _pods(whole)
    ]


def _error(paths: list[Path], monkeypatch: pytest.MonkeyPatch | None = None) -> str:
    with pytest.raises(InvalidInput) as info:
        if monkeypatch is None:
            load_snapshot(paths)
        else:
            _whole(monkeypatch, paths)
    line = info.value.line()
    assert "\n" not in line
    return line


def _odd_objects() -> list[dict[str, Any]]:
    """Objects whose strings hold every line of the layout, braces and unicode, a List, an unknown kind
    larger than a small read, deep nesting, a DaemonSet's pod template and pods of every detail."""
    gpu = node("gpu-1", labels={"note": ODD, "ключ": "значение 🙂"}, capacity={"nvidia.com/gpu": "8"})
    trainer = pod(
        "trainer",
        "ml",
        node_name="gpu-1",
        requests={"nvidia.com/gpu": "8"},
        annotations={"odd": ODD, "{": "}"},
        env=[{"name": "A", "value": ODD}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
        init_requests=[{"cpu": "1"}],
        container_statuses=[
            {"name": "main", "ready": True, "restartCount": 3, "state": {"running": {"startedAt": ODD}}}
        ],
    )
    trainer["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "8"}
    trainer["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "big", "namespace": "ml"},
        "data": {f"k{i}": ODD * 20 for i in range(50)},
        "deep": {"a": [{"b": [{"c": {"d": [[[[{"e": ODD}]]]]}}]}]},
    }
    daemonset = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "dcgm", "namespace": "gpu"},
        "spec": {"template": {"metadata": {}, "spec": pod("x", env=[{"name": "C"}])["spec"]}},
    }
    listed = as_list(node("cpu-1"), pod("web", node_name="cpu-1"))
    return [gpu, trainer, config, listed, daemonset, node("cpu-2", labels={"empty": ""})]


def _bundle(path: Path, objects: list[Any], *, context: str = "prod", **extra: Any) -> Path:
    bundle = build_bundle(
        objects,
        captured_at=datetime(2026, 11, 28, 9, tzinfo=UTC),
        context=context,
        notes=[{"code": "FORBIDDEN", "message": ODD, "kind": "nodeclaims"}],
        absent=["ec2nodeclasses"],
        probes={"gpu-1": {"output": ODD * 3, "nested": {"x": [{"y": "}"}]}}},
    )
    write_bundle({**bundle, **extra}, path)
    return path


def test_demo_bundle_streamed_is_the_whole_read(monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_same(_streamed(monkeypatch, [DEMO]), _whole(monkeypatch, [DEMO]))


@pytest.mark.parametrize("chunk", [1, 7, 300, 4096, 1 << 20])
def test_odd_bundle_streamed_is_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Reads of every size: blocks cut at every point by the buffer, and blocks longer than a read."""
    path = _bundle(tmp_path / "odd.json", _odd_objects())
    monkeypatch.setattr(bundle_stream, "_CHUNK", chunk)
    streamed = _streamed(monkeypatch, [path])
    _assert_same(streamed, _whole(monkeypatch, [path]))
    assert streamed.nodes[0].labels["note"] == ODD and streamed.probes["gpu-1"]["output"] == ODD * 3
    assert {p.name for p in streamed.pods} == {"trainer", "web"}


def test_manifests_streamed_are_the_objects_as_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _bundle(tmp_path / "odd.json", _odd_objects())
    streamed = _streamed(monkeypatch, [path], keep_manifests=True)
    _assert_same(streamed, _whole(monkeypatch, [path], keep_manifests=True))
    trainer = streamed.manifest("Pod", "trainer", "ml")
    assert trainer is not None and trainer["spec"]["containers"][0]["volumeMounts"][0]["name"] == "data"


def test_streamed_head_and_objects_are_the_parsed_file(tmp_path: Path) -> None:
    path = _bundle(tmp_path / "odd.json", _odd_objects())
    whole = orjson.loads(path.read_bytes())
    stream = open_bundle(path)
    assert stream is not None
    assert stream.head == {k: v for k, v in whole.items() if k != "objects"}
    assert list(stream) == whole["objects"]


def _variants(path: Path) -> dict[str, bytes]:
    data = path.read_bytes()
    parsed = orjson.loads(data)
    reordered = {"objects": parsed["objects"], **{k: v for k, v in parsed.items() if k != "objects"}}
    probes_last = {**{k: v for k, v in parsed.items() if k != "probes"}, "probes": parsed["probes"]}
    return {
        "compact": orjson.dumps(parsed),
        "objects first": orjson.dumps(reordered, option=orjson.OPT_INDENT_2) + b"\n",
        "a key after objects": orjson.dumps(probes_last, option=orjson.OPT_INDENT_2) + b"\n",
        "crlf": data.replace(b"\n", b"\r\n"),
        "no final newline": data[:-1],
        "trailing spaces": data + b"  \n",
        "indent 4": orjson.dumps(parsed, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n  ") + b"\n",
        "empty objects": orjson.dumps({**parsed, "objects": []}, option=orjson.OPT_INDENT_2) + b"\n",
    }


@pytest.mark.parametrize(
    "variant",
    [
        "compact",
        "objects first",
        "a key after objects",
        "crlf",
        "no final newline",
        "trailing spaces",
        "indent 4",
        "empty objects",
    ],
)
def test_other_layouts_are_read_whole_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    path = tmp_path / "v.json"
    path.write_bytes(_variants(_bundle(tmp_path / "odd.json", _odd_objects()))[variant])
    _assert_same(load_snapshot([path]), _whole(monkeypatch, [path]))


def test_plain_kubectl_output_is_not_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a List laid out as our bundle is, ending as it ends (its `items` last), is read whole."""
    path = tmp_path / "list.json"
    path.write_bytes(orjson.dumps(as_list(node("a"), node("b")), option=orjson.OPT_INDENT_2) + b"\n")
    assert path.read_bytes().endswith(b"\n    }\n  ]\n}\n")
    assert open_bundle(path) is None
    _assert_same(load_snapshot([path]), _whole(monkeypatch, [path]))
    assert [n.name for n in load_snapshot([path]).nodes] == ["a", "b"]


def _cuts(data: bytes) -> list[int]:
    """Where to truncate: inside the head, at and around block boundaries, inside a block, in the tail."""
    first = data.index(b'  "objects": [')
    boundary = data.index(b"\n    },\n") + len(b"\n    },\n")
    middle = data.index(b'"kind": "ConfigMap"')
    return [first // 2, first + 5, boundary - 2, boundary, boundary + 3, middle, len(data) - 4, len(data) - 2]


def test_truncated_bundle_gives_todays_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _bundle(tmp_path / "odd.json", _odd_objects()).read_bytes()
    path = tmp_path / "cut.json"
    for cut in _cuts(data):
        path.write_bytes(data[:cut])
        line = _error([path])
        assert line == _error([path], monkeypatch), cut
        assert f"{path}: not valid JSON (" in line and "is the input truncated?" in line


def _malformed(data: bytes) -> dict[str, bytes]:
    """Bundles whose head and tail are intact but whose objects are not all readable."""
    deep = b"[" * 1030 + b"]" * 1030
    almost = b"[" * 1022 + b"]" * 1022  # fine in a block alone, one level too deep in the whole file
    return {
        "bad value": data.replace(b'"name": "trainer"', b'"name": trainer', 1),
        "missing comma": data.replace(b"\n    },\n    {", b"\n    }\n    {", 1),
        "too deep": data.replace(b'"deep": {', b'"deep": ' + deep + b', "x": {', 1),
        "deep at the limit": data.replace(b'"deep": {', b'"deep": ' + almost + b', "x": {', 1),
        "bad quantity": data.replace(b'"nvidia.com/gpu": "8"', b'"nvidia.com/gpu": "eight"', 1),
        "no kind": data.replace(b'"kind": "ConfigMap"', b'"kinds": "ConfigMap"', 1),
        "not an object": data.replace(b"\n    },\n    {", b'\n    },\n    "text",\n    {', 1),
        "bad version": data.replace(b'"kubectl-gpu/v1"', b'"kubectl-gpu/v9"', 1),
        "bad version, bad value": data.replace(b'"kubectl-gpu/v1"', b'"kubectl-gpu/v9"', 1).replace(
            b'"name": "trainer"', b'"name": trainer', 1
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "bad value",
        "missing comma",
        "too deep",
        "deep at the limit",
        "bad quantity",
        "no kind",
        "not an object",
        "bad version",
        "bad version, bad value",
    ],
)
def test_malformed_object_gives_todays_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    good = _bundle(tmp_path / "good.json", [node("n0")])
    path = tmp_path / "bad.json"
    path.write_bytes(_malformed(_bundle(tmp_path / "odd.json", _odd_objects()).read_bytes())[case])
    assert _error([good, path]) == _error([good, path], monkeypatch)


def test_malformed_deep_object_is_todays_json_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(
        _malformed(_bundle(tmp_path / "odd.json", _odd_objects()).read_bytes())["deep at the limit"]
    )
    assert "JSON nested too deeply" in _error([path])


def test_a_later_bundle_read_whole_after_a_streamed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that is not streamable is read whole; the streamed ones before it are not read again."""
    first = _bundle(tmp_path / "a.json", [node("a")])
    second = tmp_path / "b.json"
    second.write_bytes(_variants(_bundle(tmp_path / "odd.json", _odd_objects()))["compact"])
    _assert_same(load_snapshot([first, second]), _whole(monkeypatch, [first, second]))


def test_several_clusters_are_grouped_from_the_heads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = _bundle(tmp_path / "one.json", _odd_objects(), context="one")
    two = _bundle(tmp_path / "two.json", [node("b")], context="two")
    again = _bundle(tmp_path / "again.json", [node("c")], context="one")
    paths = [one, two, again]
    with pytest.raises(SeveralClusters) as streamed:
        _streamed(monkeypatch, paths)
    with pytest.raises(SeveralClusters) as whole:
        _whole(monkeypatch, paths)
    assert streamed.value.line() == whole.value.line()
    assert streamed.value.groups == whole.value.groups
    assert streamed.value.groups == (("one", (str(one), str(again))), ("two", (str(two),)))
