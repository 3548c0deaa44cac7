"""Shapes that name NodePools, as the pools they do not name see them (issue 22 item 3).

A pod with `nodeSelector: {karpenter.sh/nodepool: X}` is common (one per team's pool), and a cluster with 100
pools has as many such shapes as pools. Against a kind's stand-in (kinds.py: a pool named `POOL`), which
X it is does not change what the evaluation finds, only its words:
* `POOL` is never X (it holds NUL), so the pod's `karpenter.sh/nodepool In [X]` conflicts with the stand-in's
  `In [POOL]` for every X: the same conflict, on the same key;
* the node requirements (the stand-in's intersected with the pod's) have no value for the key either way,
  so minValues and topology read the same;
* instance types are not told apart by the key (it is not in any index's `universe`: the caller checks),
  so the same types are admitted and fit.

So every such shape shares its stand-in templates' *ranking* (`unnamed_key`: the shape with X replaced by
one fixed value) and is worded for its own X only for the targets that are shown (`PoolCandidate.words`).
Only where that argument holds: the key comes from the nodeSelector alone (no affinity term mentions it),
the pod has no placement rule (spread, pod affinity, host ports, claims) and no placed pod's anti-affinity
may select it by its labels (`shared_unnamed`), and the requirements read.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.memo import NODEPOOL
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL
from kubectl_gpu.core.scheduling.affinity import scheduling_requirements
from kubectl_gpu.core.scheduling.requirements import RequirementError

__all__ = ["OTHER_POOL", "unnamed_key", "unnamed_shape"]

#: What a shape's NodePool name becomes: a valid label value, and not `POOL` (all the argument needs).
OTHER_POOL = "kubectl-gpu.other-nodepool"


def _selected_only(shape: PodShape) -> bool:
    """The pod names pools by its nodeSelector only, and nothing else could read which pool it names."""
    if shape.requirements is None or shape.placement or NODEPOOL not in shape.node_selector:
        return False
    if shape.node_selector[NODEPOOL] == POOL:
        return False
    affinity = shape.node_affinity
    if affinity.required_error or affinity.preferred_error:
        return False
    terms = [*affinity.required_terms, *(p.preference for p in affinity.preferred_terms)]
    return not any(r.key == NODEPOOL for t in terms for r in t.match_expressions)


def unnamed_key(shape: PodShape) -> tuple[Any, ...] | None:
    """The key of the shape with its NodePool name replaced by `OTHER_POOL` (`shape.key`'s layout: requests,
    tolerations, nodeSelector, ...), or None when the module's argument does not hold for it."""
    if not _selected_only(shape):
        return None
    selector = tuple(sorted({**shape.node_selector, NODEPOOL: OTHER_POOL}.items()))
    return (*shape.key[:2], selector, *shape.key[3:])


def unnamed_shape(shape: PodShape, key: tuple[Any, ...]) -> PodShape | None:
    """The shape with its NodePool name replaced (`key` from `unnamed_key`), or None when its requirements
    would not read (then the shape is evaluated as it is)."""
    selector = {**shape.node_selector, NODEPOOL: OTHER_POOL}
    try:
        reqs = scheduling_requirements(selector, shape.node_affinity)
    except RequirementError:
        return None
    return msgspec.structs.replace(shape, key=key, node_selector=selector, requirements=reqs)
