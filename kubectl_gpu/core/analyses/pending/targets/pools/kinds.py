"""NodePools sorted into kinds once per analysis, so that a pod shape is evaluated once per kind.

A kind is the pools with the same requirements but for their name, the same instance-type fit (memo.py, facts.py)
and the same taints. Its *stand-in* is one of them renamed `POOL` (requirements included), so the stand-in's
template (template.py) is every member's in its words. Pools of a kind whose limits stop the shape's
fitting types alike (or that have none) rank as one entry, each worded with its own limits answer. What can
still tell two members apart is their name, and only for a shape that reads it:
* a shape that selects `karpenter.sh/nodepool`: a member is answered by the stand-in's template when each of
  the pod's NodePool requirements admits its name exactly when it admits `POOL` (the pools the pod does not
  name); the others (the pools it names) get their own;
* a shape whose volumes, topology spread or pod (anti-)affinity may read the name (`pool_specific`): every
  member gets its own.

Shapes that name pools by their nodeSelector and differ only in the name share the stand-ins' templates for
ranking (unnamed.py), and so their entries; a target of theirs is put in the shape's own words only where it
is shown (`PoolKinds.reword`, applied by `Ranked`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import partial

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.ranking import Candidate, Entry
from kubectl_gpu.core.analyses.pending.targets.pools.limits import LimitAnswer
from kubectl_gpu.core.analyses.pending.targets.pools.memo import (
    NODEPOOL,
    ShapeIds,
    names_pools,
    reads_pool_name,
)
from kubectl_gpu.core.analyses.pending.targets.pools.target import PoolTarget
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL, PoolCandidate, Template
from kubectl_gpu.core.analyses.pending.targets.pools.unnamed import unnamed_key, unnamed_shape
from kubectl_gpu.core.analyses.pending.verdicts import TargetRef

__all__ = ["PoolKinds"]


class _Kind:
    def __init__(self, members: list[PoolTarget]) -> None:
        self.members = members
        self.stand_in = members[0].stand_in()
        self.simple = not self.stand_in.min_values  # its templates read no node requirements
        # Members that rank alike for any shape but for their limits (the same blockers of their own), each
        # bundle sorted as the ranking breaks ties: by weight, then name. Members with limits are told apart
        # per shape, by whether what they have left stops the shape's fitting types (`_bundles`).
        bundles: dict[Hashable, list[PoolTarget]] = {}
        for member in members:
            key = (bool(member.pool.limits), member.own_codes, member.own_spec, member.own_capacity)
            bundles.setdefault(key, []).append(member)
        self.bundles = [[(_tail(m), m) for m in sorted(b, key=_tail)] for b in bundles.values()]


def _tail(target: PoolTarget) -> tuple[int, str]:
    return -(target.pool.weight or 0), target.pool.name


def _mentioned(shape: PodShape) -> frozenset[str] | None:
    """The pool names the pod's `karpenter.sh/nodepool` requirements list: only a pool by one of these names
    can be admitted differently from `POOL` (None: a numeric bound, which any name may meet or not)."""
    assert shape.requirements is not None
    names: set[str] = set()
    for alternative in shape.requirements.alternatives():
        req = alternative.get(NODEPOOL)
        if req is None:
            continue
        if req.gte is not None or req.lte is not None:
            return None
        names |= req.values
    return frozenset(names)


def _admission(shape: PodShape, name: str) -> tuple[bool | None, ...]:
    """Whether each of the pod's required terms admits a pool by this name (None: it says nothing)."""
    assert shape.requirements is not None
    out: list[bool | None] = []
    for alternative in shape.requirements.alternatives():
        req = alternative.get(NODEPOOL)
        out.append(None if req is None else req.has(name))
    return tuple(out)


