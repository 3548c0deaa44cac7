"""A NodePool with what does not depend on the pod computed once (its requirements, the instance types they
admit, their fit with the pool's DaemonSets, NodeOverlays and NodeClass, its limits left, its NodeClass,
readiness and capacity events), and which of its types hold a pod shape, once per fit group (memo.py).

`PoolTarget` (target.py) adds the pod's side: Karpenter's attempt for the pool and the pool's template.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime

from kubectl_gpu.core.analyses.pending.checks.evaluation import (
    CAPACITY,
    SPEC,
    Check,
    short_quantity,
    taint_list,
    type_names,
)
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.conditions import (
    capacity_event,
    node_class_blocker,
    ready_blocker,
    state_blocker,
)
from kubectl_gpu.core.analyses.pending.targets.pools.fit import PoolFit
from kubectl_gpu.core.analyses.pending.targets.pools.limits import remaining_limits
from kubectl_gpu.core.analyses.pending.targets.pools.memo import MISSING, NODEPOOL, PoolMemo
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef
from kubectl_gpu.core.catalog import Catalog, Provider
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import IndexedType, InstanceIndex
from kubectl_gpu.core.scheduling.requirements import RequirementError, Requirements, template_requirements

__all__ = ["Fitting", "PoolFacts", "failure", "fitting_types", "intern_fitting"]

# (types the pool and the pod's requirements both admit, those that hold the pod, those known to hold it,
# the "instance types" check when some may fit)
Fitting = tuple[tuple[IndexedType, ...], tuple[IndexedType, ...], tuple[IndexedType, ...], Check | None]


class PoolFacts:
    """A NodePool, with what does not depend on the pod computed once."""

    def __init__(
        self,
        pool: NodePool,
        state: ClusterState,
        catalog: Catalog,
        index: InstanceIndex,
        now: datetime,
        memo: PoolMemo | None = None,
    ) -> None:
        self.pool = pool
        self.memo = memo if memo is not None else PoolMemo()  # shared with pools that fit alike
        self.state = state
        self.catalog = catalog
        self.index = index
        self.provider: Provider = index.provider
        self.ref = TargetRef("NodePool", pool.name)
        self.prefix = "eks.amazonaws.com" if self.provider == "auto" else "karpenter.k8s.aws"
        self._spec: Requirements | None = None  # `spec.requirements` read (`_requirements`)
        self.requirements, self.requirement_error = self._requirements(pool.name)
        self.types = self._admitted()
        self.types_mask = index.mask_of(self.types)
        self.well_known = catalog.well_known_labels(self.provider)
        self.fit = make_fit(self)  # daemonset overhead, NodeOverlays, ephemeral storage (fit.py)
        self.remaining = remaining_limits(pool, state, catalog)
        # what is left, as a small id: pools with as much left share their limits answers
        self.remaining_key = self.memo.small_id(("remaining", tuple(self.remaining.items())))
        self.unreadable = frozenset(n.kind for n in state.notes if n.code == "FORBIDDEN" and n.kind)
        self.node_class_blocker = node_class_blocker(pool, self.ref, state)
        self.ready_blocker = ready_blocker(pool, self.ref, self.node_class_blocker)
        self.capacity_event = capacity_event(pool, self.ref, state, self.memo, now)
        self.requirement_group = self.memo.group(requirement_signature(self))
        self._group: int | None = None
        self._type_classes: dict[str, int] = {}
        # The last shape's answers (a template asks for each more than once): no key built for a repeat
        self._last_offers: tuple[PodShape | None, bool] = (None, False)
        self._last_fit: tuple[PodShape | None, Requirements | None, Fitting | None] = (None, None, None)
        self.own_blockers, self.own_checks = self._own_parts()
        self.own_codes = frozenset(b.code for b in self.own_blockers)
        self.own_spec = sum(1 for b in self.own_blockers if b.cls is SPEC)
        self.own_capacity = sum(1 for b in self.own_blockers if b.cls is CAPACITY)
        # a template's taints check where none is left untolerated: one object per pool
        self._taints_check = Check(
            "taints", True, f"tolerated: {taint_list(pool.taints)}" if pool.taints else "no taints"
        )
        self.remaining_text = ", ".join(
            f"{k}={short_quantity(v, k)}" for k, v in sorted(self.remaining.items())
        )

    def _requirements(self, name: str) -> tuple[Requirements, str | None]:
        """The pool's requirements as Karpenter builds them (its name and NodeClass included), or none and
        why they do not parse; its `spec.requirements` are read once (`stand_in` asks again, for `POOL`)."""
        pool = self.pool
        try:
            if self._spec is None:
                self._spec = Requirements.of(*pool.requirements)
            node_class_label = None
            if pool.node_class_ref is not None:
                ref = pool.node_class_ref
                node_class_label = (f"{ref.group}/{ref.kind.lower()}", ref.name)
            found = template_requirements(
                self._spec, name, pool.template_labels, node_class_label=node_class_label
            )
        except RequirementError as exc:
            return Requirements(), str(exc)
        return found, None

    def _admitted(self) -> tuple[IndexedType, ...]:
        """The instance types the requirements admit: the same for pools whose requirements differ only by
        their name (not an instance-type label), so once per analysis for them."""
        index, reqs = self.index, self.requirements
        named = NODEPOOL in index.universe
        key = ("admitted", id(index), frozenset((k, r) for k, r in reqs.items() if named or k != NODEPOOL))
        return self.memo.shared(key, lambda: index.admitted(reqs))

    @property
    def group(self) -> int:
        """This pool's fit group in `memo` (memo.py, facts.py), made on first use."""
        if self._group is None:
            self._group = self.memo.group(fit_signature(self))
        return self._group

    def type_class(self, entry: IndexedType) -> int:
        """A small id per distinct fit of one type in a pool: all that `PoolFit.failure`, `unverified` (the
        pool's side) and `_fit_check` read of the pool for it (its daemons' overhead, what NodeOverlays set
        on its capacity, the pool's requirement keys the catalog does not know for it, the NodeClass)."""
        found = self._type_classes.get(entry.it.name)
        if found is None:
            fit = self.fit
            found = self._type_classes[entry.it.name] = self.memo.small_id(
                (
                    "type fit",
                    id(entry),
                    tuple(sorted(fit.overhead(entry).items())),
                    tuple(sorted(fit.overlay_capacity(entry).items())),
                    self.index.unverified_keys(self.requirements, entry),
                    id(fit.node_class) if fit.node_class is not None else None,
                )
            )
        return found

    def offers(self, shape: PodShape) -> bool:
        if not shape.wants_accelerator:
            return True
        last, found = self._last_offers
        if last is not shape:
            key = ("offers", self.group, self.memo.accelerators_id(shape))  # it reads their names alone
            found = self.memo.shared(key, lambda: self._offers(shape))
            self._last_offers = (shape, found)
        return found

    def _offers(self, shape: PodShape) -> bool:
        return any(all(self.fit.capacity(e, r) > 0 for r in shape.accelerators) for e in self.types)

    def fitting(self, shape: PodShape, pod_reqs: Requirements) -> Fitting:
        """`fitting_types`, once per fit group, pod requirements, requests and ephemeral storage."""
        last, last_reqs, found = self._last_fit
        if last is shape and last_reqs is pod_reqs and found is not None:
            return found
        key = ("fit", self.group, pod_reqs, self.memo.requests_id(shape))
        found = self.memo.shared(key, lambda: fitting_types(self, shape, pod_reqs))
        self._last_fit = (shape, pod_reqs, found)
        return found

    def unverified(self, entry: IndexedType, pod_reqs: Requirements) -> tuple[str, ...]:
        return self.index.unverified_keys(self.requirements, entry) + self.index.unverified_keys(
            pod_reqs, entry
        )

    def _own_parts(self) -> tuple[tuple[Blocker, ...], tuple[Check, ...]]:
        """The blockers and checks that do not depend on the pod: NodeClass, readiness, capacity events."""
        blockers: list[Blocker] = []
        checks: list[Check] = []
        if isinstance(self.node_class_blocker, Blocker):
            blockers.append(self.node_class_blocker)
            checks.append(Check("nodeclass", False, self.node_class_blocker.message))
        else:
            checks.append(self.node_class_blocker)
        if self.ready_blocker is not None:
            blockers.append(self.ready_blocker)
            checks.append(Check("ready", False, self.ready_blocker.message))
        if (found := state_blocker(self.pool, self.ref)) is not None:
            blockers.append(found)
            checks.append(Check("launches", False, found.message))
        if self.capacity_event is not None:
            blockers.append(self.capacity_event)
            checks.append(Check("capacity", False, self.capacity_event.message))
        elif "events" in self.unreadable:
            checks.append(Check("capacity", None, "events could not be read (forbidden)"))
        else:
            checks.append(Check("capacity", True, "no recent InsufficientCapacityError"))
        return tuple(blockers), tuple(checks)


