"""A snapshot is parsed to the kinds the command reads, as a live run lists only those (issue 38).

* `load_snapshot(kinds=...)` parses the objects of those kinds; the other kinds this tool reads are passed
  over without a note (a bad object of theirs is not this command's error), kinds it never reads are noted
  as skipped as before;
* `SnapshotSource` keeps a state per set of kinds while the files are unchanged, and `load()` is every
  object (a namespace that only an unread kind holds still exists for `-n`);
* every command answers a snapshot exactly as it did when every kind was parsed: so a command that reads a
  kind it does not declare (which its live run would never list) fails here, as `nodes` did with NodeOverlay
  prices before it declared `nodeoverlays`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.kube.snapshot import build_bundle, load_snapshot
from kubectl_gpu.kube.source import SnapshotSource
from tests.conftest import Result
from tests.helpers import as_list, node, pod

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
NOW = "2026-12-06T00:00:00Z"


def _event(name: str, namespace: str, *, group: str = "") -> dict[str, Any]:
    return {
        "apiVersion": f"{group}/v1" if group else "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "involvedObject": {"kind": "Pod", "name": "p1", "namespace": namespace},
        "reason": "FailedScheduling",
        "message": "0/1 nodes are available",
        "type": "Warning",
    }


def _config_map() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}


def _write(path: Path, data: object) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


def test_only_the_kinds_asked_are_parsed(tmp_path: Path) -> None:
    objects = [node("n1"), pod("p1", node_name="n1"), _event("e1", "ml"), _config_map()]
    f = _write(tmp_path / "get.json", as_list(*objects))
    nodes_only = load_snapshot([f], kinds=["nodes"])
    assert [n.name for n in nodes_only.nodes] == ["n1"]
    assert nodes_only.pods == () and nodes_only.events == ()
    every = load_snapshot([f])
    assert [p.name for p in every.pods] == ["p1"] and len(every.events) == 1
    # the ConfigMap is noted as skipped either way; the pod and the event are not this command's to note
    for state in (nodes_only, every):
        assert [n.message for n in state.notes if n.code == "SKIPPED"] == [
            "skipped 1 objects of kinds this tool does not read (1 ConfigMap)"
        ]


def test_kinds_no_list_reads_are_read_with_the_resource_that_stands_for_them(tmp_path: Path) -> None:
    legacy = {"apiVersion": "karpenter.k8s.aws/v1alpha1", "kind": "AWSNodeTemplate", "metadata": {"name": "t"}}
    f = _write(tmp_path / "get.json", as_list(_event("e1", "ml", group="events.k8s.io"), legacy))
    assert len(load_snapshot([f], kinds=["events"]).events) == 1
    assert [o.kind for o in load_snapshot([f], kinds=["provisioners"]).legacy_karpenter] == ["AWSNodeTemplate"]
    assert load_snapshot([f], kinds=["nodes"]).events == ()


def test_only_the_kinds_read_are_said_to_be_listed(tmp_path: Path) -> None:
    """A bundle lists the kinds it captured whole; the state says so only of those it parsed: else "no
    PodDisruptionBudget holds them" would be said of PDBs that were never read (`simulate`'s drift)."""
    from kubectl_gpu.core.analyses.simulate.pdbs import pdb_holds

    bundle = build_bundle(
        [node("n1"), pod("p1", "ml", node_name="n1")],
        captured_at=datetime(2026, 12, 1, tzinfo=UTC),
        context="c",
        notes=[],
        absent=[],
        listed=["nodes", "pods", "poddisruptionbudgets"],
    )
    f = _write(tmp_path / "bundle.json", bundle)
    assert load_snapshot([f]).listed == {"nodes", "pods", "poddisruptionbudgets"}
    state = load_snapshot([f], kinds=["nodes", "pods", "events"])
    assert state.listed == {"nodes", "pods"}
    assert not pdb_holds(state, ["ml/p1"]).read  # unknown, never "none"
    assert pdb_holds(load_snapshot([f]), ["ml/p1"]).read


def test_an_unknown_kind_name_is_refused(tmp_path: Path) -> None:
    f = _write(tmp_path / "get.json", as_list(node("n1")))
    with pytest.raises(KeyError):
        load_snapshot([f], kinds=["widgets"])


def test_a_bad_object_of_a_kind_not_read_is_not_this_commands_error(tmp_path: Path) -> None:
    bad = pod("p1")
    bad["spec"]["containers"] = "not a list"
    f = _write(tmp_path / "get.json", as_list(node("n1"), bad))
    assert [n.name for n in load_snapshot([f], kinds=["nodes"]).nodes] == ["n1"]
    with pytest.raises(InvalidInput):
        load_snapshot([f], kinds=["nodes", "pods"])


