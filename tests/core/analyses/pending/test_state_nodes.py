"""existing.py: the classes of NodeClaims in flight and the selector projections answer as the plain rule does.

`StateNodes` tries one NodeClaim per class of alike ones and matches a selector once per distinct value of the
label keys it reads; the answers must be those of trying every existing node and every NodeClaim in flight,
in order, with the whole evaluation.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending.analysis import in_scope
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape, shape_of
from kubectl_gpu.core.analyses.pending.targets.nodes.existing import StateNodes, _classes, _node_class, _sure
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.provider import cluster_provider
from tests.core.analyses.pending._scenarios import NAMES, NOW, catalog, items, state_of

Obj = dict[str, Any]

_TYPE = "node.kubernetes.io/instance-type"


def _required(*expressions: Obj) -> Obj:
    terms = [{"matchExpressions": [e]} for e in expressions]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def _variants(pod: Obj, labels: list[dict[str, str]]) -> list[Obj]:
    """The pod as it is, and with selectors on the labels the cluster's nodes and NodeClaims carry: a
    nodeSelector per label, In, NotIn, Exists and DoesNotExist on the instance type, OR-terms, a key no
    node has."""
    types = sorted({have[_TYPE] for have in labels if _TYPE in have})
    pairs = sorted({(k, v) for have in labels for k, v in have.items()})[:40]
    affinities = [
        _required({"key": _TYPE, "operator": "In", "values": types[:1]}),
        _required({"key": _TYPE, "operator": "NotIn", "values": types[:1]}),
        _required({"key": _TYPE, "operator": "Exists"}),
        _required({"key": _TYPE, "operator": "DoesNotExist"}),
        _required(
            {"key": _TYPE, "operator": "In", "values": types[-1:]},
            {"key": "example.com/none", "operator": "Exists"},
        ),
    ]
    out = [pod]
    for key, value in pairs:
        twin = copy.deepcopy(pod)
        twin["spec"]["nodeSelector"] = {key: value}
        out.append(twin)
    for affinity in affinities:
        twin = copy.deepcopy(pod)
        twin["spec"]["affinity"] = affinity
        out.append(twin)
    return out


def _shapes(objects: list[Obj], state: ClusterState, nodes: StateNodes) -> list[PodShape]:
    labels = [t.node.labels for t in nodes.existing] + [t.node.labels for t, _, _ in nodes.in_flight]
    shapes = []
    for obj in objects:
        if obj["kind"] != "Pod":
            continue
        for variant in _variants(obj, labels):
            pod = parse_object(variant)
            assert isinstance(pod, Pod)
            if in_scope(pod, all_pending=True):
                shapes.append(shape_of(pod))
    return shapes


@pytest.mark.parametrize("scenario", NAMES)
def test_room_and_fits_are_the_plain_rules(scenario: str) -> None:
    objects = items(scenario)
    state = state_of(objects)
    nodes = StateNodes(state, cluster_provider(state), catalog(), NOW)
    shapes = _shapes(objects, state, nodes)
    assert shapes
    for n, shape in enumerate(shapes):
        key = ("test", n)
        room = next(
            ((claim, note) for target, claim, note in nodes.in_flight if _sure(target.evaluate(shape))), None
        )
        assert nodes.room_in_flight(shape, key) == room
        fits = [e for t in nodes.existing if not (e := t.evaluate(shape)).blockers]
        assert [e.target for e in nodes.fitting(shape, key)] == [e.target for e in fits]


def test_a_selector_picks_the_first_claim_by_name_of_the_labels_it_reads() -> None:
    """Claims in flight of two instance types: a pod that selects one waits for the first claim of that type
    by name, whichever class comes first."""
    objects = items("automode-capacity")
    claim = next(o for o in objects if o["kind"] == "NodeClaim" and o["metadata"]["name"] == "neuron-x9p2m")
    state = state_of(objects)
    nodes = StateNodes(state, cluster_provider(state), catalog(), NOW)
    claim_type = next(t.node.labels[_TYPE] for t, c, _ in nodes.in_flight if c.name == "neuron-x9p2m")
    for name, itype in (("neuron-a0001", "trn1.32xlarge"), ("neuron-b0001", claim_type)):
        twin = copy.deepcopy(claim)
        twin["metadata"].update(name=name, uid=f"uid-{name}")
        twin["metadata"].setdefault("labels", {})[_TYPE] = itype
        objects.append(twin)
    state = state_of(objects)
    nodes = StateNodes(state, cluster_provider(state), catalog(), NOW)
    pod_obj = next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == "neuron-7b4c9-pq2rs")
    for itype, first in ((claim_type, "neuron-b0001"), ("trn1.32xlarge", None)):
        twin = copy.deepcopy(pod_obj)
        twin["spec"]["nodeSelector"] = {_TYPE: itype}
        pod = parse_object(twin)
        assert isinstance(pod, Pod)
        found = nodes.room_in_flight(shape_of(pod), ("test", itype))
        plain = next((c.name for t, c, _ in nodes.in_flight if _sure(t.evaluate(shape_of(pod)))), None)
        assert (found[0].name if found else None) == plain
        if first is not None:
            assert plain == first


def test_claims_alike_share_a_class_and_only_its_first_is_made() -> None:
    """NodeClaims are classed by what their node is made of, before it is made: every class is alike by the
    made nodes (what an evaluation reads but the name), a claim of another type is a class of its own, and a
    shape that does not select by name makes only the firsts of the classes."""
    objects = items("automode-capacity")
    claim = next(o for o in objects if o["kind"] == "NodeClaim" and o["metadata"]["name"] == "neuron-x9p2m")
    for name in ("neuron-z1", "neuron-z2", "neuron-z3"):
        twin = copy.deepcopy(claim)
        twin["metadata"].update(name=name, uid=f"uid-{name}")
        objects.append(twin)
    other = copy.deepcopy(claim)
    other["metadata"].update(name="neuron-z4", uid="uid-neuron-z4")
    other["metadata"].setdefault("labels", {})[_TYPE] = "trn1.32xlarge"
    objects.append(other)
    state = state_of(objects)
    nodes = StateNodes(state, cluster_provider(state), catalog(), NOW)
    flying = nodes._flying
    classes = _classes(flying)
    names = [[flying[i].claim.name for i in members] for members in classes]
    assert ["neuron-x9p2m", "neuron-z1", "neuron-z2", "neuron-z3"] in names
    assert ["neuron-z4"] in names
    before = sum(item._made is not None for item in flying)
    pod = parse_object(
        next(o for o in objects if o["kind"] == "Pod" and o["metadata"]["name"] == "neuron-7b4c9-pq2rs")
    )
    assert isinstance(pod, Pod)
    nodes.room_in_flight(shape_of(pod), ("test",))
    made = [item.claim.name for item in flying if item._made is not None]
    assert len(made) - before <= len(classes)
    assert not {"neuron-z1", "neuron-z2", "neuron-z3"} & set(made)
    for members in classes:  # alike by the made nodes: the class's first answers for every member
        assert len({_node_class(flying[i].made[0], state) for i in members}) == 1


def test_a_claims_condition_flags_are_its_conditions_first_of_each_type() -> None:
    """`_claim_conditions` (once per conditions tuple) answers as `NodeClaim.condition`: the first condition of
    a type, absent as not true; on every claim of the scenarios, and on tuples with a type twice or missing."""
    from kubectl_gpu.core.analyses.pending.targets.nodes.existing import _claim_conditions, _true
    from kubectl_gpu.core.k8s.models import Condition

    claims = [c for name in NAMES for c in state_of(items(name)).nodeclaims]
    assert len(claims) > 5
    types = ("InstanceTerminating", "Registered", "Initialized")
    said: dict[int, Any] = {}
    for claim in claims:
        for _ in range(2):  # the second from `said`
            assert _claim_conditions(claim.conditions, said) == tuple(_true(claim, t) for t in types)
    twice = (
        Condition("Registered", "False", None, None, None),
        Condition("Registered", "True", None, None, None),
        Condition("Initialized", "True", None, None, None),
    )
    assert _claim_conditions(twice, {}) == (False, False, True)
    assert _claim_conditions((), {}) == (False, False, False)
