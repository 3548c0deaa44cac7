"""Every target of one pod shape, nearest first (`nearness`: the order Karpenter and kube-scheduler would
try them in), with the words built only for those that are shown.

`pending` lists each pod's blockers on its nearest `LISTED_TARGETS` targets in full and sums up the rest per
blocker code (`BlockerSummary`): on a cluster of 1,200 NodePools, listing every pool's blockers for every
Pending pod made a document larger than the cluster's own JSON. `explain` (one pod) still shows every target.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from operator import attrgetter
from typing import Any, Protocol

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.verdicts import (
    POD_SELECTOR_VERDICTS,
    Blocker,
    BlockerClass,
    TargetRef,
    Verdict,
)

__all__ = [
    "LISTED_TARGETS",
    "NAMED_TARGETS",
    "BlockerFacts",
    "BlockerSummary",
    "Candidate",
    "Entry",
    "Evaluated",
    "Ranked",
    "excluded_by_pod",
    "nearness",
]

#: The nearest targets whose blockers a pod lists one by one.
LISTED_TARGETS = 10
#: The targets a blocker summary names (nearest first); the others are counted.
NAMED_TARGETS = 10


def excluded_by_pod(evaluation: TargetEvaluation) -> bool:
    """The pod's own selector or affinity rules this target out (a blocker of `POD_SELECTOR_VERDICTS`, or
    no instance type satisfying both the pool and the pod's selectors)."""
    return any(
        b.code in POD_SELECTOR_VERDICTS or b.detail.get("podSelector") is True for b in evaluation.blockers
    )


def nearness(evaluation: TargetEvaluation) -> tuple[bool, bool, int, int, int, int, str]:
    """Sort key, nearest first: targets that can offer the accelerator; then targets the pod's selectors
    admit before those they exclude (Karpenter only tries a NodePool whose requirements the pod is
    compatible with: `scheduler.go` `NewNodeClaim(...).Add` fails the others first); then fewest spec
    blockers, fewest capacity blockers, fewest relaxations of the pod before it fits (`Preferences.Relax`
    tries each attempt on every pool before the next), highest weight (Karpenter's NodePool order), name."""
    return (
        not evaluation.offers,
        excluded_by_pod(evaluation),
        evaluation.spec_blockers,
        evaluation.capacity_blockers,
        evaluation.relaxed,
        -evaluation.weight,
        evaluation.target.name,
    )


class Candidate(Protocol):
    """A target for one shape: its rank, its blockers' codes, its evaluation on demand."""

    @property
    def key(self) -> tuple[bool, bool, int, int, int, int, str]: ...

    @property
    def ref(self) -> TargetRef: ...

    @property
    def offers(self) -> bool: ...

    @property
    def shared(self) -> object: ...

    @property
    def code_set(self) -> frozenset[Verdict]: ...

    @property
    def blocker_total(self) -> int: ...

    def codes(self) -> Iterator[tuple[Verdict, BlockerClass, dict[str, Any]]]: ...

    def evaluation(self) -> TargetEvaluation: ...


class Evaluated:
    """A target evaluated in full up front (an existing node)."""

    __slots__ = ("_evaluation", "key")

    def __init__(self, evaluation: TargetEvaluation) -> None:
        self._evaluation = evaluation
        self.key = nearness(evaluation)

    @property
    def ref(self) -> TargetRef:
        return self._evaluation.target

    @property
    def offers(self) -> bool:
        return self._evaluation.offers

    @property
    def shared(self) -> object:
        return self._evaluation

    @property
    def code_set(self) -> frozenset[Verdict]:
        return frozenset(b.code for b in self._evaluation.blockers)

    @property
    def blocker_total(self) -> int:
        return len(self._evaluation.blockers)

    def codes(self) -> Iterator[tuple[Verdict, BlockerClass, dict[str, Any]]]:
        for b in self._evaluation.blockers:
            yield b.code, b.cls, b.detail

    def evaluation(self) -> TargetEvaluation:
        return self._evaluation


class BlockerSummary(msgspec.Struct, frozen=True):
    """One blocker code across every target of a pod."""

    code: Verdict
    cls: BlockerClass
    targets: tuple[TargetRef, ...]  # the nearest NAMED_TARGETS with it
    count: int  # every target with it

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": str(self.code),
            "class": str(self.cls),
            "targetCount": self.count,
            "targets": [t.to_dict() for t in self.targets],
            "targetsOmitted": self.count - len(self.targets),
        }