def test_the_source_keeps_a_state_per_kinds_and_load_is_every_object(tmp_path: Path) -> None:
    f = _write(tmp_path / "get.json", as_list(node("n1"), pod("p1", node_name="n1"), _event("e1", "ml")))
    source = SnapshotSource((str(f),))
    nodes_only = source.load(["nodes"])
    assert source.load({"nodes"}) is nodes_only  # the same kinds, the files unchanged: not parsed again
    assert nodes_only.events == ()
    whole = source.load()
    assert len(whole.events) == 1 and len(whole.pods) == 1
    assert source.load() is whole and source.load(None) is whole
    assert source.load(["nodes"]) is nodes_only  # both are kept
    _write(f, as_list(node("n2")))  # changed: read again
    assert [n.name for n in source.load(["nodes"]).nodes] == ["n2"]
    assert source.load().events == ()


def test_a_namespace_only_an_unread_kind_holds_exists(cli: Callable[..., Result], tmp_path: Path) -> None:
    """`nodes -n ml` reads no events; the namespace exists in the snapshot because an Event is in it."""
    f = _write(tmp_path / "get.json", as_list(node("n1"), _event("e1", "ml")))
    found = cli("nodes", "--snapshot", str(f), "-n", "ml", "-o", "json", "--now", NOW)
    assert found.code == 0, found.err
    missing = cli("nodes", "--snapshot", str(f), "-n", "nope", "-o", "json", "--now", NOW)
    assert missing.code == 4 and 'namespace "nope" is not in the snapshot' in missing.err


COMMANDS = [
    ["nodes", "-o", "json"],
    ["nodes", "-o", "wide"],
    ["nodes", "i-0694472d1a7d32946", "-o", "json"],
    ["pending", "-A", "-o", "json"],
    ["explain", "ml/pretrain-8x-h100-1", "-o", "json"],
    ["pools", "-o", "json"],
    ["diagnose", "-o", "json"],
    ["drivers", "-o", "json"],
    ["lint", "-o", "json"],
    ["lifecycle", "--all", "-o", "json"],
    ["nvme", "--all", "-o", "json"],
    ["cost", "-o", "json"],
    ["inventory", "--all", "-o", "json"],
    ["usage", "-o", "json"],
    ["smi", "-o", "json"],
    ["pending", "-n", "ml", "-o", "json"],
    ["pending", "-A", "--by-workload", "-o", "json"],
    ["explain", "ml/pretrain-8x-h100-1", "--with", "{pool}", "-o", "json"],
    ["explain", "ml/pretrain-8x-h100-1", "--delete", "nodepool/gpu-training", "-o", "json"],
    ["lifecycle", "--pod", "ml/pretrain-8x-h100-0", "-o", "json"],
    ["diagnose", "--only", "pending,lifecycle", "-o", "json"],
    ["cost", "--min-idle", "1h", "-o", "json"],
]
POOL = ROOT / "tests" / "fixtures" / "karpenter" / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml"


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's objects as one `kubectl get -o json` List (no bundle: no notes of what was listed)."""
    objects = json.loads(DEMO.read_text())["objects"]
    path = tmp_path_factory.mktemp("listed") / "list.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=4))
    return path


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv))
@pytest.mark.parametrize("source", ["bundle", "list"])
def test_every_command_answers_as_with_every_kind_parsed(
    argv: list[str],
    source: str,
    listed: Path,
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if source == "list" and argv[0] == "smi":
        pytest.skip("a List holds no probes: smi refuses it before it reads an object")
    path = str(DEMO if source == "bundle" else listed)
    args = [*(word.replace("{pool}", str(POOL)) for word in argv), "--snapshot", path, "--now", NOW]
    asked: list[object] = []
    load = SnapshotSource.load

    def recorded(self: SnapshotSource, kinds: Any = None) -> Any:
        asked.append(None if kinds is None else frozenset(kinds))
        return load(self, kinds)

    monkeypatch.setattr(SnapshotSource, "load", recorded)
    as_declared = cli(*args)
    monkeypatch.setattr(SnapshotSource, "load", lambda self, kinds=None: load(self, None))
    with_every_kind = cli(*args)
    assert as_declared == with_every_kind
    assert as_declared.code in (0, 1, 4), as_declared.err  # usage of a List: no saved window (4)
    if argv[0] != "smi" and not {"--with", "--delete"} & set(argv):
        # the command asked for its kinds (smi reads its probes through `load_snapshot`, with the kinds it
        # reads; a change made on a copy of the cluster reads all of it)
        assert asked and all(k is not None for k in asked)
