"""Which state nodes a pod shape may go to, found per distinct answer rather than node by node (issue 38).

`StateNodes` looks at every existing node and NodeClaim in flight for every shape, twice: a first look
(`may_fit`: the cordon, the taints the shape leaves untolerated, what is free of the accelerators it asks),
then its nodeSelector and required node affinity. A thousand nodes with eight taints each, or selectors over
a few label keys, repeat the same few answers a thousand times:

* `FirstLooks` groups the targets by what the first look reads of them (their signature) and answers it
  once per signature, each taint's toleration found once per tolerations (`untolerated` is taint by taint);
* `LabelIndex` holds, per label key, the targets by their value there, and each expression's targets once:
  a selector's targets are then a few set operations (kube-scheduler's `NodeAffinity` filter, as
  `selector_matches` decides it for one node).

tests/core/analyses/pending/test_indexes.py holds both to the node-by-node answers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from decimal import Decimal

from kubectl_gpu.core.analyses.pending.checks.evaluation import ZERO
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.nodes.target import UNSCHEDULABLE, NodeTarget, cordon_blocks
from kubectl_gpu.core.k8s.models import Node
from kubectl_gpu.core.scheduling.affinity import expression_error, selector_matches
from kubectl_gpu.core.scheduling.requirements import Requirement, RequirementError
from kubectl_gpu.core.scheduling.taints import BLOCKING_EFFECTS, Taint, Toleration, tolerates, untolerated

__all__ = ["FirstLooks", "LabelIndex", "may_fit", "reads_node_name", "selects"]


def may_fit(target: NodeTarget, shape: PodShape) -> bool:
    """A cheap first look (free accelerators by the pods read, cordon, taints) before the whole evaluation: the
    cordon taint is the cordon's, which a pod tolerating `node.kubernetes.io/unschedulable` passes. The
    plain answer, one target at a time (`FirstLooks` gives it per signature)."""
    node = target.node
    if cordon_blocks(shape, node, target.effective_taints):
        return False
    taints = untolerated(shape.tolerations, target.effective_taints)
    if any(t.key != UNSCHEDULABLE for t in taints):
        return False
    requested = target.state.requested_by_node.get(node.name, {})
    return all(
        node.allocatable.get(r, ZERO) - requested.get(r, ZERO) >= wanted
        for r, wanted in shape.accelerators.items()
    )


class _Signature:
    """What `may_fit` reads of the targets of one signature: a target of theirs (for the cordon), whether they
    are cordoned, the taints that block unless tolerated, what is free of each resource asked."""

    __slots__ = ("blocking", "cordoned", "first", "free")

    def __init__(
        self, first: NodeTarget, cordoned: bool, blocking: frozenset[Taint], free: tuple[Decimal, ...]
    ) -> None:
        self.first, self.cordoned, self.blocking, self.free = first, cordoned, blocking, free


class FirstLooks:
    """Positions grouped by what `may_fit` reads of a target (its cordon, the taints that block a pod that
    does not tolerate them, what is free of the resources a shape asks): a thousand nodes are a few dozen
    signatures, and a shape's first look is made once per signature. `group_of[k]` is the signature of
    `positions[k]`."""

    __slots__ = ("_untolerated", "group_of", "positions", "signatures", "taints")

    def __init__(
        self, target: Callable[[int], NodeTarget], positions: Sequence[int], resources: tuple[str, ...]
    ) -> None:
        self.positions = list(positions)
        self.signatures: list[_Signature] = []
        self.group_of: list[int] = []
        ids: dict[Hashable, int] = {}
        taints: set[Taint] = set()
        for i in self.positions:
            made = target(i)
            node = made.node
            requested = made.state.requested_by_node.get(node.name, {})
            blocking = frozenset(
                t for t in made.effective_taints if t.effect in BLOCKING_EFFECTS and t.key != UNSCHEDULABLE
            )
            free = tuple(node.allocatable.get(r, ZERO) - requested.get(r, ZERO) for r in resources)
            cordoned = node.unschedulable or any(t.key == UNSCHEDULABLE for t in made.effective_taints)
            signature = (cordoned, blocking, free)
            group = ids.get(signature)
            if group is None:
                group = ids[signature] = len(self.signatures)
                self.signatures.append(_Signature(made, cordoned, blocking, free))
                taints |= blocking
            self.group_of.append(group)
        self.taints = tuple(taints)  # every blocking taint of these targets, once
        self._untolerated: dict[tuple[Toleration, ...], frozenset[Taint]] = {}

    def _untolerated_by(self, tolerations: tuple[Toleration, ...]) -> frozenset[Taint]:
        """The targets' blocking taints that these tolerations do not tolerate, once per tolerations."""
        found = self._untolerated.get(tolerations)
        if found is None:
            found = self._untolerated[tolerations] = frozenset(
                t for t in self.taints if not tolerates(tolerations, t)
            )
        return found

    def passes(self, shape: PodShape) -> list[bool]:
        """`may_fit` of the shape, per signature."""
        left = self._untolerated_by(shape.tolerations)
        wanted = tuple(shape.accelerators.values())  # in the order of the resources the groups were made by
        return [
            (not s.cordoned or cordon_blocks(shape, s.first.node, s.first.effective_taints) is None)
            and s.blocking.isdisjoint(left)
            and all(free >= want for free, want in zip(s.free, wanted, strict=True))
            for s in self.signatures
        ]


