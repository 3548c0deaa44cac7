"""shapes.py: a shape key that tells apart any two pods the analysis could answer differently, and owners."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import PendingReport, analyse_pending
from kubectl_gpu.core.analyses.pending.analysis import _Analyser
from kubectl_gpu.core.analyses.pending.pod.shape import shape_key_of, shape_of
from kubectl_gpu.core.analyses.pending.pod.shapes import Owner, owner_key, shape_key
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.snapshot import load_snapshot
from tests.core.analyses.pending._scenarios import NAMES, NOW, catalog, items, state_of
from tests.helpers import REPO, pod

DEMO = REPO / "examples" / "automode-gpu-demo.json"
DEMO_NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


def _pod(obj: dict[str, Any]) -> Pod:
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    return parsed


def _owned(kind: str, name: str, labels: dict[str, str] | None = None) -> Pod:
    obj = pod("p-0", "ml", phase="Pending", labels=labels)
    obj["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": kind, "name": name, "uid": "u"}]
    return _pod(obj)


@pytest.mark.parametrize(
    ("kind", "name", "labels", "owner"),
    [
        ("Job", "train", None, Owner("ml", "Job", "train")),
        ("ReplicaSet", "serve-7d9f8", {"pod-template-hash": "7d9f8"}, Owner("ml", "Deployment", "serve")),
        ("ReplicaSet", "serve-7d9f8", None, Owner("ml", "ReplicaSet", "serve-7d9f8")),
        (
            "StatefulSet",
            "db",
            {"statefulset.kubernetes.io/pod-name": "db-0"},
            Owner("ml", "StatefulSet", "db"),
        ),
        (
            "StatefulSet",
            "llm-0",
            {"leaderworkerset.sigs.k8s.io/name": "llm"},
            Owner("ml", "LeaderWorkerSet", "llm"),
        ),
    ],
)
def test_owner_key(kind: str, name: str, labels: dict[str, str] | None, owner: Owner) -> None:
    assert owner_key(_owned(kind, name, labels)) == owner


def test_a_bare_pod_has_no_owner() -> None:
    assert owner_key(_pod(pod("p-0", "ml", phase="Pending"))) is None


def test_replicas_share_a_shape_key_and_names_do_not_count() -> None:
    a = _pod(
        pod("a", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}, created="2026-11-28T08:00:00Z")
    )
    b = _pod(
        pod("b", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}, created="2026-11-28T07:00:00Z")
    )
    assert shape_key(a) == shape_key(b)
    hash(shape_key(a))


# ---- shape_key is sound: one input the analysis reads changed, the key changes ----------------------------

Obj = dict[str, Any]


def _base() -> Obj:
    obj = pod(
        "train-0",
        "ml",
        phase="Pending",
        requests={"nvidia.com/gpu": "1", "cpu": "4", "memory": "16Gi"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        node_selector={"eks.amazonaws.com/instance-family": "g6e"},
        labels={"app": "train"},
    )
    obj["spec"]["schedulerName"] = "default-scheduler"
    return obj


def _spec(obj: Obj) -> Obj:
    spec: Obj = obj["spec"]
    return spec


def _requests(obj: Obj) -> Obj:
    requests: Obj = _spec(obj)["containers"][0]["resources"]["requests"]
    return requests


def _term(key: str, value: str) -> Obj:
    return {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}


_SELECTOR = {"matchLabels": {"app": "train"}}
# (what is changed, how): each changes one input of the pending analysis to a drawn value.
CHANGES: dict[str, Any] = {
    "gpus": lambda o, v: _requests(o).update({"nvidia.com/gpu": str(2 + v % 7)}),
    "accelerator": lambda o, v: _requests(o).update(
        {("aws.amazon.com/neuron", "nvidia.com/mig-1g.10gb")[v % 2]: "1"}
    ),
    "cpu": lambda o, v: _requests(o).update({"cpu": f"{5 + v}"}),
    "memory": lambda o, v: _requests(o).update({"memory": f"{17 + v}Gi"}),
    "efa": lambda o, v: _requests(o).update({"vpc.amazonaws.com/efa": str(1 + v)}),
    "ephemeral-storage": lambda o, v: _requests(o).update({"ephemeral-storage": f"{1 + v}Gi"}),
    "init container": lambda o, v: (
        _spec(o)
        .setdefault("initContainers", [])
        .append({"name": "init", "image": "busybox", "resources": {"requests": {"cpu": f"{40 + v}"}}})
    ),
    "toleration": lambda o, v: _spec(o)["tolerations"].append({"key": f"k{v}", "operator": "Exists"}),
    "toleration effect": lambda o, v: _spec(o)["tolerations"][0].update({"effect": ("NoExecute", "")[v % 2]}),
    "nodeSelector": lambda o, v: _spec(o)["nodeSelector"].update({f"k{v}": "x"}),
    "nodeSelector value": lambda o, v: _spec(o)["nodeSelector"].update(
        {"eks.amazonaws.com/instance-family": f"g{v}"}
    ),
    "node affinity": lambda o, v: _spec(o).update(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [_term(f"k{v}", "a")]
                    }
                }
            }
        }
    ),
    "matchFields": lambda o, v: _spec(o).update(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [f"n{v}"]}]}
                        ]
                    }
                }
            }
        }
    ),
    "host port": lambda o, v: _spec(o)["containers"][0].update(
        {"ports": [{"containerPort": 80, "hostPort": 8000 + v}]}
    ),
    "topology spread": lambda o, v: _spec(o).update(
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1 + v,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": _SELECTOR,
                }
            ]
        }
    ),
    "pod anti-affinity": lambda o, v: _spec(o).update(
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"topologyKey": f"key-{v}", "labelSelector": _SELECTOR}
                    ]
                }
            }
        }
    ),
    "claim": lambda o, v: _spec(o).update(
        {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-{v}"}}]}
    ),
    "namespace": lambda o, v: o["metadata"].update({"namespace": f"team-{v}"}),
    "labels": lambda o, v: o["metadata"]["labels"].update({"app": f"other-{v}"}),
    "schedulerName": lambda o, v: _spec(o).update({"schedulerName": f"volcano-{v}"}),
    "schedulingGates": lambda o, v: _spec(o).update({"schedulingGates": [{"name": f"gate-{v}"}]}),
    "resourceClaims": lambda o, v: _spec(o).update(
        {"resourceClaims": [{"name": f"gpu-{v}", "resourceClaimName": "c"}]}
    ),
    "nodeName": lambda o, v: _spec(o).update({"nodeName": f"i-{v}"}),
    "phase": lambda o, v: o["status"].update({"phase": ("Running", "Failed")[v % 2]}),
}
# What the analysis reads of a pod only as the pod's own (its name and uid find its events; its age is shown).
UNREAD: dict[str, Any] = {
    "name": lambda o, v: o["metadata"].update({"name": f"train-{v + 1}"}),
    "uid": lambda o, v: o["metadata"].update({"uid": f"uid-{v}"}),
    "creationTimestamp": lambda o, v: o["metadata"].update(
        {"creationTimestamp": f"2026-11-{10 + v % 18}T08:00:00Z"}
    ),
    "image": lambda o, v: _spec(o)["containers"][0].update({"image": f"nvidia/cuda:12.{v % 9}.0-base"}),
    "env": lambda o, v: _spec(o)["containers"][0].update({"env": [{"name": "X", "value": str(v)}]}),
}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(CHANGES)), st.integers(min_value=0, max_value=50))
def test_any_input_the_analysis_reads_changes_the_key(change: str, value: int) -> None:
    before = _base()
    after = copy.deepcopy(before)
    CHANGES[change](after, value)
    assert shape_key(_pod(before)) != shape_key(_pod(after)), change
    assert shape_key_of(_pod(after)) == shape_of(_pod(after)).key  # the cheap key is the shape's


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(UNREAD)), st.integers(min_value=0, max_value=50))
def test_what_is_the_pods_own_keeps_the_key(change: str, value: int) -> None:
    before = _base()
    after = copy.deepcopy(before)
    UNREAD[change](after, value)
    assert shape_key(_pod(before)) == shape_key(_pod(after)), change


def _placed_with_anti_affinity() -> Obj:
    """A running pod whose required anti-affinity selects `app`: the Pending pods' labels then count."""
    obj = pod("placed", "ml", phase="Running", node_name="i-placed", labels={"app": "serve"})
    obj["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                }
            ]
        }
    }
    return obj


