"""NodePools that fit a pod the same way, evaluated once per pod shape.

A cluster with many NodePools (one per team, per family, per capacity type) has few distinct ones as far as
instance-type fit goes: which types the pool admits, what its DaemonSets and NodeOverlays add to or set on
each, its NodeClass (ephemeral storage) and which of its requirement keys the catalog cannot verify per
type. That is the pool's *fit signature* (facts.py): pools with equal signatures admit the same types for a
pod, the same of them fit, and the same are known to fit, so `PoolMemo` computes that once per signature and
pod shape and every pool of the group reuses it. The pool's name, limits, taints, conditions and events are not
in the signature: whatever depends on them (messages, limit and NodeClass blockers) is still made per pool.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from kubectl_gpu.core.analyses.pending.checks.evaluation import Check
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.taints import BLOCKING_EFFECTS, PREFER_NO_SCHEDULE, Taint, untolerated

__all__ = [
    "MISSING",
    "NODEPOOL",
    "PoolMemo",
    "ShapeIds",
    "answer_key",
    "names_pools",
    "pool_specific",
    "reads_pool_name",
]

NODEPOOL = "karpenter.sh/nodepool"

T = TypeVar("T")
MISSING = object()  # what `PoolMemo.known` finds for a key not computed yet
_PREFER_NO = frozenset({PREFER_NO_SCHEDULE})


class ShapeIds:
    """What the memo keys of a pool's template read of one shape, found once per shape (`PoolMemo.ids`):
    its small ids, whether it names pools, whether Karpenter relaxes it (`PoolTarget.plain_template`)."""

    __slots__ = (
        "accelerators",
        "names_pools",
        "relaxes",
        "requests",
        "selectors",
        "shape",
        "wants_accelerator",
    )

    def __init__(self, memo: PoolMemo, shape: PodShape) -> None:
        assert shape.requirements is not None
        self.shape = shape
        self.selectors = memo.selectors_id(shape)
        self.requests = memo.requests_id(shape)
        self.wants_accelerator = shape.wants_accelerator
        self.accelerators = memo.accelerators_id(shape) if self.wants_accelerator else None
        self.names_pools = memo.get(shape, "names pools", lambda: names_pools(shape))
        self.relaxes = len(memo.get(shape, "relaxations", shape.requirements.relaxations)) > 1


class PoolMemo:
    """Shared by the PoolTargets of one analysis. `get` keeps results for the shape being evaluated only
    (an analysis evaluates every pool for one shape, then the next shape); `shared` keeps them for the
    whole analysis, keyed by what they depend on (a fit group, a term, the requests), so their number
    follows the distinct groups x selectors x requests, not the pods or the pools."""

    def __init__(self) -> None:
        self._groups: dict[Hashable, int] = {}
        self._shape: PodShape | None = None
        self._memo: dict[Hashable, object] = {}
        self._selectors: int | None = None  # the shape's ids, asked for per pool: kept beside `_memo`
        self._requests: int | None = None
        self._accelerators: int | None = None
        self._untolerated: dict[tuple[tuple[Taint, ...], frozenset[str]], tuple[Taint, ...]] = {}
        self._left: dict[tuple[Taint, ...], tuple[tuple[Taint, ...], bool]] = {}
        self._shared: dict[Hashable, object] = {}
        # The values `shared` has computed, to read without computing (`MISSING` for a key it has not): the
        # same dict, an attribute (read per shape and kind: a property costs a call)
        self.known = self._shared
        self._ids: dict[Hashable, int] = {}
        self.computed = 0  # how many results were computed (tests pin the grouping with it)

    def selectors_id(self, shape: PodShape) -> int:
        """A small id per distinct nodeSelector and node affinity (hashed once per shape, not per use)."""
        if shape is not self._shape:
            self._new_shape(shape)
        found = self._selectors
        if found is None:
            found = self._selectors = self._ids.setdefault(
                ("sel", shape.key[2], shape.key[3]), len(self._ids)
            )
            self.computed += 1
        return found

    def requests_id(self, shape: PodShape) -> int:
        """A small id per distinct requests and ephemeral storage."""
        if shape is not self._shape:
            self._new_shape(shape)
        found = self._requests
        if found is None:
            key = ("req", shape.key[0], shape.ephemeral_storage)
            found = self._requests = self._ids.setdefault(key, len(self._ids))
            self.computed += 1
        return found

    def accelerators_id(self, shape: PodShape) -> int:
        """A small id per distinct set of accelerator resources the shape requests (not their amounts)."""
        if shape is not self._shape:
            self._new_shape(shape)
        found = self._accelerators
        if found is None:
            key = ("accelerators", frozenset(shape.accelerators))
            found = self._accelerators = self._ids.setdefault(key, len(self._ids))
        return found

    def untolerated(
        self, shape: PodShape, taints: tuple[Taint, ...], effects: frozenset[str]
    ) -> tuple[Taint, ...]:
        """`taints.untolerated` of the shape's tolerations, once per shape and pools' taints (pools share few)."""
        if shape is not self._shape:
            self._new_shape(shape)
        key = (taints, effects)
        found = self._untolerated.get(key)
        if found is None:
            found = self._untolerated[key] = untolerated(shape.tolerations, taints, effects)
        return found

    def taints_left(self, shape: PodShape, taints: tuple[Taint, ...]) -> tuple[tuple[Taint, ...], bool]:
        """The pool's taints the shape does not tolerate with a blocking effect (`untolerated`), and whether
        one with PreferNoSchedule is left: once per shape and pools' taints."""
        if shape is not self._shape:
            self._new_shape(shape)
        found = self._left.get(taints)
        if found is None:
            prefer_no = bool(self.untolerated(shape, taints, _PREFER_NO))
            found = self._left[taints] = (self.untolerated(shape, taints, BLOCKING_EFFECTS), prefer_no)
        return found

    def small_id(self, value: Hashable) -> int:
        """A small id per distinct value (a key part hashed once, not at every use)."""
        return self._ids.setdefault(value, len(self._ids))

    def group(self, signature: Hashable) -> int:
        """A small id per distinct signature."""
        return self._groups.setdefault(signature, len(self._groups))

    @property
    def groups(self) -> int:
        return len(self._groups)

    def shared(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A value computed once per analysis (for every pool and shape that ask with this key)."""
        found = self._shared.get(key, MISSING)
        if found is MISSING:
            found = self._shared[key] = compute()
            self.computed += 1
        return found  # type: ignore[return-value]

    def ids(self, shape: PodShape) -> ShapeIds:
        """The shape's `ShapeIds`, once per shape (its requirements must read)."""
        return self.get(shape, "ids", lambda: ShapeIds(self, shape))

    def adopt(self, other: PoolMemo, key: Hashable) -> None:
        """Take `other`'s shared value for `key`, if it has one: for a value that reads neither a pool nor a
        pod (the cluster's recent capacity events), which a pool changed by a fix may share."""
        found = other._shared.get(key, MISSING)
        if found is not MISSING:
            self._shared[key] = found

    def get(self, shape: PodShape, key: Hashable, compute: Callable[[], T]) -> T:
        if shape is not self._shape:
            self._new_shape(shape)
        found = self._memo.get(key, MISSING)
        if found is MISSING:
            found = self._memo[key] = compute()
            self.computed += 1
        return found  # type: ignore[return-value]

    def _new_shape(self, shape: PodShape) -> None:
        self._shape = shape
        self._memo = {}
        self._selectors = self._requests = self._accelerators = None
        self._untolerated = {}
        self._left = {}


def answer_key(blockers: tuple[Blocker, ...], checks: tuple[Check, ...]) -> Hashable:
    """Blockers and checks as a value to intern them by: a Blocker's equality leaves out its detail."""
    return tuple((b, repr(b.detail)) for b in blockers), checks


def names_pools(shape: PodShape) -> bool:
    """Whether one of the pod's required terms constrains `karpenter.sh/nodepool` (then each pool's
    answer depends on its name)."""
    reqs = shape.requirements
    return reqs is not None and any(NODEPOOL in alt for alt in reqs.alternatives())


def pool_specific(shape: PodShape, state: ClusterState, memo: PoolMemo) -> bool:
    """Whether the pod's answer for a pool may depend on the pool's name: the pod selects
    `karpenter.sh/nodepool` or `reads_pool_name`."""
    return names_pools(shape) or reads_pool_name(shape, state, memo)


def reads_pool_name(shape: PodShape, state: ClusterState, memo: PoolMemo) -> bool:
    """Whether the pod spreads or (anti-)affines over `karpenter.sh/nodepool` (or a placed pod's
    anti-affinity does), or has volumes (their node affinity could name it): then each pool is evaluated
    on its own."""
    if shape.placement.claims:
        return True
    placement = shape.placement
    if any(c.topology_key == NODEPOOL for c in placement.spread) or any(
        t.topology_key == NODEPOOL for t in placement.affinity
    ):
        return True
    return memo.shared(
        "placed pods spread over pools",
        lambda: any(
            t.topology_key == NODEPOOL
            for pod in state.placed_with_anti_affinity
            for t in pod.placement.affinity
        ),
    )
