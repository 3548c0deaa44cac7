"""A NodePool as a target: could the provisioner launch a node for the pod shape, and if not, why.

What the pool is whatever the pod is `PoolFacts` (facts.py); this adds Karpenter's attempt for the pod (its
relaxations, tried on the pool in order) and the pool's template for the shape (template.py), shared by the
pools of a kind (kinds.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from datetime import datetime
from functools import partial

from kubectl_gpu.core.analyses.pending.checks.evaluation import (
    CAPACITY,
    SPEC,
    Check,
    TargetEvaluation,
    taint_list,
)
from kubectl_gpu.core.analyses.pending.checks.fixes import toleration_fix
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.checks import pool_checks
from kubectl_gpu.core.analyses.pending.targets.pools.facts import Fitting, PoolFacts
from kubectl_gpu.core.analyses.pending.targets.pools.instances import instance_blockers
from kubectl_gpu.core.analyses.pending.targets.pools.labels import unknown_label_blocker
from kubectl_gpu.core.analyses.pending.targets.pools.limits import LimitAnswer, limit_answer_of
from kubectl_gpu.core.analyses.pending.targets.pools.memo import (
    MISSING,
    PoolMemo,
    ShapeIds,
    answer_key,
    names_pools,
    pool_specific,
)
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL, POOL_REF, PoolCandidate, Template
from kubectl_gpu.core.analyses.pending.verdicts import POD_SELECTOR_VERDICTS, Blocker, Verdict
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import NodePool
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import IndexedType, InstanceIndex
from kubectl_gpu.core.scheduling.requirements import (
    Conflict,
    Incompatibility,
    Requirements,
    UnknownLabel,
)
from kubectl_gpu.core.scheduling.taints import Taint, pretty

# (the pod's requirements for the pool, their incompatibilities with it, how many relaxations came before)
Attempt = tuple[Requirements, list[Incompatibility], int]
# A template's parts, each one object for the shapes that get it (interned in the memo)
RequirementAnswer = tuple[tuple[Blocker, ...], Check]
InstanceAnswer = tuple[tuple[Blocker, ...], tuple[Check, ...], tuple[IndexedType, ...]]  # and the types left
_NO_LIMITS, _FORBIDDEN, _UNFITTED = LimitAnswer("none"), LimitAnswer("forbidden"), LimitAnswer("unfitted")
_NONE_LEFT: tuple[tuple[Taint, ...], bool] = ((), False)  # a pool without taints: none left, none preferred


class PoolTarget(PoolFacts):
    """A NodePool as a target for pod shapes: Karpenter's attempt for it and its template, per shape."""

    def __init__(
        self,
        pool: NodePool,
        state: ClusterState,
        catalog: Catalog,
        index: InstanceIndex,
        now: datetime,
        memo: PoolMemo | None = None,
    ) -> None:
        super().__init__(pool, state, catalog, index, now, memo)
        self._last_term: tuple[PodShape | None, Attempt] = (None, (Requirements(), [], 0))
        self._last_term_key: tuple[PodShape | None, tuple[object, ...]] = (None, ())
        # minValues: then its templates read the node requirements (`_template`)
        self.min_values = any(r.min_values for r in self.requirements.values())

    def stand_in(self) -> PoolTarget:
        """This pool as it would be if its name were `POOL`, its requirements included: its templates hold
        for every pool of its kind (kinds.py). Shares the fit, the types and the memo."""
        _ = self.group  # made before the copy: the same fit group
        twin = copy.copy(self)
        twin.requirements = self._requirements(POOL)[0]
        twin._type_classes = {}  # they read the requirements
        twin._last_term = (None, (Requirements(), [], 0))
        twin._last_term_key = (None, ())
        twin._last_offers, twin._last_fit = (None, False), (None, None, None)
        return twin

    def evaluate(self, shape: PodShape) -> TargetEvaluation:
        return self.candidate(shape).evaluation()

    def candidate(self, shape: PodShape) -> PoolCandidate:
        """This pool for the shape, on its own: its template and its limits answer."""
        template = self.template(shape, self._template_key(shape))
        return PoolCandidate(self, template, self.limit_answer(template.fitting))

    def template(self, shape: PodShape, key: Hashable) -> Template:
        """The template for the shape, once per `key` (what it depends on) in the shared memo."""
        return self.memo.get(shape, key, lambda: self._template(shape))

    def _template_key(self, shape: PodShape) -> Hashable:
        """What the template reads of this pool: its requirements but for its name (or the pool itself when
        the pod's answer can depend on the name), its fit group and its taints."""
        if self.memo.get(shape, "pool specific", lambda: pool_specific(shape, self.state, self.memo)):
            requirements: Hashable = ("pool", id(self))
        else:
            requirements = (self.requirement_group, self.requirement_error)
        return ("template", requirements, self.group, self.pool.taints)

    def _template(self, shape: PodShape) -> Template:
        """Taints, requirements, instance types and the pool checks, in words that call the pool `POOL`: one
        object for every shape whose answers to those are the same ones (`_template_of`)."""
        missing = self._taints_left(shape)[0]
        requirement = self._requirement_answer(shape)
        instance = self._instance_answer(shape)
        node_requirements = partial(self._node_requirements, shape)
        if shape.placement or self.state.placed_with_anti_affinity:  # the pool checks read the pod itself
            return self._template_of(shape, missing, requirement, instance, node_requirements)
        # Else they read only the types left and, for minValues, the pool's and pod's requirements together
        # (the node requirements are made for the key only then). The answers are the memo's (alive with it,
        # so their ids are not reused): shapes that differ only in selectors the pool answers alike share
        # the template, and so its entries (kinds.py).
        node_reqs = self._node_requirements(shape) if self.min_values else None
        key = (
            "template",
            id(self),
            missing,
            id(requirement),
            id(instance),
            self.offers(shape),
            self.relaxed(shape),
            id(node_reqs) if node_reqs is not None else None,
        )
        return self.memo.shared(
            key,
            lambda: self._template_of(shape, missing, requirement, instance, node_requirements),
        )

    def plain_template(self, ids: ShapeIds) -> Template:
        """`template`'s answer, the very object, for a shape without placement whose requirements read, in a
        cluster where no placed pod has anti-affinity, and a pool without minValues (`PoolKinds.entries`):
        each part of `_template`'s key is made once from the shape's `ids` and read from the memo by it,
        computed only where another shape has not found it first (most shapes share most parts)."""
        memo, shape = self.memo, ids.shape
        known = memo.known
        taints = self.pool.taints  # `_taints_left`, inline (a call per shape and kind)
        missing, prefer_no = memo.taints_left(shape, taints) if taints else _NONE_LEFT
        pool = id(self) if ids.names_pools else self.requirement_group
        term_key: tuple[object, ...] = (  # `_term_key`
            ("term", pool, ids.selectors, ids.requests, prefer_no)
            if ids.relaxes
            else ("term", pool, ids.selectors, prefer_no)
        )
        attempt: Attempt = known.get(term_key, MISSING)  # type: ignore[assignment]
        if attempt is MISSING:
            attempt = memo.shared(term_key, lambda: self._karpenters_attempt(shape))
        self._last_term_key, self._last_term = (shape, term_key), (shape, attempt)  # what `_term` would find
        key: tuple[object, ...] = ("requirement blockers", term_key, self.requirement_error)
        requirement: RequirementAnswer = known.get(key, MISSING)  # type: ignore[assignment]
        if requirement is MISSING:
            requirement = memo.shared(key, lambda: self._compute_requirement_blockers(shape))
        offers: object = True
        group = self.group
        key = ("instance blockers", group, ids.requests, None)
        if ids.wants_accelerator:  # `_instance_answer`, with `fitting`'s and `offers`' keys
            fit: Fitting = known.get(("fit", group, attempt[0], ids.requests), MISSING)  # type: ignore[assignment]
            if fit is MISSING:
                fit = self.fitting(shape, attempt[0])
            key = ("instance fits", id(fit)) if fit[3] is not None else (*key[:3], id(fit))
            offers = known.get(("offers", group, ids.accelerators), MISSING)
            if offers is MISSING:
                offers = self.offers(shape)
        instance: InstanceAnswer = known.get(key, MISSING)  # type: ignore[assignment]
        if instance is MISSING:
            instance = memo.shared(key, lambda: self._compute_instance_blockers(shape))
        key = ("template", id(self), missing, id(requirement), id(instance), offers, attempt[2], None)
        found: Template = known.get(key, MISSING)  # type: ignore[assignment]
        if found is MISSING:
            # no minValues, placement nor anti-affinity here: no check reads the node requirements
            found = memo.shared(
                key,
                lambda: self._template_of(
                    shape, missing, requirement, instance, partial(self._node_requirements, shape)
                ),
            )
        return found

    def _template_of(
        self,
        shape: PodShape,
        missing: tuple[Taint, ...],
        requirement: RequirementAnswer,
        instance: InstanceAnswer,
        node_requirements: Callable[[], Requirements],
    ) -> Template:
        blockers: list[Blocker] = []
        checks: list[Check] = []
        if missing:  # in words that read the taints alone: once per distinct taints left
            blocker, check = self.memo.shared(("untolerated", missing), lambda: _untolerated(missing))
            blockers.append(blocker)
            checks.append(check)
        else:
            checks.append(self._taints_check)
        blockers += requirement[0]
        checks.append(requirement[1])
        blockers += instance[0]
        checks += instance[1]
        relaxed = self.relaxed(shape)
        if shape.placement or self.state.placed_with_anti_affinity or self.min_values:
            fitting, more, more_checks = pool_checks(self, shape, instance[2], node_requirements, relaxed)
        else:  # the checks read the pool's fit (its overlays) and its types left alone: once per both
            fitting, more, more_checks = self.memo.shared(
                ("pool checks", self.group, id(instance[2])),  # the types: the memo's (interned), or `()`
                lambda: pool_checks(self, shape, instance[2], node_requirements, relaxed),
            )
        blockers += more
        checks += more_checks
        spec = capacity = 0
        excluded = False
        for b in blockers:  # most templates have none or one: one pass, not one per field
            spec += b.cls is SPEC
            capacity += b.cls is CAPACITY
            excluded = excluded or b.code in POD_SELECTOR_VERDICTS or b.detail.get("podSelector") is True
        return Template(
            offers=self.offers(shape),
            blockers=tuple(blockers),
            checks=tuple(checks),
            fitting=fitting,
            spec=spec,
            capacity=capacity,
            excluded=excluded,
            codes=frozenset([b.code for b in blockers]),
            relaxed=relaxed,
        )

    def _node_requirements(self, shape: PodShape) -> Requirements:
        """The pool's requirements with the pod's attempt: what a node launched for it would have."""
        if shape.requirements is None:
            return self.requirements
        term = self._term_requirements(shape)
        return self.memo.shared(
            ("node requirements", id(self), self._term_key(shape)),
            lambda: self.requirements.intersection(term),
        )

    def _requirement_answer(self, shape: PodShape) -> RequirementAnswer:
        """The requirement blockers and check, once per term (`_term_key`): one object for every shape with
        these selectors."""
        key = ("requirement blockers", self._term_key(shape), self.requirement_error)
        return self.memo.shared(key, lambda: self._compute_requirement_blockers(shape))

    def _compute_requirement_blockers(self, shape: PodShape) -> RequirementAnswer:
        """Interned: terms the pool answers alike (most pass) share one answer, and so their templates. Pools
        whose requirements answer the term alike (`_compatible`) word it once per selectors: the words read
        the incompatibilities, the provider and the pod's selectors, not the rest of the pool."""
        if self.requirement_error is None and shape.requirements is not None:
            found = self._term(shape)[1]  # held by the memo: its id is not reused
            if all(type(problem) is Conflict for problem in found):
                # A conflict's words read the conflict alone (its key, the pod's and the pool's requirement):
                # pods whose requirements differ elsewhere, and pools that differ elsewhere, share them.
                key: tuple[object, ...] = ("conflict words", *found)
            else:  # an unknown label's words read the pod's selectors, the provider and the catalog
                key = ("requirement words", self.provider, id(found), self.memo.selectors_id(shape))
            return self.memo.shared(key, lambda: self._requirement_words(shape))
        return self._requirement_words(shape)

    def _requirement_words(self, shape: PodShape) -> RequirementAnswer:
        checks: list[Check] = []
        found = tuple(self._requirement_blockers_of(shape, checks)), checks[0]
        return self.memo.shared(("requirement answer", answer_key(found[0], found[1:])), lambda: found)

    def _requirement_blockers_of(self, shape: PodShape, checks: list[Check]) -> list[Blocker]:
        if self.requirement_error:
            checks.append(
                Check("requirements", None, f"NodePool requirements unreadable: {self.requirement_error}")
            )
            return []
        if shape.requirements is None:
            checks.append(Check("requirements", None, f"pod affinity unreadable: {shape.requirement_error}"))
            return []
        out: list[Blocker] = []
        found = self._term(shape)[1]
        for problem in found:
            if isinstance(problem, UnknownLabel):
                out.append(unknown_label_blocker(self, shape, problem))
            elif isinstance(problem, Conflict):
                allowed = problem.pool_requirement.render(with_key=False)
                out.append(
                    Blocker(
                        Verdict.REQUIREMENT_CONFLICT,
                        SPEC,
                        POOL_REF,
                        f"{problem.summary} (pod vs NodePool {POOL})",
                        f"make the pod's {problem.key} match what NodePool {POOL} allows "
                        f"({allowed}), or allow the pod's value in the NodePool's requirements",
                        {"key": problem.key},
                    )
                )
        if out:
            checks.append(Check("requirements", False, "; ".join(b.message for b in out)))
        else:
            checks.append(Check("requirements", True, "pod selectors and affinity are compatible"))
        return out

    def _term(self, shape: PodShape) -> Attempt:
        """The pod's requirements for this pool, their incompatibilities with it and the attempt's number: once
        per requirement group, selectors and requests (memo.py, facts.py), per pool when the pod selects NodePools
        by name."""
        if self._last_term[0] is shape:  # an evaluation asks three times
            return self._last_term[1]
        found = self.memo.shared(self._term_key(shape), lambda: self._karpenters_attempt(shape))
        self._last_term = (shape, found)
        return found

    def _term_key(self, shape: PodShape) -> tuple[object, ...]:
        """What the term depends on: the pool's requirements (its requirement group, or the pool itself for
        a pod that selects NodePools by name), the pod's nodeSelector and node affinity, its requests (the
        attempt that holds the pod is the one chosen) and whether only the last attempt can tolerate the pool's
        PreferNoSchedule taints."""
        if self._last_term_key[0] is shape:  # a template asks three times
            return self._last_term_key[1]
        pool: object = (
            id(self)
            if self.memo.get(shape, "names pools", lambda: names_pools(shape))
            else self.requirement_group
        )
        prefer_no = self._prefer_no(shape)
        if not self._relaxes(shape):  # one attempt: it is the answer, whatever the requests
            key: tuple[object, ...] = ("term", pool, self.memo.selectors_id(shape), prefer_no)
        else:
            key = ("term", pool, self.memo.selectors_id(shape), self.memo.requests_id(shape), prefer_no)
        self._last_term_key = (shape, key)
        return key

    def _relaxes(self, shape: PodShape) -> bool:
        """Whether Karpenter has more than one attempt for the shape (OR-terms or preferred terms)."""
        reqs = shape.requirements
        return reqs is not None and len(self.attempts(shape)) > 1

    def attempts(self, shape: PodShape) -> tuple[Requirements, ...]:
        """Karpenter's attempts for the shape (`PodSchedulingRequirements.relaxations`, which builds them at
        each call), once per shape for every pool."""
        reqs = shape.requirements
        assert reqs is not None
        return self.memo.get(shape, "relaxations", reqs.relaxations)

    def _prefer_no(self, shape: PodShape) -> bool:
        return self._taints_left(shape)[1]

    def _taints_left(self, shape: PodShape) -> tuple[tuple[Taint, ...], bool]:
        """The pool's taints the shape does not tolerate with a blocking effect, and whether a PreferNoSchedule
        one is left (`PoolMemo.taints_left`)."""
        taints = self.pool.taints
        return self.memo.taints_left(shape, taints) if taints else _NONE_LEFT

    def _term_requirements(self, shape: PodShape) -> Requirements:
        return self._term(shape)[0] if shape.requirements is not None else Requirements()

    def relaxed(self, shape: PodShape) -> int:
        """How many relaxations Karpenter makes before it tries this pool with the attempt it can take (0: the
        pod as written): among pools that take the pod, the one with fewest wins."""
        return self._term(shape)[2] if shape.requirements is not None else 0

    def _compatible(self, reqs: Requirements) -> list[Incompatibility]:
        """`Requirements.compatible` of the pool with the pod's `reqs`, once per what it reads of the pool: its
        requirement at each of the pod's keys, and its keys (a label's hint) where one of the pod's keys is
        not among them. NodePools that differ only at keys the pod does not select share the answer (held
        by the memo, so its id keys the words: `_compute_requirement_blockers`)."""
        existing = self.requirements.by_key
        projection = tuple(map(existing.get, reqs.by_key))
        hint = self.requirements.key_set() if any(k not in existing for k in reqs.by_key) else None
        key = ("compatible", self.provider, reqs, projection, hint)
        return self.memo.shared(
            key, lambda: list(self.requirements.compatible(reqs, allow_undefined=self.well_known))
        )

    def _karpenters_attempt(self, shape: PodShape) -> Attempt:
        """Karpenter's attempts (`PodSchedulingRequirements.relaxations`), tried on this pool in order: the first
        whose requirements are compatible with it and leave an instance type that holds the pod is the one it
        provisions for; when none does, the last (what its error is about). A pool with a PreferNoSchedule taint
        the pod does not tolerate is only taken after the very last relaxation (`toleratePreferNoScheduleTaints`)."""
        assert shape.requirements is not None
        attempts = self.attempts(shape)
        first = len(attempts) if self._prefer_no(shape) else 0
        if len(attempts) == 1:  # the only attempt: no instance fit to weigh it by
            return (
                attempts[0],
                self._compatible(attempts[0]),
                first,
            )
        if first:
            attempts = attempts[-1:]
        for number, reqs in enumerate(attempts, start=first):
            found = self._compatible(reqs)
            if found:
                continue
            if not shape.wants_accelerator or self.fitting(shape, reqs)[1]:
                return reqs, found, number
        last = attempts[-1]
        return (
            last,
            self._compatible(last),
            first + len(attempts),
        )

    def _instance_answer(self, shape: PodShape) -> InstanceAnswer:
        """The instance-type blockers, checks and fitting types, once per fit group, requests and ephemeral
        storage, and the instance fit's answer (interned: `intern_fitting`), through which alone
        `instance_blockers` reads the pod's requirements; once per fit answer alone where some type may fit
        (then `instance_blockers` reads nothing else: every pool with that answer shares it)."""
        answer = None
        if shape.wants_accelerator:
            fit = self.fitting(shape, self._term_requirements(shape))  # interned and held by the memo
            if fit[3] is not None:  # some type may fit: the answer is that check and those types, no blocker
                return self.memo.shared(
                    ("instance fits", id(fit)), lambda: self._compute_instance_blockers(shape)
                )
            answer = id(fit)
        key = ("instance blockers", self.group, self.memo.requests_id(shape), answer)
        return self.memo.shared(key, lambda: self._compute_instance_blockers(shape))

    def _compute_instance_blockers(self, shape: PodShape) -> InstanceAnswer:
        """Interned, as the requirement answer is."""
        blockers: list[Blocker] = []
        checks: list[Check] = []
        fitting = instance_blockers(self, shape, self._term_requirements(shape), blockers, checks)
        found = tuple(blockers), tuple(checks), fitting
        key = ("instance answer", answer_key(found[0], found[1]), *map(id, fitting))  # the index's types
        return self.memo.shared(key, lambda: found)

    def limit_answer(self, fitting: tuple[IndexedType, ...]) -> LimitAnswer:
        if not self.pool.limits:
            return _NO_LIMITS
        if "nodeclaims" in self.unreadable:
            return _FORBIDDEN
        if not fitting:
            return _UNFITTED
        # Pools with as much left share the answer, and shapes with the same fitting types (identity key: the
        # entry keeps `fitting` alive, so its id is not reused while the entry is there).
        key = ("limits", id(fitting), self.remaining_key)
        kept, found = self.memo.shared(key, lambda: (fitting, limit_answer_of(self.remaining, fitting)))
        return found if kept is fitting else limit_answer_of(self.remaining, fitting)


def _untolerated(missing: tuple[Taint, ...]) -> tuple[Blocker, Check]:
    """The MISSING_TOLERATION blocker and the taints check for the taints the pod does not tolerate."""
    blocker = Blocker(
        Verdict.MISSING_TOLERATION,
        SPEC,
        POOL_REF,
        f"pod does not tolerate {taint_list(missing)} of NodePool {POOL}",
        toleration_fix(missing),
        {"taints": [pretty(t) for t in missing]},
    )
    return blocker, Check("taints", False, f"untolerated: {taint_list(missing)}")
