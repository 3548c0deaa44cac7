"""Existing nodes and capacity in flight, tried the way Karpenter's scheduler tries them before it launches
anything (issue 20, items 1 and 2).

Karpenter `scheduling/scheduler.go` `Scheduler.add`: a pod goes to an existing node first
(`addToExistingNode`, over every `StateNode` of the cluster that is not `MarkedForDeletion`: nodes it owns or
not, and NodeClaims that have not registered yet), then to a NodeClaim of this round, and only then to a new
NodeClaim. `ExistingNode.CanAdd` (existingnode.go): taints, host ports, the remaining resources (allocatable
less the pods' requests), the node's label requirements, topology.

`state/statenode.go`: a NodeClaim whose node has not registered answers with its own labels, taints and
allocatable (`Labels`, `Taints`, `Allocatable`); a managed node that is not initialized drops the known
ephemeral taints (`scheduling.KnownEphemeralTaints`, the `readiness.k8s.io/` prefix) and its NodeClaim's
`startupTaints` (`Taints`); `Deleted`: a NodeClaim being deleted or `InstanceTerminating`, or an unmanaged node
being deleted. A NodeClaim that has not registered within the registration TTL (15 minutes,
`nodeclaim/lifecycle/liveness.go`) is deleted: it is no room either.

So: a pod that fits an existing node (Karpenter's or a node group's) is one kube-scheduler will place, and
Karpenter launches nothing for it; a pod that fits a NodeClaim in flight waits for it (`PROVISIONING`); a
NodeClaim that does not fit (another zone or type, too little left, being deleted) is no reason to wait.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial
from itertools import compress

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import ZERO, TargetEvaluation
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.nodes.selection import (
    FirstLooks,
    LabelIndex,
    reads_node_name,
    selects,
)
from kubectl_gpu.core.analyses.pending.targets.nodes.target import NodeTarget
from kubectl_gpu.core.catalog import Catalog, Provider
from kubectl_gpu.core.k8s.models import Condition, Node, NodeClaim
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import raw_capacity_of
from kubectl_gpu.core.scheduling.taints import Taint

__all__ = ["EXISTING_FIRST", "REGISTRATION_TTL", "StateNodes", "karpenter_taints"]

#: A weight above any NodePool's (at most 100): existing nodes are tried before every NodePool.
EXISTING_FIRST = 1 << 20
#: `liveness.go` registrationTTL: a NodeClaim not registered by then is deleted.
REGISTRATION_TTL = timedelta(minutes=15)
INITIALIZED = "karpenter.sh/initialized"
REGISTERED = "karpenter.sh/registered"
_EPHEMERAL = (
    ("node.kubernetes.io/not-ready", None, "NoSchedule"),
    ("node.kubernetes.io/not-ready", None, "NoExecute"),
    ("node.kubernetes.io/unreachable", None, "NoSchedule"),
    ("node.cloudprovider.kubernetes.io/uninitialized", "true", "NoSchedule"),
    ("karpenter.sh/unregistered", None, "NoExecute"),
)
_EPHEMERAL_PREFIXES = ("readiness.k8s.io/",)


def _ephemeral(taint: Taint) -> bool:
    """`IsKnownEphemeralTaint`: `MatchTaint` compares key and effect (and the value where one is listed)."""
    if taint.key.startswith(_EPHEMERAL_PREFIXES):
        return True
    return any(
        taint.key == key and taint.effect == effect and (value is None or taint.value == value)
        for key, value, effect in _EPHEMERAL
    )


def karpenter_taints(
    taints: tuple[Taint, ...], claim: NodeClaim | None, initialized: bool
) -> tuple[Taint, ...]:
    """`StateNode.Taints`: a managed node not initialized yet counts neither ephemeral nor startup taints."""
    if claim is None or initialized:
        return taints
    startup = {(t.key, t.effect) for t in claim.startup_taints}
    return tuple(t for t in taints if not _ephemeral(t) and (t.key, t.effect) not in startup)


def _deleted(node: Node | None, claim: NodeClaim | None) -> bool:
    if claim is not None:
        terminating = claim.condition("InstanceTerminating")
        return claim.meta.deleting or (terminating is not None and terminating.is_true)
    return node is not None and node.meta.deleting


def _claim_node(
    claim: NodeClaim, state: ClusterState, catalog: Catalog, provider: Provider
) -> tuple[Node, str | None]:
    """A NodeClaim not registered yet as the node it will be: its labels (with its NodePool's template labels,
    which `NodeClaimTemplate.ToNodeClaim` copies, and those the provider sets for its instance type, as the AWS
    provider's `instanceToNodeClaim` does), its taints, its allocatable; where it reports none, the catalog's
    capacity for its type (and a note saying so)."""
    pool = state.nodepool_by_name.get(claim.node_pool or "")
    labels = {**(pool.template_labels if pool is not None else {}), **claim.meta.labels}
    itype = labels.get("node.kubernetes.io/instance-type")
    it = catalog.by_name(itype) if itype else None
    note = None
    allocatable = dict(claim.allocatable)
    if it is not None:
        labels = {**catalog.labels(it, provider), **labels}
        if not allocatable:
            resources = ["cpu", "memory", *(it.extended_resources or {})]
            allocatable = {r: raw_capacity_of(it, r) for r in resources}
            allocatable = {r: v for r, v in allocatable.items() if v > ZERO}
            allocatable["pods"] = Decimal(110)
            note = f"NodeClaim {claim.name} reports no allocatable yet: {itype}'s capacity from the catalog"
    meta = msgspec.structs.replace(claim.meta, name=claim.node_name or claim.name, labels=labels)
    node = Node(
        meta=meta,
        provider_id=claim.provider_id,
        unschedulable=False,
        taints=claim.taints,
        capacity=dict(claim.capacity),
        allocatable=allocatable,
        conditions=(),
        os_image=None,
        kernel_version=None,
        kubelet_version=None,
        container_runtime=None,
        architecture=None,
        ephemeral_storage_text=None,
    )
    return node, note


def _claim_target(
    claim: NodeClaim, state: ClusterState, catalog: Catalog, provider: Provider
) -> tuple[NodeTarget, str | None]:
    """A NodeClaim not registered yet as a state node (`_claim_node`) with the taints Karpenter counts for it."""
    node, note = _claim_node(claim, state, catalog, provider)
    taints = karpenter_taints(claim.taints, claim, False)
    return NodeTarget(node, state, provider, catalog, taints, claim), note


class _Flying:
    """A state node in flight: a node of Karpenter's not initialized yet, or a NodeClaim not registered, whose
    node (labels, taints, allocatable: `_claim_node`) is made when first read. Thousands of claims in flight
    are a few hundred classes (`_classes`), and only the first of each is read unless a shape selects by
    name."""

    __slots__ = ("_made", "_make", "claim", "key")

    def __init__(
        self,
        claim: NodeClaim,
        key: object,
        make: Callable[[], tuple[NodeTarget, str | None]] | None = None,
        made: tuple[NodeTarget, str | None] | None = None,
    ) -> None:
        self.claim, self.key, self._make, self._made = claim, key, make, made

    @property
    def made(self) -> tuple[NodeTarget, str | None]:
        """The target and the note on its figures."""
        if self._made is None:
            assert self._make is not None
            self._made, self._make = self._make(), None
        return self._made


class StateNodes:
    """Karpenter's state nodes for the pending analysis: the initialized ones (and nodes it does not own),
    which kube-scheduler places pods on, and those in flight (a NodeClaim not registered, or a node of its
    own not initialized), which Karpenter counts as room while they start."""

    def __init__(self, state: ClusterState, provider: Provider, catalog: Catalog, now: datetime) -> None:
        self.existing: list[NodeTarget] = []
        flying: list[_Flying] = []
        seen: set[str] = set()
        for node in state.nodes:
            claim = state.nodeclaim_by_node.get(node.name)
            if claim is not None:
                seen.add(claim.name)
            if _deleted(node, claim):
                continue
            registered = claim is None or node.labels.get(REGISTERED) == "true" or _true(claim, "Registered")
            initialized = (
                claim is None or node.labels.get(INITIALIZED) == "true" or _true(claim, "Initialized")
            )
            taints = node.taints if registered or claim is None else claim.taints
            target = NodeTarget(
                node, state, provider, catalog, karpenter_taints(taints, claim, initialized), claim
            )
            if initialized:
                self.existing.append(target)
            else:
                assert claim is not None
                flying.append(_Flying(claim, _node_class(target, state), made=(target, None)))
        said: dict[int, tuple[tuple[Condition, ...], tuple[bool, bool, bool]]] = {}
        labelled: dict[int, tuple[Mapping[str, str], frozenset[tuple[str, str]]]] = {}
        for claim in state.nodeclaims:
            if claim.name in seen:
                continue
            terminating, registered, initialized = _claim_conditions(claim.conditions, said)
            if claim.meta.deleting or terminating or initialized:  # `_deleted`, and initialized
                continue
            created = claim.meta.created
            if created is not None and now - created > REGISTRATION_TTL and not registered:
                continue  # liveness deletes it
            make = partial(_claim_target, claim, state, catalog, provider)
            flying.append(_Flying(claim, _claim_class(claim, state, labelled), make))
        flying.sort(key=lambda item: item.claim.name)
        self._flying = flying
        self._fits: dict[tuple[object, ...], list[TargetEvaluation]] = {}
        self._room: dict[tuple[object, ...], tuple[NodeClaim, str | None] | None] = {}
        # Positions in the existing nodes, the NodeClaims in flight, and the first of each class of these.
        self._lists: dict[str, tuple[Callable[[int], NodeTarget], Sequence[int]]] = {
            "existing": (self.existing.__getitem__, range(len(self.existing))),
            "flight": (self._flight_target, range(len(flying))),
            "firsts": (self._flight_target, [members[0] for members in _classes(flying)]),
        }
        self._may: dict[tuple[object, ...], list[int]] = {}
        self._by_signature: dict[tuple[str, tuple[str, ...]], FirstLooks] = {}
        self._labels: dict[str, LabelIndex] = {}

    @property
    def in_flight(self) -> list[tuple[NodeTarget, NodeClaim, str | None]]:
        """Every state node in flight by its NodeClaim's name: the target, the claim, the note on its figures."""
        return [(item.made[0], item.claim, item.made[1]) for item in self._flying]

    def _flight_target(self, position: int) -> NodeTarget:
        return self._flying[position].made[0]

    def _passing(self, which: str, shape: PodShape) -> list[int]:
        """The positions in `which` (`_lists`) of the targets that pass `may_fit`, once per tolerations and
        accelerators (all `may_fit` reads of a shape; shapes share them by the hundred)."""
        key = (which, shape.tolerations, tuple(shape.accelerators.items()))
        found = self._may.get(key)
        if found is None:
            groups = self._signatures(which, tuple(shape.accelerators))
            passes = groups.passes(shape)  # one look per signature
            found = self._may[key] = list(
                compress(groups.positions, map(passes.__getitem__, groups.group_of))
            )
        return found

    def _signatures(self, which: str, resources: tuple[str, ...]) -> FirstLooks:
        """The positions in `which` by what `may_fit` reads of a target for shapes asking for `resources`."""
        found = self._by_signature.get((which, resources))
        if found is None:
            target, positions = self._lists[which]
            found = self._by_signature[which, resources] = FirstLooks(target, positions, resources)
        return found

    def _selected(self, which: str, shape: PodShape) -> list[int]:
        """`_passing` less the targets whose labels the shape's nodeSelector and node affinity do not match
        (a mismatch is a blocker: neither a fit nor sure room). The selectors read a few label keys, and a
        thousand targets have a handful of values at those keys: they are matched by index (`LabelIndex`); a
        selector that reads the name is matched target by target."""
        passing = self._passing(which, shape)
        target, positions = self._lists[which]
        if reads_node_name(shape):
            return [i for i in passing if selects(shape, target(i).node)]
        index = self._labels.get(which)
        if index is None:
            index = self._labels[which] = LabelIndex(lambda i: target(i).node.labels, positions)
        chosen = index.matching(shape)
        return [i for i in passing if i in chosen]

    def fitting(self, shape: PodShape, key: tuple[object, ...]) -> list[TargetEvaluation]:
        """The existing nodes with room for the shape and nothing against it (a check may be unknown), as
        targets ranked before every NodePool."""
        found = self._fits.get(key)
        if found is None:
            found = self._fits[key] = [
                msgspec.structs.replace(e, weight=EXISTING_FIRST)
                for i in self._selected("existing", shape)
                if not (e := self.existing[i].evaluate(shape)).blockers
            ]
        return found

    def room_in_flight(self, shape: PodShape, key: tuple[object, ...]) -> tuple[NodeClaim, str | None] | None:
        """The first NodeClaim in flight that takes the shape for sure (every check passes), and the note on
        its figures; None when none does."""
        if key not in self._room:
            # one evaluation per class of alike NodeClaims, its first (by name) answering for all, unless
            # the shape selects by name
            which = "flight" if reads_node_name(shape) else "firsts"
            flying = (self._flying[i] for i in self._selected(which, shape))
            self._room[key] = next(
                ((item.claim, item.made[1]) for item in flying if _sure(item.made[0].evaluate(shape))), None
            )
        return self._room[key]


def _classes(flying: list[_Flying]) -> list[list[int]]:
    """The positions by class, each class in order and the classes by their first: the members of a class are
    alike in everything a node's evaluation reads but the name (labels, taints, allocatable, cordon), and no
    pod is bound by that name, so a shape that does not select by name (matchFields) gets the same answer
    from each, and the first in name order that takes a shape is the first of its class. Thousands of
    NodeClaims in flight are a few hundred classes."""
    classes: dict[object, list[int]] = {}
    for i, item in enumerate(flying):
        classes.setdefault(item.key, []).append(i)
    return sorted(classes.values(), key=lambda members: members[0])


def _bound(name: str, state: ClusterState) -> bool:
    """Whether pods are bound to (or request on) the node of this name: then it is a class of its own."""
    return bool(state.pods_by_node.get(name) or state.requested_by_node.get(name))


def _node_class(target: NodeTarget, state: ClusterState) -> object:
    """A made node's class: what its evaluation reads but the name."""
    node = target.node
    if _bound(node.name, state):
        return ("own", node.name)
    return (
        frozenset(node.labels.items()),
        target.effective_taints,
        frozenset(node.allocatable.items()),
        node.unschedulable,
    )


def _claim_class(
    claim: NodeClaim,
    state: ClusterState,
    labelled: dict[int, tuple[Mapping[str, str], frozenset[tuple[str, str]]]],
) -> object:
    """A NodeClaim's class by what its node is made of (`_claim_node`: its NodePool's template labels, its own
    labels, which name its instance type, its taints and startup taints, its allocatable), before any node is
    made: claims equal in these make nodes alike but for the name. Their labels as a set once per labels
    object in `labelled` (claims launched together share one: 1,705 for 10,000 claims on bench's
    `nodeclaims`; a set of thirty labels costs ~10 us)."""
    if _bound(claim.node_name or claim.name, state):
        return ("own claim", claim.name)
    labels = claim.meta.labels
    found = labelled.get(id(labels))
    if found is None or found[0] is not labels:
        found = labelled[id(labels)] = (labels, frozenset(labels.items()))  # holds them: ids not reused
    return (
        "claim",
        claim.node_pool,
        found[1],
        claim.taints,
        claim.startup_taints,
        frozenset(claim.allocatable.items()),
    )


def _sure(evaluation: TargetEvaluation) -> bool:
    return not evaluation.blockers and all(c.ok is True for c in evaluation.checks)


def _true(claim: NodeClaim, condition: str) -> bool:
    found = claim.condition(condition)
    return found is not None and found.is_true


def _claim_conditions(
    conditions: tuple[Condition, ...], said: dict[int, tuple[tuple[Condition, ...], tuple[bool, bool, bool]]]
) -> tuple[bool, bool, bool]:
    """Whether a claim's InstanceTerminating, Registered and Initialized conditions are true (the first of
    each type, as `NodeClaim.condition` finds it), once per conditions tuple in `said`: the claims launched
    together share theirs (`parse/fast.py`; 1,607 tuples for 10,000 claims on bench's `nodeclaims`)."""
    found = said.get(id(conditions))
    if found is not None and found[0] is conditions:
        return found[1]
    first: dict[str, Condition] = {}
    for condition in conditions:
        first.setdefault(condition.type, condition)
    terminating, registered, initialized = (
        t in first and first[t].is_true for t in ("InstanceTerminating", "Registered", "Initialized")
    )
    said[id(conditions)] = (conditions, (terminating, registered, initialized))  # holds them: ids not reused
    return terminating, registered, initialized
