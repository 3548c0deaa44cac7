"""The snapshot source: plain kubectl output, our bundle, directories, YAML, and every kind of bad input."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
import yaml

from kubectl_gpu.core.errors import ExitCode, InvalidInput
from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot, redact, write_bundle
from tests.helpers import FIXTURES, as_list, node, pod


def _write(path: Path, data: object) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


def test_plain_kubectl_list(tmp_path: Path) -> None:
    f = _write(tmp_path / "get.json", as_list(node("n1"), pod("p1", node_name="n1")))
    state = load_snapshot([f])
    assert [n.name for n in state.nodes] == ["n1"]
    assert [p.name for p in state.pods] == ["p1"]
    assert state.captured_at is None


def test_a_json_list_is_let_go_of_as_it_is_read(tmp_path: Path) -> None:
    """A JSON tree is the loader's own: each entry is dropped from its list once its model is built (freed
    while in cache); the models are what they were."""
    from kubectl_gpu.kube import snapshot

    tree = as_list(node("n1"), pod("p1", node_name="n1"), as_list(pod("p2")))
    read = [obj["metadata"]["name"] for obj in snapshot._objects(tree, "get.json", "", release=True)]
    assert read == ["n1", "p1", "p2"]
    assert tree["items"] == [None, None, None]
    f = _write(tmp_path / "get.json", as_list(node("n1"), pod("p1", node_name="n1")))
    states = [load_snapshot([f]), snapshot.load_text(f.read_text()), load_snapshot([_yaml(tmp_path, f)])]
    assert [(s.nodes, s.pods) for s in states[1:]] == [(states[0].nodes, states[0].pods)] * 2
    assert len(states[0].pods) == 1


def _yaml(tmp_path: Path, json_file: Path) -> Path:
    path = tmp_path / "get.yaml"
    path.write_text(yaml.safe_dump(orjson.loads(json_file.read_bytes())))
    return path


def test_yaml_aliases_are_read_where_each_appears(tmp_path: Path) -> None:
    """YAML may share one node in two places (an alias): it is not taken apart as it is read, so the second
    place reads what the first did (here: the same List twice, its node defined twice)."""
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- &nodes {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Node, metadata: {name: n1}}]}\n"
        "- *nodes\n"
    )
    (tmp_path / "twice.yaml").write_text(text)
    state = load_snapshot([tmp_path / "twice.yaml"])
    assert [n.name for n in state.nodes] == ["n1"]
    assert [d.sources for d in state.duplicates] == [(str(tmp_path / "twice.yaml"),) * 2]


def test_typed_list_items_without_kind(tmp_path: Path) -> None:
    item = node("n1")
    del item["kind"], item["apiVersion"]
    f = _write(tmp_path / "nodes.json", {"apiVersion": "v1", "kind": "NodeList", "items": [item]})
    assert [n.name for n in load_snapshot([f]).nodes] == ["n1"]


def test_directory_of_json_and_multidoc_yaml(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", as_list(node("n1")))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump_all([pod("p1"), pod("p2")]))
    (tmp_path / "README.txt").write_text("ignored")
    state = load_snapshot([tmp_path])
    assert len(state.nodes) == 1 and sorted(p.name for p in state.pods) == ["p1", "p2"]


def test_real_manifests_directory_mixes_known_and_unknown_kinds() -> None:
    state = load_snapshot(sorted((FIXTURES / "objects").glob("*.yaml")))
    assert {p.name for p in state.nodepools} >= {"gpu", "general-purpose", "spot"}
    assert any(n.code == "SKIPPED" and "Deployment" in n.message for n in state.notes)


def test_duplicates_across_files_are_merged(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", as_list(node("n1")))
    _write(tmp_path / "b.json", as_list(node("n1")))
    assert len(load_snapshot([tmp_path / "a.json", tmp_path / "b.json"]).nodes) == 1


def test_bundle_round_trip(tmp_path: Path) -> None:
    objects = [node("n1"), pod("p1", env=[{"name": "HF_TOKEN", "value": "hf_secret"}])]
    bundle = build_bundle(
        [redact(o) for o in objects],
        captured_at=datetime(2026, 11, 28, 9, tzinfo=UTC),
        context="prod",
        notes=[
            {
                "code": "FORBIDDEN",
                "message": "forbidden to list nodeclaims.karpenter.sh",
                "kind": "nodeclaims",
            }
        ],
        absent=["ec2nodeclasses"],
    )
    write_bundle(bundle, tmp_path / "b.json")
    text = (tmp_path / "b.json").read_text()
    assert "hf_secret" not in text
    state = load_snapshot([tmp_path / "b.json"])
    assert state.captured_at == datetime(2026, 11, 28, 9, tzinfo=UTC)
    assert state.context == "prod"
    assert state.absent == {"ec2nodeclasses"}
    assert [n.code for n in state.notes] == ["FORBIDDEN"]
    assert state.pods[0].containers[0].env == {"HF_TOKEN": "<redacted>"}


def test_redact_drops_last_applied_configuration() -> None:
    p = pod(
        "p1", annotations={"kubectl.kubernetes.io/last-applied-configuration": '{"env":"secret"}', "a": "b"}
    )
    assert redact(p)["metadata"]["annotations"] == {"a": "<redacted>"}  # values are redacted, keys kept


def test_redact_reaches_a_daemonsets_pod_template() -> None:
    # DaemonSets are captured for pending's daemon overhead (issue 11): their template holds env and commands.
    ds = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {
            "template": {
                "metadata": {"annotations": {"token": "t0ps3cret"}},
                "spec": {
                    "containers": [
                        {
                            "name": "a",
                            "env": [{"name": "API_KEY", "value": "s3cret"}],
                            "args": ["--key=s3cret"],
                        }
                    ]
                },
            }
        },
    }
    out = redact(ds)
    container = out["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "API_KEY", "value": "<redacted>"}]
    assert container["args"] == ["<redacted>"]
    assert out["spec"]["template"]["metadata"]["annotations"] == {"token": "<redacted>"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"apiVersion": "v1", "kind": "List", "items": [', "not valid JSON"),
        (b"", "file is empty"),
        (b"apiVersion: v1\nkind: List\nitems:\n  - {kind: Node, metadata: {name: [", "not valid YAML"),
        (b'{"items": []}', "no 'kind'"),
        (b'"just a string"', "no 'kind'"),
        (b'{"apiVersion": "v1", "kind": "List", "items": {}}', "items must be a list"),
        (b'{"apiVersion": "v1", "kind": "Node", "metadata": {}}', "without metadata.name"),
        (
            b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, '
            b'"status": {"capacity": {"nvidia.com/gpu": "1e400"}}}',
            "out of range",
        ),
        (b'{"apiVersion": "kubectl-gpu/v9", "kind": "Snapshot", "objects": []}', "not supported"),
        (b'{"apiVersion": "kubectl-gpu/v1", "kind": "Snapshot"}', "no 'objects' list"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not"),
    ],
)
def test_malformed_input_is_one_line_exit_2(tmp_path: Path, content: bytes, message: str) -> None:
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    with pytest.raises(InvalidInput) as info:
        load_snapshot([f])
    assert info.value.exit_code == ExitCode.USAGE
    assert message in info.value.line()
    assert str(f) in info.value.line()
    assert "\n" not in info.value.line()


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file"):
        load_snapshot([tmp_path / "nope.json"])


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match=r"no \.json or \.yaml"):
        load_snapshot([tmp_path])


def test_manifests_are_kept_only_when_asked(tmp_path: Path) -> None:
    from kubectl_gpu.kube.source import SourceOptions, open_source

    demo = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
    plain = open_source(SourceOptions(snapshot=(str(demo),))).load()
    assert not plain.manifests
    kept = open_source(SourceOptions(snapshot=(str(demo),), keep_manifests=True)).load()
    node = kept.nodes[0]
    manifest = kept.manifest("Node", node.name)
    assert manifest is not None and manifest["metadata"]["name"] == node.name
    pod = kept.pods[0]
    assert kept.manifest("Pod", pod.name, pod.namespace)["kind"] == "Pod"  # type: ignore[index]
