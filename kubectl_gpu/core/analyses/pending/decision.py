"""A pod's `Decision`: the typed answer every later step consumes (fix verification settles it, the report
writes it). The verdict, why, the fix, the target it is about (the nearest target, or the one whose
verified fix gets furthest) and, when the fix was tried on a copy of the cluster, what that gave
(`FixCheck`, `After`: verify/)."""

from __future__ import annotations

from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.verdicts import TargetRef, Verdict
from kubectl_gpu.core.changes import Change

__all__ = ["After", "Decision", "FixCheck"]

_CLEAR = frozenset({Verdict.NO_BLOCKER_FOUND, Verdict.PROVISIONING})
# Verdicts that need capacity, not a change to the pod or a NodePool's spec (`After.distance`).
_CAPACITY = frozenset(
    {
        Verdict.NODEPOOL_LIMIT_REACHED,
        Verdict.NODECLASS_NOT_READY,
        Verdict.NODEPOOL_NOT_READY,
        Verdict.CAPACITY_UNAVAILABLE,
        Verdict.INSUFFICIENT_ACCELERATOR,
        Verdict.INSUFFICIENT_RESOURCES,
        Verdict.TOPOLOGY_SPREAD_UNSATISFIABLE,
        Verdict.POD_AFFINITY_UNSATISFIABLE,
        Verdict.VOLUME_UNAVAILABLE,
    }
)


class After(msgspec.Struct, frozen=True):
    """The pod's answer once the fix is made."""

    verdict: Verdict
    target: TargetRef | None
    instance_type: str | None  # the cheapest fitting type, when it launches from a NodePool
    message: str  # the first blocker left, or what is still unknown

    @property
    def clear(self) -> bool:
        return self.verdict in _CLEAR

    @property
    def distance(self) -> tuple[int, int]:
        """How far from running (0 best): nothing left, unknown checks, capacity, spec."""
        if self.clear:
            return (0, 0)
        if self.verdict is Verdict.UNVERIFIED:
            return (1, 0)
        return (2 if self.verdict in _CAPACITY else 3, 0)

    def text(self) -> str:
        where = f"{self.target.kind} {self.target.name}" if self.target else "no target"
        if self.verdict is Verdict.PROVISIONING:
            return f"after this change: waits for capacity in flight ({self.message})"
        if self.clear and self.target is not None and self.target.kind == "NodePool":
            launched = f", {self.instance_type}" if self.instance_type else ""
            return f"after this change: launches from NodePool {self.target.name}{launched}"
        if self.clear:
            return f"after this change: fits {where}"
        if self.verdict is Verdict.UNVERIFIED:
            return f"after this change: {self.message}"
        return f"after this change, still blocked: {self.verdict}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": str(self.verdict),
            "target": self.target.to_dict() if self.target else None,
            "instanceType": self.instance_type,
            "message": self.text(),
        }


class FixCheck(msgspec.Struct, frozen=True):
    verified: bool | None  # None: not a change this tool can make on a copy
    change: str  # what was changed, in words
    after: After | None = None
    # Not verified although the blocker is gone: the node it names still does not take the pod (a cordon,
    # no room), so the change does not unblock the pod there (issue 37).
    removed: bool = False
    #: the change made on the copy, as the engine made it (`kubectl gpu simulate`'s; the TUI's `t` tries it
    #: cluster-wide); empty when the fix is no change the engine makes; a change to a pod names no pod (the
    #: check answers every pod of a shape: `PodDiagnosis.fix_changes`). Not in JSON.
    changes: tuple[Change, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change, **(self.after.to_dict() if self.after else {})}


class Decision(msgspec.Struct, frozen=True):
    """One pod's answer. `target` is None when no target is judged (a gated pod, another scheduler, no
    NodePool for the accelerator); `fix_check` is None when the fix is not one to try on a copy."""

    verdict: Verdict
    reason: str
    fix: str | None
    target: TargetRef | None = None
    fix_check: FixCheck | None = None
