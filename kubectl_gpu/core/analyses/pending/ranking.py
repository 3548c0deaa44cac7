"""Every target of one pod shape, nearest first, with the words built only for those that are shown.

`pending` lists each pod's blockers on its nearest `LISTED_TARGETS` targets in full and sums up the rest per
blocker code (`BlockerSummary`): on a cluster of 1,200 NodePools, listing every pool's blockers for every
Pending pod made a document larger than the cluster's own JSON. `explain` (one pod) still shows every target.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from kubectl_gpu.core.analyses.pending.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.targets import nearness
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, BlockerClass, TargetRef, Verdict

__all__ = [
    "LISTED_TARGETS",
    "NAMED_TARGETS",
    "BlockerFacts",
    "BlockerSummary",
    "Candidate",
    "Evaluated",
    "Ranked",
]

#: The nearest targets whose blockers a pod lists one by one.
LISTED_TARGETS = 10
#: The targets a blocker summary names (nearest first); the others are counted.
NAMED_TARGETS = 10


class Candidate(Protocol):
    """A target for one shape: its rank, its blockers' codes, its evaluation on demand."""

    @property
    def key(self) -> tuple[bool, bool, int, int, int, str]: ...

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


@dataclass(frozen=True, slots=True)
class BlockerSummary:
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


@dataclass(frozen=True, slots=True)
class BlockerFacts:
    """What `disagreements` compares the provisioner's message with, over every target."""

    codes: frozenset[Verdict]
    taint_keys: frozenset[str]
    label_keys: frozenset[str]
    limited_pools: frozenset[str]


class Ranked:
    """The targets of one shape, nearest first (`targets.nearness`)."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        self.candidates = sorted(candidates, key=lambda c: c.key)

    def __len__(self) -> int:
        return len(self.candidates)

    def __eq__(self, other: object) -> bool:
        """Equal when every target evaluates the same (builds every evaluation: for tests and the TUI's
        "has it changed" checks, not for the analysis)."""
        if not isinstance(other, Ranked):
            return NotImplemented
        return self is other or self.evaluations == other.evaluations

    __hash__ = None  # type: ignore[assignment]

    @property
    def nearest(self) -> TargetEvaluation | None:
        """The nearest target (one that offers the accelerator, when any does)."""
        return self.candidates[0].evaluation() if self.candidates else None

    @property
    def any_offering(self) -> bool:
        return bool(self.candidates) and self.candidates[0].offers

    @property
    def offering_pool(self) -> bool:
        return any(c.offers and c.ref.kind == "NodePool" for c in self.candidates)

    @cached_property
    def evaluations(self) -> tuple[TargetEvaluation, ...]:
        """Every target's evaluation, nearest first (explain)."""
        return tuple(c.evaluation() for c in self.candidates)

    @cached_property
    def listed(self) -> tuple[Blocker, ...]:
        """The blockers of the nearest LISTED_TARGETS targets, nearest first."""
        return tuple(b for c in self.candidates[:LISTED_TARGETS] for b in c.evaluation().blockers)

    @cached_property
    def blocker_count(self) -> int:
        return sum(c.blocker_total for c in self.candidates)

    @cached_property
    def summary(self) -> tuple[BlockerSummary, ...]:
        """Per blocker code (in verdict order): how many targets have it, the nearest of them named."""
        counts: dict[Verdict, int] = {}
        named: dict[Verdict, list[TargetRef]] = {}
        classes: dict[Verdict, BlockerClass] = {}
        for c in self.candidates:
            for code in c.code_set:
                counts[code] = counts.get(code, 0) + 1
                refs = named.get(code)
                if refs is None:
                    refs = named[code] = []
                    classes[code] = next(k for v, k, _ in c.codes() if v is code)
                if len(refs) < NAMED_TARGETS:
                    refs.append(c.ref)
        return tuple(
            BlockerSummary(code, classes[code], tuple(named[code]), counts[code])
            for code in sorted(counts, key=_ORDER.__getitem__)
        )

    @cached_property
    def facts(self) -> BlockerFacts:
        codes: set[Verdict] = set()
        taints: set[str] = set()
        labels: set[str] = set()
        limited: set[str] = set()
        seen: set[int] = set()
        for c in self.candidates:
            found = c.code_set
            codes |= found
            if Verdict.NODEPOOL_LIMIT_REACHED in found:
                limited.add(c.ref.name)
            if id(c.shared) in seen:  # the same template: the same taints and labels
                continue
            seen.add(id(c.shared))
            for _, _, detail in c.codes():
                taints.update(str(t).split("=", 1)[0].split(":", 1)[0] for t in detail.get("taints", ()))
                if detail.get("key"):
                    labels.add(str(detail["key"]))
        return BlockerFacts(frozenset(codes), frozenset(taints), frozenset(labels), frozenset(limited))


_ORDER = {v: i for i, v in enumerate(Verdict)}
