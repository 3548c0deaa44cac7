"""simulate's blast radius weighs the PodDisruptionBudgets over the GPU pods a drift evicts (issue 40).

The demo bundle holds no PDB: each test adds one to a copy of it (a tmp bundle), as `kubectl get pdb -o json`
prints one (hand-made in that shape), or marks the kind forbidden or absent as a capture would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kubectl_gpu.core.analyses.simulate import SimulateReport, simulate
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.changes import Change
from kubectl_gpu.kube.snapshot import load_snapshot

DEMO = Path(__file__).resolve().parents[3] / "examples" / "automode-gpu-demo.json"


def pdb(name: str, app: str, allowed: int) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "serving", "uid": f"uid-{name}", "generation": 1},
        "spec": {"maxUnavailable": allowed, "selector": {"matchLabels": {"app.kubernetes.io/name": app}}},
        "status": {
            "observedGeneration": 1,
            "disruptionsAllowed": allowed,
            "currentHealthy": 1,
            "desiredHealthy": 1 - allowed,
            "expectedPods": 1,
            "conditions": [],
        },
    }


def run(
    tmp_path: Path, *pdbs: dict[str, Any], kinds: frozenset[str] | None = None, **top: Any
) -> SimulateReport:
    bundle = json.loads(DEMO.read_text())
    bundle["objects"] += list(pdbs)
    bundle.update(top)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    state = load_snapshot([path], keep_manifests=True, kinds=kinds)
    assert state.captured_at is not None
    manifest = state.manifest("NodePool", "gpu-inference")
    assert manifest is not None
    reqs = manifest["spec"]["template"]["spec"]["requirements"]
    only_g6 = [{**r, "values": ["g6"]} if r["key"].endswith("instance-family") else r for r in reqs]
    body = {"spec": {"template": {"spec": {"requirements": only_g6}}}}
    change = Change("patch", "NodePool", "gpu-inference", body=body, patch_type="merge", source="test")
    return simulate(state, [change], load_catalog(), state.captured_at)


def drift(report: SimulateReport) -> tuple[str, Any]:
    (effect,) = [e for e in report.effects if e.area == "drift"]
    return effect.message, effect.detail["pdbs"]


def test_a_pdb_allowing_no_disruption_holds_the_pod_and_its_node_waits(tmp_path: Path) -> None:
    message, detail = drift(run(tmp_path, pdb("vllm-l40s", "vllm-l40s", 0)))
    assert (
        "held by PodDisruptionBudget: serving/vllm-l40s-0 by serving/vllm-l40s (disruptionsAllowed 0)"
        in message
    )
    assert "their nodes wait until the PDB allows" in message
    assert detail == [
        {
            "namespace": "serving",
            "name": "vllm-l40s",
            "disruptionsAllowed": 0,
            "pods": ["serving/vllm-l40s-0"],
            "held": ["serving/vllm-l40s-0"],
        }
    ]


def test_the_tuis_try_weighs_the_pdbs_as_simulate_does(tmp_path: Path) -> None:
    """`t` in the TUI runs `simulate` on the state a refresh reads (`tui.data.KINDS`, live and from a
    snapshot): the PDBs are among them, so its drift says what `kubectl gpu simulate` (every kind) says."""
    from kubectl_gpu.tui.data import KINDS

    held = pdb("vllm-l40s", "vllm-l40s", 0)
    assert drift(run(tmp_path, held, kinds=KINDS)) == drift(run(tmp_path, held))


def test_a_pdb_allowing_one_holds_nothing(tmp_path: Path) -> None:
    message, detail = drift(run(tmp_path, pdb("reranker", "reranker", 1)))
    assert "PodDisruptionBudgets allow their evictions: serving/reranker (allows 1)" in message
    assert "held by" not in message.split("do-not-disrupt")[-1]
    assert detail[0]["held"] == [] and detail[0]["pods"] == ["serving/reranker-7b9c5d4f86-sbkt5"]


def test_no_pdb_selecting_the_pods_is_said(tmp_path: Path) -> None:
    other = pdb("web", "web", 0)  # selects no drifted pod
    message, detail = drift(run(tmp_path, other))
    assert message.endswith("no PodDisruptionBudget selects them")
    assert detail == []


def test_a_forbidden_or_absent_kind_is_unknown_not_none(tmp_path: Path) -> None:
    note = {
        "code": "FORBIDDEN",
        "message": "poddisruptionbudgets.policy is forbidden",
        "kind": "poddisruptionbudgets",
    }
    for top in ({"notes": [note]}, {"absent": ["poddisruptionbudgets"]}):
        message, detail = drift(run(tmp_path, **top))
        assert "PodDisruptionBudgets could not be read" in message, top
        assert detail is None


def test_none_read_is_unknown_unless_the_kind_was_listed(tmp_path: Path) -> None:
    """A bundle that holds no PDB says nothing about PDBs unless it recorded that it listed the kind (a
    capture made before PDBs were read, or a file of chosen objects): unknown, never "none select them"."""
    message, detail = drift(run(tmp_path))
    assert message.endswith("PodDisruptionBudgets could not be read (what they hold is unknown)")
    assert detail is None
    message, detail = drift(run(tmp_path, listed=["nodes", "pods", "poddisruptionbudgets"]))
    assert message.endswith("no PodDisruptionBudget selects them") and detail == []
    message, detail = drift(run(tmp_path, listed=["nodes", "pods"]))
    assert detail is None
