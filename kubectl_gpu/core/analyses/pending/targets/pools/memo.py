"""NodePools that fit a pod the same way, evaluated once per pod shape.

A cluster with many NodePools (one per team, per family, per capacity type) has few distinct ones as far as
instance-type fit goes: which types the pool admits, what its DaemonSets and NodeOverlays add to or set on
each, its NodeClass (ephemeral storage) and which of its requirement keys the catalog cannot verify per
type. That is the pool's *fit signature*: pools with equal signatures admit the same types for a pod, the
same of them fit, and the same are known to fit, so `PoolMemo` computes that once per signature and pod
shape and every pool of the group reuses it. The pool's name, limits, taints, conditions and events are not
in the signature: whatever depends on them (messages, limit and NodeClass blockers) is still made per pool.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar

from kubectl_gpu.core.analyses.pending.evaluation import Check, short_quantity, type_names
from kubectl_gpu.core.analyses.pending.pool_template import LimitAnswer
from kubectl_gpu.core.analyses.pending.shape import PodShape
from kubectl_gpu.core.analyses.pending.verdicts import Blocker
from kubectl_gpu.core.k8s.models import Resources
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import IndexedType, raw_capacity_of
from kubectl_gpu.core.scheduling.requirements import Requirements

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget

__all__ = [
    "Fitting",
    "PoolMemo",
    "answer_key",
    "failure",
    "fit_signature",
    "fitting_types",
    "intern_fitting",
    "limit_answer_of",
    "limit_problem",
    "names_pools",
    "pool_specific",
    "reads_pool_name",
    "requirement_signature",
]

NODEPOOL = "karpenter.sh/nodepool"

T = TypeVar("T")
_MISSING = object()

# (types the pool and the pod's requirements both admit, those that hold the pod, those known to hold it,
# the "instance types" check when some may fit)
Fitting = tuple[tuple[IndexedType, ...], tuple[IndexedType, ...], tuple[IndexedType, ...], Check | None]


class PoolMemo:
    """Shared by the PoolTargets of one analysis. `get` keeps results for the shape being evaluated only
    (an analysis evaluates every pool for one shape, then the next shape); `shared` keeps them for the
    whole analysis, keyed by what they depend on (a fit group, a term, the requests), so their number
    follows the distinct groups x selectors x requests, not the pods or the pools."""

    def __init__(self) -> None:
        self._groups: dict[Hashable, int] = {}
        self._shape: PodShape | None = None
        self._memo: dict[Hashable, object] = {}
        self._shared: dict[Hashable, object] = {}
        self._ids: dict[Hashable, int] = {}
        self.computed = 0  # how many results were computed (tests pin the grouping with it)

    def selectors_id(self, shape: PodShape) -> int:
        """A small id per distinct nodeSelector and node affinity (hashed once per shape, not per use)."""
        return self.get(
            shape,
            "selectors id",
            lambda: self._ids.setdefault(("sel", shape.key[2], shape.key[3]), len(self._ids)),
        )

    def requests_id(self, shape: PodShape) -> int:
        """A small id per distinct requests and ephemeral storage."""
        return self.get(
            shape,
            "requests id",
            lambda: self._ids.setdefault(("req", shape.key[0], shape.ephemeral_storage), len(self._ids)),
        )

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
        found = self._shared.get(key, _MISSING)
        if found is _MISSING:
            found = self._shared[key] = compute()
            self.computed += 1
        return found  # type: ignore[return-value]

    def adopt(self, other: PoolMemo, key: Hashable) -> None:
        """Take `other`'s shared value for `key`, if it has one: for a value that reads neither a pool nor a
        pod (the cluster's recent capacity events), which a pool changed by a fix may share."""
        found = other._shared.get(key, _MISSING)
        if found is not _MISSING:
            self._shared[key] = found

    def get(self, shape: PodShape, key: Hashable, compute: Callable[[], T]) -> T:
        if shape is not self._shape:
            self._shape = shape
            self._memo = {}
        found = self._memo.get(key, _MISSING)
        if found is _MISSING:
            found = self._memo[key] = compute()
            self.computed += 1
        return found  # type: ignore[return-value]


def answer_key(blockers: tuple[Blocker, ...], checks: tuple[Check, ...]) -> Hashable:
    """Blockers and checks as a value to intern them by: a Blocker's equality leaves out its detail."""
    return tuple((b, repr(b.detail)) for b in blockers), checks


def requirement_signature(target: PoolTarget) -> Hashable:
    """What `Requirements.compatible` reads of a pool for a pod that does not select `karpenter.sh/nodepool`:
    the provider (its well-known labels), the requirement keys (typo hints), every requirement but the
    pool's own name."""
    reqs = target.requirements
    return (
        "requirements",
        target.provider,
        frozenset(reqs.keys()),
        frozenset((k, r) for k, r in reqs.items() if k != NODEPOOL),
    )


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


def fit_signature(target: PoolTarget) -> Hashable:
    """Everything `fitting_types` and `PoolTarget.offers` read of a pool, as a hashable value."""
    fit = target.fit
    per_type = []
    for e in target.types:
        per_type.append(
            (
                id(e),
                tuple(sorted(fit.overhead(e).items())),
                tuple(sorted(fit.overlay_capacity(e).items())),
                target.index.unverified_keys(target.requirements, e),
                tuple(id(ds) for ds in fit.daemons(e)),  # their host ports
                fit.overlay_uncertain(e),
            )
        )
    node_class = fit.node_class
    return ("fit", id(target.index), id(node_class) if node_class is not None else None, tuple(per_type))


def fitting_types(target: PoolTarget, shape: PodShape, pod_reqs: Requirements) -> Fitting:
    """The pool's types the pod's requirements admit, those that hold the pod with its daemons, and those
    of them the catalog knows every required label of (interned: `intern_fitting`)."""
    memo = target.memo
    with_pod = target.types
    if shape.requirements is not None:  # the same for every shape with these requirements
        with_pod = memo.shared(("with pod", target.group, pod_reqs), lambda: _with_pod(target, pod_reqs))
    # The rest reads of the pod's requirements only which of their keys the catalog may not know (for
    # `unverified`): shared by every requirement that admits the same types with the same such keys.
    unverifiable = memo.shared(("unverifiable", pod_reqs), lambda: target.index.unverifiable(pod_reqs))
    key = ("fits", target.group, memo.requests_id(shape), id(with_pod), unverifiable)
    return memo.shared(key, lambda: intern_fitting(memo, _fits(target, shape, pod_reqs, with_pod)))


def _fits(
    target: PoolTarget, shape: PodShape, pod_reqs: Requirements, with_pod: tuple[IndexedType, ...]
) -> Fitting:
    fitting = tuple(e for e in with_pod if failure(target, e, shape) is None)
    known = tuple(e for e in fitting if not target.unverified(e, pod_reqs))
    return with_pod, fitting, known, _fit_check(target, shape, pod_reqs, fitting, known)


def intern_fitting(memo: PoolMemo, found: Fitting) -> Fitting:
    """One object per distinct answer (types by identity: the index's, alive as long as it), so that what is
    keyed by the answer is shared by every pod requirement that admits the same types (most selectors change
    no pool's answer, or change it the same way); the memo holds it, so its id is not reused."""
    with_pod, fitting, known, check = found
    key = ("fitting answer", *(tuple(map(id, types)) for types in (with_pod, fitting, known)), check)
    return memo.shared(key, lambda: found)


def _with_pod(target: PoolTarget, pod_reqs: Requirements) -> tuple[IndexedType, ...]:
    """The pool's types `pod_reqs` admit: one tuple per distinct set (held by the memo, so its id, which
    `fitting_types` keys by, is not reused)."""
    index = target.index
    admitted = index.admitted_by(pod_reqs)
    found = tuple(e for e in target.types if index.admits(admitted, pod_reqs, e))
    return target.memo.shared(("types", target.group, *map(id, found)), lambda: found)


def failure(target: PoolTarget, entry: IndexedType, shape: PodShape) -> str | None:
    """`PoolFit.failure`, once per fit group, type and the requests that decide it (for every shape that
    asks for as much)."""
    failures: dict[str, str | None] = target.memo.shared(
        ("failures", target.group, target.memo.requests_id(shape)), dict
    )
    name = entry.it.name
    if name in failures:
        return failures[name]
    found = failures[name] = target.fit.failure(entry, shape)
    return found


def _limit_capacity(entry: IndexedType, resource: str) -> Decimal | None:
    """What one instance counts against a limit (`it.Capacity`): `pods` is its max pods (the catalog's
    allocatable pods), None when the catalog lacks it."""
    if resource == "pods":
        pods = entry.it.allocatable_pods
        return None if pods is None else Decimal(pods)
    return raw_capacity_of(entry.it, resource)


def limit_problem(remaining: Resources, fitting: tuple[IndexedType, ...]) -> tuple[str | None, str | None]:
    """Why NodePool limits with this much left stop every fitting type (no pool name in it), and what could not
    be weighed: `scheduler.go` `addToNewNodeClaim` fails a pool with no `nodes` left ("node limits have been
    exhausted"), then `filterByRemainingResources` drops each type whose capacity exceeds what is left of any
    limited resource, `pods` (its max pods) included."""
    if remaining.get("nodes", Decimal(1)) <= 0:
        return "node limits have been exhausted", None
    problem = None
    unknown: set[str] = set()
    for entry in sorted(fitting, key=lambda e: (e.it.vcpu, e.it.memory_mib)):
        over, undecided = [], False
        for r, left in remaining.items():
            if r == "nodes":
                continue
            have = _limit_capacity(entry, r)
            if have is None:
                if left <= 0:  # any instance holds at least one pod
                    over.append(f"{r} > {short_quantity(left, r)} left")
                else:
                    undecided = True
                    unknown.add(r)
            elif have > left:
                over.append(f"{r} {short_quantity(have, r)} > {short_quantity(left, r)} left")
        if not over and not undecided:
            return None, None
        if over:
            problem = problem or f"even the smallest fitting type, {entry.it.name}, needs " + ", ".join(over)
    if unknown:
        return (
            None,
            f"the catalog does not know the {', '.join(sorted(unknown))} capacity of the fitting types",
        )
    return problem, None


def limit_answer_of(remaining: Resources, fitting: tuple[IndexedType, ...]) -> LimitAnswer:
    """`limit_problem` as the limits answer of a pool with this much left whose types fit."""
    problem, unknown = limit_problem(remaining, fitting)
    if unknown is not None:
        return LimitAnswer("unknown", detail=unknown)
    return LimitAnswer("ok") if problem is None else LimitAnswer("over", problem)


def _fit_check(
    target: PoolTarget,
    shape: PodShape,
    pod_reqs: Requirements,
    fitting: tuple[IndexedType, ...],
    known: tuple[IndexedType, ...],
) -> Check | None:
    """The "instance types" check when some type may fit (no pool name in it: shared by the group); None
    when none fits (the blocker names the pool)."""
    if known and target.fit.ephemeral_unknown(shape, known):
        return Check(
            "instance types", None, "ephemeral-storage requested and the NodeClass is not in the data"
        )
    if known:
        return Check("instance types", True, f"{len(known)} fit: {type_names(known)}")
    if fitting:
        unknown = sorted({k for e in fitting for k in target.unverified(e, pod_reqs)})
        return Check(
            "instance types",
            None,
            f"only {type_names(fitting)} may fit, and the catalog does not know their "
            f"{', '.join(unknown)}: not verified",
        )
    return None