class BlockerFacts(msgspec.Struct, frozen=True):
    """What `disagreements` compares the provisioner's message with, over every target."""

    codes: frozenset[Verdict]
    taint_keys: frozenset[str]
    label_keys: frozenset[str]
    limited_pools: frozenset[str]


class Entry:
    """Targets that rank alike but for their weight and name (one kind of NodePool with one limits answer and
    the same blockers of its own), or a single target: ranked as one, expanded when they are named."""

    __slots__ = ("blockers", "code_set", "make", "members", "order", "prefix", "ref", "sample", "size")

    def __init__(
        self,
        sample: Candidate,
        members: list[tuple[tuple[int, str], Any]],
        make: Callable[[Any], Candidate],
        ref: Callable[[Any], TargetRef],
    ) -> None:
        self.sample = sample  # one of them: their codes, classes and details
        self.prefix = sample.key[:5]
        self.members = members  # (minus weight, name), member: sorted
        # `Ranked`'s sort key (entries are shared by shapes): the shared rank and the first member's weight
        # and name, one flat tuple (nested, each comparison compares the inner tuples too: twice the sort)
        self.order = (*self.prefix, *members[0][0])
        self.make = make
        self.ref = ref
        # What `Ranked.summary` and `blocker_count` add up per shape, read once here: an entry of a kind is
        # shared by the shapes its template answers alike (kinds.py), and each of them counts it.
        self.code_set = sample.code_set
        self.size = len(members)
        self.blockers = sample.blocker_total * self.size

    @classmethod
    def single(cls, candidate: Candidate) -> Entry:
        return cls(candidate, [(candidate.key[5:], candidate)], _same, _ref_of)


def _same(candidate: Any) -> Candidate:
    return candidate  # type: ignore[no-any-return]


def _ref_of(candidate: Any) -> TargetRef:
    return candidate.ref  # type: ignore[no-any-return]