def make_fit(target: PoolFacts) -> PoolFit:
    """What the pool's instance types hold once its DaemonSets, NodeOverlays and NodeClass are counted."""
    ref = target.pool.node_class_ref
    node_class = target.state.nodeclass_by_ref.get((ref.kind, ref.name)) if ref is not None else None
    return PoolFit(
        target.pool,
        target.requirements,
        target.well_known,
        target.index,
        target.types,
        target.state.daemonsets,
        target.state.nodeoverlays,
        node_class,
    )


def requirement_signature(target: PoolFacts) -> Hashable:
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


def fit_signature(target: PoolFacts) -> Hashable:
    """Everything `fitting_types` and `PoolFacts.offers` read of a pool, as a hashable value."""
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


def fitting_types(target: PoolFacts, shape: PodShape, pod_reqs: Requirements) -> Fitting:
    """The pool's types the pod's requirements admit, those that hold the pod with its daemons, and those
    of them the catalog knows every required label of (interned: `intern_fitting`)."""
    memo = target.memo
    with_pod = target.types
    if shape.requirements is not None:  # the same for every shape with these requirements
        with_pod = memo.shared(("with pod", target.group, pod_reqs), lambda: _with_pod(target, pod_reqs))
        # interned per fit group (`_with_pod`), whose pools' types have the same classes: once per tuple
        classes = memo.shared(("classes", id(with_pod)), lambda: tuple(map(target.type_class, with_pod)))
    else:
        classes = tuple(map(target.type_class, with_pod))
    # The rest reads of the pod's requirements only which of their keys the catalog may not know (for
    # `unverified`): shared by every requirement that admits the same types with the same such keys.
    unverifiable = memo.shared(("unverifiable", pod_reqs), lambda: target.index.unverifiable(pod_reqs))
    # By the types' fit classes (`PoolFacts.type_class`), not the pool's fit group: pools of different groups
    # that admit these types with the same fit per type (most of them) answer once per requests.
    key = ("fits", memo.requests_id(shape), classes, unverifiable)
    return memo.shared(key, lambda: intern_fitting(memo, _fits(target, shape, pod_reqs, with_pod, classes)))