class PoolKinds:
    """Every NodePool of an analysis, by kind."""

    def __init__(self, targets: Sequence[PoolTarget], *, share_unnamed: bool = True) -> None:
        kinds: dict[Hashable, list[PoolTarget]] = {}
        for t in targets:
            key = (t.requirement_group, t.requirement_error, t.group, t.pool.taints)
            kinds.setdefault(key, []).append(t)
        self.kinds = [_Kind(members) for members in kinds.values()]
        # Each member by its pool's name, with its bundle's id: a shape that names pools finds the members it
        # names here (`_named`), not by asking every member of every bundle.
        self._by_name: dict[str, list[tuple[int, PoolTarget]]] = {}
        for kind in self.kinds:
            for bundle in kind.bundles:
                for _, member in bundle:
                    self._by_name.setdefault(member.pool.name, []).append((id(bundle), member))
        # no placed pod's anti-affinity makes the pool checks read a pod without placement (`plain_template`)
        self.plain = bool(targets) and not targets[0].state.placed_with_anti_affinity
        # unnamed.py's conditions that are the cluster's: no index tells types apart by pool name, and no
        # placed pod's anti-affinity may select a pod by its labels (they are not in `shape.key`).
        self.share_unnamed = (
            share_unnamed
            and bool(targets)
            and not targets[0].state.placed_with_anti_affinity
            and not any(NODEPOOL in t.index.universe for t in targets)
        )

    def _unnamed(self, shape: PodShape) -> list[Template] | None:
        """Every kind's stand-in template for the shape with its pool name replaced (unnamed.py), once per
        such shape; None where they are not shared."""
        key = unnamed_key(shape) if self.share_unnamed else None
        if key is None:
            return None
        memo = self.kinds[0].stand_in.memo

        def compute() -> list[Template] | None:
            other = unnamed_shape(shape, key)
            if other is None:
                return None
            ids = self._ids(other)
            return [self._template(kind, n, other, ids) for n, kind in enumerate(self.kinds)]

        return memo.shared(("unnamed templates", key), compute)

    def __len__(self) -> int:
        return len(self.kinds)

    def _ids(self, shape: PodShape) -> ShapeIds | None:
        """The shape's ids for `PoolTarget.plain_template` where it applies to it (most shapes' templates, or
        their parts, are already known for most kinds: other shapes found them); None elsewhere."""
        if self.plain and shape.requirements is not None and not shape.placement:
            return self.kinds[0].stand_in.memo.ids(shape)
        return None

    @staticmethod
    def _template(kind: _Kind, number: int, shape: PodShape, ids: ShapeIds | None) -> Template:
        """The kind's stand-in's template for the shape."""
        if ids is not None and kind.simple:
            return kind.stand_in.plain_template(ids)
        return kind.stand_in.template(shape, ("kind", number))

    def reword(self, shape: PodShape) -> Callable[[Candidate], Candidate] | None:
        """For a shape whose kinds' templates are shared with the shapes that differ from it only in the pool
        they name (`_unnamed`): a candidate of one of those templates in the shape's own words, made when it
        is shown (`Ranked`); None for any other shape."""
        if not self.kinds or not names_pools(shape):
            return None
        first = self.kinds[0].stand_in
        if first.memo.get(shape, "reads pool name", lambda: reads_pool_name(shape, first.state, first.memo)):
            return None
        shared = self._unnamed(shape)
        if shared is None:
            return None
        numbers: dict[int, int] = first.memo.shared(
            ("unnamed kinds", id(shared)), lambda: {id(t): n for n, t in enumerate(shared)}
        )
        words: dict[int, _Words] = {}

        def reword(candidate: Candidate) -> Candidate:
            number = numbers.get(id(getattr(candidate, "template", None)))
            if number is None or not isinstance(candidate, PoolCandidate):
                return candidate
            found = words.get(number)
            if found is None:
                found = words[number] = _Words(self.kinds[number].stand_in, shape, number)
            return candidate.worded(found)

        return reword

    def _named(
        self, shape: PodShape, mentioned: frozenset[str] | None, admitted: tuple[bool | None, ...]
    ) -> dict[int, set[int]] | None:
        """The members the shape admits otherwise than `POOL` (by the names its `karpenter.sh/nodepool`
        requirements list: `_mentioned`), by their bundle's id; None where a numeric bound may tell any name
        apart (then each bundle asks each member)."""
        if mentioned is None:
            return None
        out: dict[int, set[int]] = {}
        for name in mentioned:
            if _admission(shape, name) != admitted:
                for bundle, member in self._by_name.get(name, ()):
                    out.setdefault(bundle, set()).add(id(member))
        return out

    def entries(self, shape: PodShape) -> list[Entry]:
        """Every pool for the shape, as ranking entries: one per bundle of a kind (the module's docstring),
        a pool of its own where the shape reads its name."""
        if not self.kinds:
            return []
        first = self.kinds[0].stand_in
        if first.memo.get(shape, "reads pool name", lambda: reads_pool_name(shape, first.state, first.memo)):
            return [Entry.single(t.candidate(shape)) for kind in self.kinds for t in kind.members]
        named = names_pools(shape)
        ids = self._ids(shape)
        admitted = _admission(shape, POOL) if named else ()
        mentioned = _mentioned(shape) if named else frozenset()
        shared = self._unnamed(shape) if named else None
        own_by_bundle = self._named(shape, mentioned, admitted) if named else None
        memo = first.memo  # the analysis's, every kind's
        known = memo.known
        out: list[Entry] = []
        for number, kind in enumerate(self.kinds):
            template: Template | None = None
            for bundle in kind.bundles:
                alike = bundle
                if named:  # the pools the pod names: on their own
                    own = (
                        own_by_bundle.get(id(bundle))
                        if own_by_bundle is not None
                        else {id(m) for _, m in bundle if _admission(shape, m.pool.name) != admitted}
                    )
                    if own:
                        out += [Entry.single(m.candidate(shape)) for _, m in bundle if id(m) in own]
                        alike = [(t, m) for t, m in bundle if id(m) not in own]
                if not alike:
                    continue
                if template is None and shared is not None:  # worded for the shape when shown: `reword`
                    template = shared[number]
                elif template is None:
                    template = self._template(kind, number, shape, ids)
                if alike is bundle:  # the same for every shape with this template: read, or made once
                    key = ("bundle entries", id(bundle), id(template))
                    found: list[Entry] | None = known.get(key)  # type: ignore[assignment]
                    out += (
                        found if found is not None else memo.shared(key, partial(_bundles, alike, template))
                    )
                else:
                    out += _bundles(alike, template)
        return out


