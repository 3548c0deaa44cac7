"""PodDisruptionBudgets (policy/v1) read live, through the real `kubernetes` client, against the suite's API
server: listed with the other kinds, and a 403 on them a FORBIDDEN note that simulate reads as "could not be
read" (issue 40)."""

from __future__ import annotations

from pathlib import Path

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.live import LiveOptions, LiveSource
from tests.helpers import node
from tests.kube.apiserver import FakeKubeAPI

PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "vllm", "namespace": "serving"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "vllm"}}},
    "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1},
}


def _load(kubeconfig: Path) -> ClusterState:
    state, _ = LiveSource(LiveOptions(kubeconfig=str(kubeconfig))).load()
    return state


def test_pdbs_are_listed(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"), PDB)
    state = _load(kubeconfig)
    (pdb,) = state.pdbs
    assert (pdb.namespace, pdb.name, pdb.disruptions_allowed, pdb.min_available) == ("serving", "vllm", 0, 1)
    assert "poddisruptionbudgets" not in state.absent


def test_a_forbidden_pdb_list_is_a_note(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"), PDB)
    apiserver.fault(path=r"/apis/policy/v1/poddisruptionbudgets", status=403)
    state = _load(kubeconfig)
    assert not state.pdbs
    (note,) = state.notes
    assert note.code == "FORBIDDEN" and note.kind == "poddisruptionbudgets"
    assert "poddisruptionbudgets.policy" in note.message


def test_the_kinds_listed_are_recorded_and_a_forbidden_one_is_not(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """`ClusterState.listed`: what was listed whole (none of it read is none there); a 403 is not listed."""
    apiserver.add(node("n1"))
    assert "poddisruptionbudgets" in (_load(kubeconfig).listed or ())
    apiserver.fault(path=r"/apis/policy/v1/poddisruptionbudgets", status=403)
    listed = _load(kubeconfig).listed or frozenset()
    assert "poddisruptionbudgets" not in listed and "nodes" in listed
