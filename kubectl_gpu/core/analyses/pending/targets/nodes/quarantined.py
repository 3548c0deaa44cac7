"""A node a GPU health system quarantined (core/scheduling/quarantine.py): `NODE_QUARANTINED`, never
`MISSING_TOLERATION` with a toleration to add (issue 37, cause 11)."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, taint_list
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.scheduling.quarantine import quarantine_of
from kubectl_gpu.core.scheduling.taints import Taint, pretty

__all__ = ["split_quarantine"]


def split_quarantine(
    node: Node, missing: tuple[Taint, ...], ref: TargetRef
) -> tuple[tuple[Taint, ...], Blocker | None]:
    """The untolerated taints that are no quarantine, and the quarantine's blocker (None: none)."""
    found = [(t, why) for t in missing if (why := quarantine_of(node, t)) is not None]
    if not found:
        return missing, None
    taints = tuple(t for t, _ in found)
    whys = ", ".join(dict.fromkeys(why for _, why in found))
    blocker = Blocker(
        Verdict.NODE_QUARANTINED,
        CAPACITY,
        ref,
        f"node {node.name} is quarantined: {whys}; taint {taint_list(taints)}",
        f"do not tolerate {', '.join(dict.fromkeys(t.key for t in taints))}: it marks a faulty GPU node. Wait "
        f"for the repair to finish (kubectl gpu diagnose shows node {node.name}'s health), or run the pod on "
        "healthy capacity (another node, or a NodePool that can launch one)",
        {"taints": [pretty(t) for t in taints], "quarantine": whys},
    )
    return tuple(t for t in missing if t not in taints), blocker