def _answers(before: Obj, after: Obj, *others: Obj) -> tuple[object, object]:
    """The shape answers the analysis finds for two pods (by the parts they share, or by their keys)."""
    state = state_of([before, after, *others])
    analyser = _Analyser(state, catalog(), NOW)
    first, second = state.pods[:2]
    return analyser._shape_answer(first), analyser._shape_answer(second)


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_replica_changed_in_any_input_gets_a_shape_of_its_own(change: str) -> None:
    before = _base()
    after = copy.deepcopy(before)
    after["metadata"].update(name="train-1", uid="uid-1")
    CHANGES[change](after, 3)
    others = [_placed_with_anti_affinity()] if change == "labels" else []  # else labels are not read
    a, b = _answers(before, after, *others)
    assert a is not b, change


@pytest.mark.parametrize("change", sorted(UNREAD))
def test_a_replica_changed_in_its_own_only_shares_the_shape(change: str) -> None:
    before = _base()
    after = copy.deepcopy(before)
    after["metadata"].update(name="train-1", uid="uid-1")
    UNREAD[change](after, 3)
    a, b = _answers(before, after)
    assert a is b, change


def test_labels_count_only_where_a_placed_pods_anti_affinity_may_read_them() -> None:
    a, b = _base(), _base()
    b["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = "train-1"
    assert shape_key(_pod(a)) != shape_key(_pod(b))
    assert shape_key(_pod(a), labels=False) == shape_key(_pod(b), labels=False)
    CHANGES["topology spread"](a, 0)
    CHANGES["topology spread"](b, 0)  # the pod's own spread reads labels: they count whatever is asked
    assert shape_key(_pod(a), labels=False) != shape_key(_pod(b), labels=False)


# ---- grouped evaluation: the same answer for every pod as each pod evaluated on its own ------------------


def _expanded(report: PendingReport) -> dict[str, Obj]:
    """Every pod's JSON with its shape's entry folded in, by pod key."""
    data = report.to_dict()
    out = {}
    for entry in data["pods"]:
        whole = {**entry, **data["shapes"][entry.pop("shape")]}
        out[f"{whole['namespace']}/{whole['name']}"] = whole
    return out


def _same_answers(state: ClusterState, now: datetime) -> int:
    grouped = analyse_pending(state, catalog(), now, all_pending=True)
    alone = analyse_pending(state, catalog(), now, all_pending=True, group_shapes=False)
    assert [p.key for p in grouped.pods] == [p.key for p in alone.pods]
    assert _expanded(grouped) == _expanded(alone)
    for g, a in zip(grouped.pods, alone.pods, strict=True):
        assert (g.verdict, g.fix_check, g.notes, g.evaluations) == (
            a.verdict,
            a.fix_check,
            a.notes,
            a.evaluations,
        )
    return len(grouped.to_dict()["shapes"])


def _regarding(event: Obj) -> Obj:
    """The object an Event is about (`involvedObject` in core/v1, `regarding` in events.k8s.io/v1)."""
    found: Obj = event.get("involvedObject") or event.get("regarding") or {}
    return found


def _with_replicas(name: str, copies: int) -> list[Obj]:
    """The scenario with each Pending pod's replicas (other names and uids) and their own events."""
    objects = items(name)
    extra: list[Obj] = []
    for obj in objects:
        if obj["kind"] != "Pod" or obj["status"].get("phase") != "Pending":
            continue
        meta = obj["metadata"]
        events = [
            e
            for e in objects
            if e["kind"] == "Event"
            and (_regarding(e).get("name"), _regarding(e).get("namespace"))
            == (meta["name"], meta.get("namespace"))
        ]
        for i in range(copies):
            twin = copy.deepcopy(obj)
            twin["metadata"]["name"] = f"{meta['name']}-r{i}"
            twin["metadata"]["uid"] = f"{meta.get('uid')}-r{i}"
            extra.append(twin)
            for event in events:
                e = copy.deepcopy(event)
                e["metadata"]["name"] = f"{e['metadata']['name']}-r{i}"
                _regarding(e).update(name=twin["metadata"]["name"], uid=twin["metadata"]["uid"])
                extra.append(e)
    return objects + extra


@pytest.mark.parametrize("scenario", NAMES)
def test_grouped_answers_are_the_ungrouped_ones(scenario: str) -> None:
    _same_answers(state_of(items(scenario)), NOW)


@pytest.mark.parametrize("scenario", NAMES)
def test_replicas_share_one_shape_entry_and_answer_alike(scenario: str) -> None:
    plain = analyse_pending(state_of(items(scenario)), catalog(), NOW, all_pending=True).to_dict()
    assert _same_answers(state_of(_with_replicas(scenario, 3)), NOW) == len(plain["shapes"])


def test_grouped_answers_on_the_demo() -> None:
    state = load_snapshot([DEMO])
    _same_answers(state, DEMO_NOW)


def test_the_first_nodeclaim_in_flight_by_name_is_the_room_whatever_its_class() -> None:
    """NodeClaims in flight alike but for their name are tried once per class (existing.py); the answer is
    still the first claim by name that takes the pod."""
    objects = items("automode-capacity")
    key = "inferentia/neuron-7b4c9-pq2rs"
    claim = next(o for o in objects if o["kind"] == "NodeClaim" and o["metadata"]["name"] == "neuron-x9p2m")
    for name in ("neuron-a0001", "neuron-a0002", "neuron-a0003", "neuron-z0001"):
        twin = copy.deepcopy(claim)
        twin["metadata"].update(name=name, uid=f"uid-{name}")
        if name.startswith("neuron-a"):  # a taint the pod does not tolerate: another class, no room
            twin["spec"]["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
        objects.append(twin)

    def room() -> str:
        found = analyse_pending(state_of(objects), catalog(), NOW, all_pending=True)
        return next(p for p in found.pods if p.key == key).reason

    assert room().startswith("NodeClaim neuron-x9p2m of NodePool neuron is starting")
    third = next(o for o in objects if o["metadata"].get("name") == "neuron-a0003")
    third["spec"]["taints"] = claim["spec"].get("taints", [])  # alike again: the first by name now
    assert room().startswith("NodeClaim neuron-a0003 of NodePool neuron is starting")


def test_each_diagnosis_names_its_owner() -> None:
    state = load_snapshot([DEMO])
    report = analyse_pending(state, catalog(), DEMO_NOW, all_pending=True)
    pods = {f"{p.namespace}/{p.name}": p for p in state.pods}
    assert [d.owner for d in report.pods] == [owner_key(pods[d.key]) for d in report.pods]
    assert any(d.owner is not None and d.owner.kind == "Deployment" for d in report.pods)