def _fits(
    target: PoolFacts,
    shape: PodShape,
    pod_reqs: Requirements,
    with_pod: tuple[IndexedType, ...],
    classes: tuple[int, ...],
) -> Fitting:
    """`with_pod`'s types that hold the pod (`failure`, by each type's fit class: `classes`, in their order),
    those known to, and the check."""
    failures = _failures(target, shape)
    fitting: list[IndexedType] = []
    for entry, fit_class in zip(with_pod, classes, strict=True):
        why = failures.get(fit_class, MISSING)
        if why is MISSING:
            why = failures[fit_class] = target.fit.failure(entry, shape)
        if why is None:
            fitting.append(entry)
    # a type whose every label the catalog knows is never unverified (`InstanceIndex.unverified_keys`)
    known = tuple(e for e in fitting if not e.unknown or not target.unverified(e, pod_reqs))
    found = tuple(fitting)
    return with_pod, found, known, _fit_check(target, shape, pod_reqs, found, known)


def intern_fitting(memo: PoolMemo, found: Fitting) -> Fitting:
    """One object per distinct answer (types by identity: the index's, alive as long as it), so that what is
    keyed by the answer is shared by every pod requirement that admits the same types (most selectors change
    no pool's answer, or change it the same way); the memo holds it, so its id is not reused."""
    with_pod, fitting, known, check = found
    key = ("fitting answer", *(tuple(map(id, types)) for types in (with_pod, fitting, known)), check)
    return memo.shared(key, lambda: found)


def _with_pod(target: PoolFacts, pod_reqs: Requirements) -> tuple[IndexedType, ...]:
    """The pool's types `pod_reqs` admit: one tuple per distinct set (held by the memo, so its id, which
    `fitting_types` keys by, is not reused)."""
    index = target.index
    mask = target.types_mask & index.passing(pod_reqs)  # both in index order: so is the tuple
    return target.memo.shared(("types", target.group, mask), lambda: index.of_mask(mask))


def failure(target: PoolFacts, entry: IndexedType, shape: PodShape) -> str | None:
    """`PoolFit.failure`, once per type fit class (`PoolFacts.type_class`) and the requests that decide it
    (for every pool and shape that ask for as much)."""
    failures = _failures(target, shape)
    fit_class = target.type_class(entry)
    if fit_class in failures:
        return failures[fit_class]
    found = failures[fit_class] = target.fit.failure(entry, shape)
    return found


def _failures(target: PoolFacts, shape: PodShape) -> dict[int, str | None]:
    """`PoolFit.failure` by type fit class, for the requests that decide it (`failure`)."""
    return target.memo.shared(("failures", target.memo.requests_id(shape)), dict)


def _fit_check(
    target: PoolFacts,
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