class _Words:
    """A stand-in's template in one shape's own words, made once when a member of its kind is shown."""

    __slots__ = ("_found", "number", "shape", "stand_in")

    def __init__(self, stand_in: PoolTarget, shape: PodShape, number: int) -> None:
        self.stand_in, self.shape, self.number = stand_in, shape, number
        self._found: Template | None = None

    def __call__(self) -> Template:
        if self._found is None:
            self._found = self.stand_in.template(self.shape, ("kind", self.number))
        return self._found


Members = list[tuple[tuple[int, str], PoolTarget]]


def _bundles(members: Members, template: Template) -> list[Entry]:
    """Members of one kind and bundle as ranking entries: one, or, where they have limits, those whose limits
    stop the template's fitting types and those whose limits do not (the rank and the blocker codes read
    only that much of the limits answer; each member's own answer words its evaluation)."""
    fitting = template.fitting
    first = members[0][1]
    if not first.pool.limits:
        return [_bundle(members, template, first.limit_answer(fitting))]
    answers: dict[int, LimitAnswer] = {}
    parts: dict[bool, Members] = {}
    for tail, member in members:
        answer = answers[id(member)] = member.limit_answer(fitting)
        parts.setdefault(answer.problem is None, []).append((tail, member))
    return [_bundle(part, template, answers[id(part[0][1])], answers) for part in parts.values()]


def _bundle(
    members: Members,
    template: Template,
    limit: LimitAnswer,
    answers: dict[int, LimitAnswer] | None = None,
) -> Entry:
    """An entry of members that share a template and rank alike; `answers`, when given, is each member's
    own limits answer (members whose limits stop alike may have different amounts left)."""

    made: dict[int, PoolCandidate] = {}  # an entry is shared by shapes (PoolKinds.entries): so are these

    def make(member: PoolTarget) -> PoolCandidate:
        found = made.get(id(member))  # members are held by the entry: their ids are not reused
        if found is None:
            own = limit if answers is None else answers[id(member)]
            found = made[id(member)] = PoolCandidate(member, template, own)
        return found

    return Entry(make(members[0][1]), members, make, _pool_ref)


def _pool_ref(member: PoolTarget) -> TargetRef:
    return member.ref
