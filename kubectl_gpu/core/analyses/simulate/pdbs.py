"""The PodDisruptionBudgets over the GPU pods a drift evicts: Karpenter drains a node through the eviction
API, which refuses (429) while a PDB that selects the pod allows no disruption, so the node waits (it is
replaced only when the PDB allows). A PDB selects a pod of its own namespace whose labels its selector
matches (a nil selector selects none, `{}` every pod: policy/v1).

What was not read is unknown, never "none": a forbidden or absent `poddisruptionbudgets` says so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from kubectl_gpu.core.k8s.models import PodDisruptionBudget
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["PdbHolds", "pdb_holds"]

KIND = "poddisruptionbudgets"


class PdbHolds(msgspec.Struct, frozen=True):
    """The PDBs that select some of the evicted GPU pods; `read` False: the kind could not be read."""

    read: bool
    selecting: tuple[tuple[PodDisruptionBudget, tuple[str, ...]], ...] = ()  # (PDB, pods ns/name it selects)

    @property
    def held(self) -> tuple[tuple[PodDisruptionBudget, tuple[str, ...]], ...]:
        """The PDBs that allow no disruption now, with the pods they hold."""
        return tuple((p, pods) for p, pods in self.selecting if p.disruptions_allowed <= 0)

    def sentence(self) -> str:
        if not self.read:
            return "PodDisruptionBudgets could not be read (what they hold is unknown)"
        if not self.selecting:
            return "no PodDisruptionBudget selects them"
        held = self.held
        if not held:
            names = ", ".join(f"{p.meta.key} (allows {p.disruptions_allowed})" for p, _ in self.selecting)
            return f"PodDisruptionBudgets allow their evictions: {names}"
        parts = [f"{', '.join(pods)} by {p.meta.key} (disruptionsAllowed 0)" for p, pods in held]
        return "held by PodDisruptionBudget: " + "; ".join(parts) + "; their nodes wait until the PDB allows"

    def detail(self) -> list[dict[str, Any]] | None:
        """JSON: None when the kind could not be read, else one entry per PDB that selects an evicted pod."""
        if not self.read:
            return None
        return [
            {
                "namespace": p.namespace,
                "name": p.name,
                "disruptionsAllowed": p.disruptions_allowed,
                "pods": list(pods),
                "held": list(pods) if p.disruptions_allowed <= 0 else [],
            }
            for p, pods in self.selecting
        ]


def _readable(state: ClusterState) -> bool:
    """Whether "no PDB selects them" is a fact: PDBs were read, or the source listed the kind (a file that
    holds none, or a bundle captured before PDBs were read, leaves it unknown)."""
    if state.pdbs:
        return True
    forbidden = any(n.code == "FORBIDDEN" and n.kind == KIND for n in state.notes)
    if forbidden or KIND in state.absent:
        return False
    return state.listed is not None and KIND in state.listed


def pdb_holds(state: ClusterState, gpu_pods: Sequence[str]) -> PdbHolds:
    """The PDBs of `state` over `gpu_pods` (namespace/name), in the PDBs' order."""
    if not _readable(state):
        return PdbHolds(read=False)
    wanted = set(gpu_pods)
    pods = [p for p in state.pods if f"{p.namespace}/{p.name}" in wanted]
    selecting = []
    for pdb in state.pdbs:
        chosen = tuple(f"{p.namespace}/{p.name}" for p in pods if pdb.selects(p.namespace, p.meta.labels))
        if chosen:
            selecting.append((pdb, chosen))
    return PdbHolds(read=True, selecting=tuple(selecting))