class Ranked:
    """The targets of one shape, nearest first (`nearness`), held as entries of alike targets."""

    def __init__(
        self, entries: Sequence[Entry], reword: Callable[[Candidate], Candidate] | None = None
    ) -> None:
        # By shared rank, then by the first member: among entries that tie, the first k targets come from
        # the first k entries (`_first`).
        self.entries = sorted(entries, key=_ORDER_KEY)
        # Entries shared with other shapes that rank alike, whose words are this shape's own (pools the pod
        # does not name: targets/pools/unnamed.py): each candidate made from them is put in its words.
        self._reword = reword
        self._count = sum([e.size for e in self.entries])
        # The candidates made so far, by (entry, member): `nearest`, `first` and `listed` ask for the same
        # few, and each builds its evaluation once.
        self._made: dict[tuple[int, int], Candidate] = {}

    def _made_candidate(self, entry: Entry, member: Any) -> Candidate:
        key = (id(entry), id(member))  # both held by `entries`: their ids are not reused
        found = self._made.get(key)
        if found is None:
            found = entry.make(member)
            found = self._made[key] = found if self._reword is None else self._reword(found)
        return found

    def __len__(self) -> int:
        return self._count

    def __eq__(self, other: object) -> bool:
        """Equal when every target evaluates the same (builds every evaluation: for tests and the TUI's
        "has it changed" checks, not for the analysis)."""
        if not isinstance(other, Ranked):
            return NotImplemented
        return self is other or self.evaluations == other.evaluations

    __hash__ = None  # type: ignore[assignment]

    def _pairs(self) -> Iterator[tuple[Entry, Any]]:
        """(entry, member) in rank order: entries by their shared rank, ties by weight and name."""
        entries, i = self.entries, 0
        while i < len(entries):
            j = i + 1
            while j < len(entries) and entries[j].prefix == entries[i].prefix:
                j += 1
            if j == i + 1:
                entry = entries[i]
                for _, member in entry.members:
                    yield entry, member
            else:
                tied = [
                    [(tail, n, entry, m) for tail, m in entry.members] for n, entry in enumerate(entries[i:j])
                ]
                for _, _, entry, member in heapq.merge(*tied, key=lambda t: (t[0], t[1])):
                    yield entry, member
            i = j

    @cached_property
    def candidates(self) -> list[Candidate]:
        """Every target, nearest first (builds each one's candidate; `explain` and the tests)."""
        return [self._made_candidate(entry, member) for entry, member in self._pairs()]

    @cached_property
    def nearest(self) -> TargetEvaluation | None:
        """The nearest target (one that offers the accelerator, when any does)."""
        first = _first(self.entries, 1)
        return self._made_candidate(*first[0]).evaluation() if first else None

    def first(self, count: int) -> list[TargetEvaluation]:
        """The nearest `count` targets' evaluations, nearest first."""
        made = self._made_candidate
        return [made(entry, member).evaluation() for entry, member in _first(self.entries, count)]

    def find(self, ref: TargetRef) -> TargetEvaluation | None:
        """The evaluation of one target by its reference, or None when it is not one of these."""
        for entry in self.entries:
            for _, member in entry.members:
                if entry.ref(member) == ref:
                    return self._made_candidate(entry, member).evaluation()
        return None

    @property
    def any_offering(self) -> bool:
        return bool(self.entries) and self.entries[0].sample.offers

    @property
    def offering_pool(self) -> bool:
        return any(e.sample.offers and e.sample.ref.kind == "NodePool" for e in self.entries)

    @cached_property
    def evaluations(self) -> tuple[TargetEvaluation, ...]:
        """Every target's evaluation, nearest first (explain)."""
        return tuple(c.evaluation() for c in self.candidates)

    @cached_property
    def listed(self) -> tuple[Blocker, ...]:
        """The blockers of the nearest LISTED_TARGETS targets, nearest first."""
        out: list[Blocker] = []
        for entry, member in _first(self.entries, LISTED_TARGETS):
            out += self._made_candidate(entry, member).evaluation().blockers
        return tuple(out)

    @cached_property
    def blocker_count(self) -> int:
        return sum([e.blockers for e in self.entries])

    @cached_property
    def summary(self) -> tuple[BlockerSummary, ...]:
        """Per blocker code (in verdict order): how many targets have it, the nearest of them named. A code at
        a time over the entries (a few codes, a hundred entries and more): each pass is a comprehension."""
        entries = self.entries
        out = []
        for code in sorted(frozenset().union(*[e.code_set for e in entries]), key=_ORDER.__getitem__):
            having = [e for e in entries if code in e.code_set]  # in rank order, as `entries`
            cls = next(k for v, k, _ in having[0].sample.codes() if v is code)
            named = tuple(entry.ref(member) for entry, member in _first(having, NAMED_TARGETS))
            out.append(BlockerSummary(code, cls, named, sum([e.size for e in having])))
        return tuple(out)

    @cached_property
    def facts(self) -> BlockerFacts:
        codes: set[Verdict] = set()
        taints: set[str] = set()
        labels: set[str] = set()
        limited: set[str] = set()
        seen: set[int] = set()
        for e in self.entries:
            found = e.code_set
            codes |= found
            if Verdict.NODEPOOL_LIMIT_REACHED in found:
                limited.update(e.ref(m).name for _, m in e.members)
            if id(e.sample.shared) in seen:  # the same template: the same taints and labels
                continue
            seen.add(id(e.sample.shared))
            for _, _, detail in e.sample.codes():
                taints.update(str(t).split("=", 1)[0].split(":", 1)[0] for t in detail.get("taints", ()))
                if detail.get("key"):
                    labels.add(str(detail["key"]))
        return BlockerFacts(frozenset(codes), frozenset(taints), frozenset(labels), frozenset(limited))


def _first(entries: list[Entry], count: int) -> list[tuple[Entry, Any]]:
    """The first `count` (entry, member) of `entries` (sorted by their shared rank) in rank order: entries
    that tie are merged by weight and name, looking only at as many members of each as are still wanted."""
    out: list[tuple[Entry, Any]] = []
    i, total = 0, len(entries)
    while i < total and len(out) < count:
        need = count - len(out)
        # A later entry's first member comes after the first `need` entries' of a tie: the tie is looked at
        # no further (its first `need` entries give `need` targets, and the loop ends).
        stop, prefix = min(total, i + need), entries[i].prefix
        j = i + 1
        while j < stop and entries[j].prefix == prefix:
            j += 1
        if j == i + 1:
            out += [(entries[i], m) for _, m in entries[i].members[:need]]
        else:
            group = entries[i:j]
            tied = [(tail, n, e, m) for n, e in enumerate(group) for tail, m in e.members[:need]]
            out += [(e, m) for _, _, e, m in heapq.nsmallest(need, tied, key=lambda t: (t[0], t[1]))]
        i = j
    return out


_ORDER = {v: i for i, v in enumerate(Verdict)}
_ORDER_KEY = attrgetter("order")
