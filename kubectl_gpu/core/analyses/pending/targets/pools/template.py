"""One evaluation per kind of NodePool, named for each pool only when it is shown.

A cluster with 1,200 NodePools (one per team and family) has a few dozen kinds of pool as far as a pod shape
goes: pools with the same requirements (but their own name), instance-type fit and taints answer the pod's
taints, requirements, instance types, host ports, minValues, topology and volumes the same way, in the same
words but for the pool's name. That part is a `Template`, with a placeholder for the name (`POOL`), found once
per kind and shape and made once per kind and distinct answers (`PoolTarget._template`: shapes whose selectors
the kind answers alike share one). What is the pool's own (limits left, NodeClass, readiness, capacity events, weight,
name) is added per pool: `PoolCandidate` knows its rank among the targets from the template's counts and
its own blockers, and builds the named `TargetEvaluation` only when it is asked for (the nearest targets,
or every one for `explain`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, Check, TargetEvaluation
from kubectl_gpu.core.analyses.pending.targets.pools.facts import PoolFacts
from kubectl_gpu.core.analyses.pending.targets.pools.limits import LimitAnswer, limit_parts
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, BlockerClass, TargetRef, Verdict
from kubectl_gpu.core.scheduling.instances import IndexedType

__all__ = ["POOL", "POOL_REF", "PoolCandidate", "Template", "named_blocker", "named_check"]

#: Stands for the pool's name in a template's words: NUL never occurs in a Kubernetes name or label.
POOL = "\x00nodepool\x00"
POOL_REF = TargetRef("NodePool", POOL)

# A target's rank among the others (`ranking.nearness`): offers nothing, excluded by the pod's selectors,
# spec blockers, capacity blockers, Karpenter's relaxations before it takes the pod, minus weight, name.
Key = tuple[bool, bool, int, int, int, int, str]
_LIMITED = frozenset({Verdict.NODEPOOL_LIMIT_REACHED})


class Template(msgspec.Struct, frozen=True):
    """What a kind of pool answers for a pod shape, its name left as `POOL`."""

    offers: bool
    blockers: tuple[Blocker, ...]  # in the order found (sorted by rank once the pool's own are added)
    checks: tuple[Check, ...]
    fitting: tuple[IndexedType, ...]  # the types left for the limits check
    spec: int
    capacity: int
    excluded: bool  # a blocker says the pod's own selectors rule the pool out (ranking.excluded_by_pod)
    codes: frozenset[Verdict] = frozenset()  # of `blockers`
    relaxed: int = 0  # the attempt Karpenter takes the pod with (PoolTarget.relaxed)


def named_blocker(blocker: Blocker, ref: TargetRef) -> Blocker:
    name = ref.name
    fix = blocker.fix.replace(POOL, name) if blocker.fix else blocker.fix
    return Blocker(blocker.code, blocker.cls, ref, blocker.message.replace(POOL, name), fix, blocker.detail)


def named_check(check: Check, name: str) -> Check:
    if POOL not in check.detail:
        return check
    return Check(check.name, check.ok, check.detail.replace(POOL, name))


class PoolCandidate:
    """One NodePool for one pod shape: its rank without its words, and its evaluation on demand.

    `words`, when given, makes the template in the shape's own words: `template` is then one shared with
    shapes that rank alike against the pool (unnamed.py), right in everything but its words."""

    __slots__ = ("_evaluation", "key", "limit", "target", "template", "words")

    def __init__(
        self,
        target: PoolFacts,
        template: Template,
        limit: LimitAnswer,
        words: Callable[[], Template] | None = None,
    ) -> None:
        self.target = target
        self.template = template
        self.limit = limit
        self.words = words
        self.key: Key = (
            not template.offers,
            template.excluded,
            template.spec + target.own_spec,
            template.capacity + (limit.problem is not None) + target.own_capacity,
            template.relaxed,
            -(target.pool.weight or 0),
            target.pool.name,
        )
        self._evaluation: TargetEvaluation | None = None

    def worded(self, words: Callable[[], Template]) -> PoolCandidate:
        """This candidate with its evaluation in the words `words` gives (`PoolKinds.reword`)."""
        return PoolCandidate(self.target, self.template, self.limit, words)

    @property
    def ref(self) -> TargetRef:
        return self.target.ref

    @property
    def offers(self) -> bool:
        return self.template.offers

    @property
    def shared(self) -> object:
        """What candidates of one kind share: their template (`Ranked.facts` reads each once)."""
        return self.template

    @property
    def code_set(self) -> frozenset[Verdict]:
        found = self.template.codes
        if self.target.own_codes:
            found = found | self.target.own_codes
        if self.limit.problem is not None:
            found = found | _LIMITED
        return found

    @property
    def blocker_total(self) -> int:
        limited = self.limit.problem is not None
        return len(self.template.blockers) + limited + len(self.target.own_blockers)

    def codes(self) -> Iterator[tuple[Verdict, BlockerClass, dict[str, Any]]]:
        """Every blocker's code, class and detail, without building its words."""
        for b in self.template.blockers:
            yield b.code, b.cls, b.detail
        if self.limit.problem is not None:
            yield Verdict.NODEPOOL_LIMIT_REACHED, CAPACITY, {}
        for b in self.target.own_blockers:
            yield b.code, b.cls, b.detail

    def evaluation(self) -> TargetEvaluation:
        if self._evaluation is None:
            own = self if self.words is None else PoolCandidate(self.target, self.words(), self.limit)
            self._evaluation = own.named_evaluation()
        return self._evaluation

    def named_evaluation(self) -> TargetEvaluation:
        """The template in the pool's words, with the pool's own blockers and checks."""
        target, template = self.target, self.template
        name = target.pool.name
        blockers = [named_blocker(b, target.ref) for b in template.blockers]
        checks = [named_check(c, name) for c in template.checks]
        limit_parts(target.pool, target.ref, target.remaining_text, self.limit, blockers, checks)
        blockers += target.own_blockers
        checks += target.own_checks
        blockers.sort(key=lambda b: b.rank)
        return TargetEvaluation(
            target.ref,
            template.offers,
            tuple(blockers),
            tuple(checks),
            weight=target.pool.weight or 0,
            fitting_types=tuple(e.it.name for e in template.fitting),
            relaxed=template.relaxed,
        )