def selects(shape: PodShape, node: Node) -> bool:
    """NodeTarget.evaluate's selector check, as a yes or no (a selector that does not parse blocks)."""
    try:
        return selector_matches(shape.node_selector, shape.node_affinity, node.labels, node_name=node.name)[0]
    except RequirementError:
        return False


def reads_node_name(shape: PodShape) -> bool:
    """Whether the shape's required node affinity selects by `matchFields` (`metadata.name`), or does not
    parse (then no node matches, and `LabelIndex` is not asked)."""
    affinity = shape.node_affinity
    return affinity.required_error is not None or any(t.match_fields for t in affinity.required_terms)


_NONE: frozenset[int] = frozenset()


class LabelIndex:
    """Positions by their labels' value at each key a selector reads (made on first use), and the positions
    each expression matches (once per expression: shapes repeat them by the hundred). A shape whose selector
    reads the node's name (`reads_node_name`) is not answered here."""

    def __init__(self, labels: Callable[[int], Mapping[str, str]], positions: Sequence[int]) -> None:
        self._labels = labels
        self._all = frozenset(positions)
        self._by_key: dict[str, dict[str | None, frozenset[int]]] = {}
        self._expressions: dict[Requirement, frozenset[int]] = {}
        self._chosen: dict[tuple[object, object], frozenset[int]] = {}

    def _values(self, key: str) -> dict[str | None, frozenset[int]]:
        """The positions by their label's value at `key` (None: no such label)."""
        found = self._by_key.get(key)
        if found is None:
            groups: dict[str | None, set[int]] = {}
            for i in self._all:
                groups.setdefault(self._labels(i).get(key), set()).add(i)
            found = self._by_key[key] = {v: frozenset(p) for v, p in groups.items()}
        return found

    def _expression(self, req: Requirement) -> frozenset[int]:
        """The positions whose labels satisfy one matchExpression (none where kube-scheduler rejects it: the
        term is then a parse error, which matches no node). `Requirement.matches` reads its own key alone."""
        found = self._expressions.get(req)
        if found is None:
            if expression_error(req) is not None:
                found = _NONE
            else:
                found = frozenset().union(
                    *(
                        p
                        for v, p in self._values(req.key).items()
                        if req.matches({} if v is None else {req.key: v})
                    )
                )
            self._expressions[req] = found
        return found

    def matching(self, shape: PodShape) -> frozenset[int]:
        """The positions whose labels the shape's nodeSelector and required node affinity match: every
        nodeSelector entry, and, where required node affinity is given, one of its non-empty terms (each
        term every one of its expressions)."""
        selectors = (shape.key[2], shape.node_affinity)  # the sorted nodeSelector, the node affinity
        found = self._chosen.get(selectors)
        if found is None:
            found = self._all
            for key, want in shape.node_selector.items():
                found = found & self._values(key).get(want, _NONE)
            has_required, terms = shape.node_affinity.required()
            if has_required:
                admitted: set[int] = set()
                for term in terms:
                    if term.is_empty:
                        continue
                    matched = found
                    for req in term.match_expressions:
                        matched = matched & self._expression(req)
                    admitted |= matched
                found = frozenset(admitted)
            self._chosen[selectors] = found
        return found
