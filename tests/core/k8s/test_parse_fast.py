"""A pod in its usual shape is read by a fast path (`parse/pods_fast.py`, issue 22); it must answer exactly
what the checked path answers, on every real pod the tests hold and on pods with any field broken or
replaced (then the same error, word for word), whatever the memos hold from earlier pods."""

from __future__ import annotations

import copy
import math
from collections.abc import Collection
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import ModelError, common, fast, parse_object, pods, pods_fast
from kubectl_gpu.core.k8s.parse.common import resources
from tests.core.k8s.test_pod_slim import _real_pods

REAL = [p for p in _real_pods() if p.get("kind") == "Pod"]


def _outcome(parse: Any, obj: dict[str, Any]) -> tuple[str, ...]:
    """What a parser answers, as text: every field's repr (exact: Decimal('1') is not Decimal('1.0')) and
    every detail read on use; or the error's type and words."""
    try:
        pod: Pod = parse(copy.deepcopy(obj))
    except ModelError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("pod", repr(pod), repr(pod.limits), repr(pod.containers), repr(pod.container_statuses))


def test_the_real_pods_are_the_usual_shape() -> None:
    """The fast path is not a path nobody takes: it reads nearly every real pod that reads (those it
    leaves to the checked path hold DRA claims)."""
    readable = [p for p in REAL if _outcome(pods.parse_pod_checked, p)[0] == "pod"]
    assert len(readable) > 100
    fast = [p for p in readable if pods_fast.fast_pod(copy.deepcopy(p)) is not None]
    assert len(fast) >= 0.95 * len(readable)


@pytest.mark.parametrize("index", range(len(REAL)))
def test_real_pods_read_alike(index: int) -> None:
    obj = REAL[index]
    assert _outcome(pods_fast.parse_pod, obj) == _outcome(pods.parse_pod_checked, obj)
    assert _outcome(pods_fast.parse_pod_kept, obj) == _outcome(pods.parse_pod_checked, obj)
    fast = pods_fast.fast_pod(copy.deepcopy(obj))
    if fast is not None:
        assert _outcome(lambda o: fast, obj) == _outcome(pods.parse_pod_checked, obj)


# Where a value may be replaced: the fields the readers read, at every depth.
PATHS: list[tuple[Any, ...]] = [
    ("metadata",),
    ("metadata", "name"),
    ("metadata", "namespace"),
    ("metadata", "uid"),
    ("metadata", "labels"),
    ("metadata", "labels", "app"),
    ("metadata", "annotations"),
    ("metadata", "annotations", "kubectl-gpu.io/cuda"),
    ("metadata", "ownerReferences"),
    ("metadata", "ownerReferences", 0),
    ("metadata", "ownerReferences", 0, "kind"),
    ("metadata", "creationTimestamp"),
    ("metadata", "deletionTimestamp"),
    ("spec",),
    ("spec", "nodeName"),
    ("spec", "schedulerName"),
    ("spec", "restartPolicy"),
    ("spec", "serviceAccountName"),
    ("spec", "serviceAccount"),
    ("spec", "hostNetwork"),
    ("spec", "priority"),
    ("spec", "terminationGracePeriodSeconds"),
    ("spec", "containers"),
    ("spec", "containers", 0),
    ("spec", "containers", 0, "resources"),
    ("spec", "containers", 0, "resources", "requests"),
    ("spec", "containers", 0, "resources", "requests", "cpu"),
    ("spec", "containers", 0, "resources", "requests", "nvidia.com/gpu"),
    ("spec", "containers", 0, "resources", "limits"),
    ("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu"),
    ("spec", "containers", 0, "name"),
    ("spec", "containers", 0, "image"),
    ("spec", "containers", 0, "env"),
    ("spec", "containers", 0, "env", 0),
    ("spec", "containers", 0, "ports"),
    ("spec", "containers", 0, "ports", 0, "hostPort"),
    ("spec", "volumes"),
    ("spec", "volumes", 0),
    ("spec", "volumes", 0, "persistentVolumeClaim"),
    ("spec", "initContainers"),
    ("spec", "overhead"),
    ("spec", "overhead", "cpu"),
    ("spec", "tolerations"),
    ("spec", "tolerations", 0),
    ("spec", "tolerations", 0, "tolerationSeconds"),
    ("spec", "tolerations", 0, "operator"),
    ("spec", "nodeSelector"),
    ("spec", "nodeSelector", "eks.amazonaws.com/instance-gpu-name"),
    ("spec", "affinity"),
    ("spec", "affinity", "nodeAffinity"),
    ("spec", "resourceClaims"),
    ("spec", "schedulingGates"),
    ("spec", "topologySpreadConstraints"),
    ("status",),
    ("status", "phase"),
    ("status", "startTime"),
    ("status", "nominatedNodeName"),
    ("status", "podIP"),
    ("status", "podIPs"),
    ("status", "podIPs", 0),
    ("status", "podIPs", 0, "ip"),
    ("status", "containerStatuses"),
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([1.0, 0.5, math.nan, math.inf, -0.0]),
    st.sampled_from(["", "1", "500m", "2Gi", "x", "Always", "Exists", "2026-11-28T09:00:00Z", "nvidia"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["cpu", "key", "name", "a"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def _replace(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> bool:
    """Set `value` at `path` (inserting the last key where it is missing); False where the path is not there."""
    node: Any = obj
    for step in path[:-1]:
        if not _has(node, step):
            return False
        node = node[step]
    if not (isinstance(node, dict) or _has(node, path[-1])):
        return False
    node[path[-1]] = value
    return True


def _has(node: Any, step: Any) -> bool:
    if isinstance(node, dict):
        return step in node
    return isinstance(node, list) and isinstance(step, int) and step < len(node)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(REAL))),
    st.lists(st.tuples(st.sampled_from(PATHS), VALUES), min_size=1, max_size=3),
)
def test_broken_pods_read_alike(index: int, changes: list[tuple[tuple[Any, ...], Any]]) -> None:
    """Any field replaced by any JSON or YAML value (NaN and infinities too): the same pod or the same
    error. The memos are shared across examples, so a value read before (`null`, `1`) is in them when an
    equal-looking one (`nan`, `1.0`, `true`) comes."""
    obj = copy.deepcopy(REAL[index])
    for path, value in changes:
        _replace(obj, path, value)
    assert _outcome(pods_fast.parse_pod, obj) == _outcome(pods.parse_pod_checked, obj)
    assert _outcome(pods_fast.parse_pod_kept, obj) == _outcome(pods.parse_pod_checked, obj)


# Values Python holds equal (or JSON writes alike) that the checked readers read differently.
LOOKALIKES = [
    (None, math.nan),
    (None, math.inf),
    (1, 1.0),
    (1, True),
    (0, False),
    ("1", 1),
    ([], None),
    ({}, None),
    ({}, []),
    ("", None),
]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: ".".join(map(str, p)))
def test_lookalike_values_in_turn(path: tuple[Any, ...]) -> None:
    """One value at `path`, then a look-alike there (both orders), on a GPU pod with tolerations, limits
    and a nodeSelector: the second reads as the checked path reads it, not as the memo holds the first."""
    base = next(p for p in REAL if p["spec"].get("tolerations") and p["spec"].get("nodeSelector"))
    for first, second in LOOKALIKES:
        for a, b in ((first, second), (second, first)):
            for value in (a, b):
                obj = copy.deepcopy(base)
                if _replace(obj, path, value):
                    assert _outcome(pods_fast.parse_pod, obj) == _outcome(pods.parse_pod_checked, obj), (
                        path,
                        a,
                        b,
                    )


def real_objects(kinds: Collection[str]) -> list[dict[str, Any]]:
    """Every object of one of `kinds` the tests hold."""
    from tests.core.k8s.test_pod_slim import SOURCES, _documents

    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if value.get("kind") in kinds and "metadata" in value:
                found.append(value)
            for item in value.values():
                walk(item)

    for source in SOURCES:
        for path in [source] if source.is_file() else sorted(source.rglob("*")):
            if path.suffix in (".json", ".yaml", ".yml"):
                walk(_documents(path))
    return found


OBJECTS = real_objects(("Node", "NodeClaim", "Event"))  # the kinds with a fast path
META_PATHS = [p for p in PATHS if p[0] == "metadata"]


def _parsed(obj: dict[str, Any]) -> tuple[str, ...]:
    try:
        model = parse_object(copy.deepcopy(obj))
    except ModelError as exc:
        return ("error", str(exc))
    return ("model", repr(model))


def _checked_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checked readers everywhere: no fast metadata or events, no memo of quantities, taints,
    conditions or times, the models built by their own `__init__`."""
    from kubectl_gpu.core.k8s import models
    from kubectl_gpu.core.k8s.parse import events, karpenter, nodes

    for module in (events, karpenter, nodes):
        monkeypatch.setattr(module, "fast_meta", lambda md, namespaced: None)
    for module in (karpenter, nodes):
        monkeypatch.setattr(module, "memo_resources", lambda value, where: resources(value, where()))
        monkeypatch.setattr(module, "fast_conditions", common.conditions)
    monkeypatch.setattr(karpenter, "memo_text", lambda memo, value, read: read(value))
    monkeypatch.setattr(events, "_fast_event", lambda obj: None)
    for module in (events, karpenter):
        monkeypatch.setattr(module, "opt_time" if module is events else "fast_time", common.opt_time)
    for module, name, cls in (
        (events, "_event", models.Event),
        (events, "_involved", models.InvolvedObject),
        (nodes, "_node", models.Node),
        (karpenter, "_nodeclaim", models.NodeClaim),
    ):
        monkeypatch.setattr(module, name, cls)


def test_nodes_claims_and_events_read_as_the_checked_readers_read_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert len({o["kind"] for o in OBJECTS}) == 3 and len(OBJECTS) > 30
    cases = [OBJECTS[0]]
    for obj in OBJECTS:
        for path in [
            *META_PATHS,
            ("status", "capacity"),
            ("status", "capacity", "cpu"),
            ("status", "allocatable"),
            ("status", "conditions"),
            ("status", "conditions", 0),
            ("status", "conditions", 0, "type"),
            ("status", "conditions", 0, "status"),
            ("status", "conditions", 0, "reason"),
            ("status", "conditions", 0, "lastTransitionTime"),
            ("status", "lastPodEventTime"),
            ("spec", "taints"),
            ("spec", "taints", 0),
            ("spec", "taints", 0, "effect"),
            ("spec", "taints", 0, "value"),
            ("spec", "startupTaints"),
            ("spec",),
            ("status",),
            ("spec", "resources"),
            ("spec", "requirements"),
            ("status", "nodeName"),
            ("count",),
            ("lastTimestamp",),
            ("involvedObject",),
            ("involvedObject", "name"),
            ("source",),
            ("series",),
        ]:
            for a, b in LOOKALIKES:
                for value in (a, b):
                    changed = copy.deepcopy(obj)
                    if _replace(changed, path, value):
                        cases.append(changed)
    cases += OBJECTS
    fast = [_parsed(o) for o in cases]
    with monkeypatch.context() as patch:
        _checked_only(patch)
        checked = [_parsed(o) for o in cases]
    assert fast == checked
    assert sum(1 for f in fast if f[0] == "model") > len(cases) // 3


def test_claim_taints_read_as_the_checked_readers_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A NodeClaim's taints go through a memo of their JSON text: good ones, broken ones (the same error,
    word for word) and look-alikes, each twice (the second through the memo), read as the checked reader
    reads them."""
    claim = next(o for o in OBJECTS if o["kind"] == "NodeClaim")
    good = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
    values: list[Any] = [
        [good],
        [{"key": "nvidia.com/gpu"}],
        ["text"],
        [{**good, "value": 1}],
        [{**good, "value": math.nan}],
        [{**good, "value": None}],
        {},
        None,
        [],
    ]
    cases = []
    for field in ("taints", "startupTaints"):
        for value in values * 2:
            changed = copy.deepcopy(claim)
            changed.setdefault("spec", {})[field] = copy.deepcopy(value)
            cases.append(changed)
    fast = [_parsed(o) for o in cases]
    with monkeypatch.context() as patch:
        _checked_only(patch)
        checked = [_parsed(o) for o in cases]
    assert fast == checked
    assert {f[0] for f in fast} == {"error", "model"}
    name = claim["metadata"]["name"]
    assert fast[1] == ("error", f"NodeClaim {name} spec.taints: taint 'nvidia.com/gpu' has no effect")
    assert fast[2 * len(values) + 2][1] == f"NodeClaim {name} spec.startupTaints entries must be objects"


def test_templates_that_differ_in_an_image_share_their_parts() -> None:
    """A pod of another image has the first one's template (its requests, tolerations and node affinity, read
    once) and containers of its own (cut once per their text); a part that does not read names its pod."""
    base = next(
        p
        for p in REAL
        if p["spec"].get("tolerations") and p["spec"].get("nodeSelector") and p["spec"]["containers"]
    )
    first, second = copy.deepcopy(base), copy.deepcopy(base)
    second["spec"]["containers"][0]["image"] = "example.com/other:tag-" + "x" * 12
    a = pods_fast.parse_pod(first)
    read = (len(pods_fast._TEMPLATES), len(pods_fast._REQUESTS))
    b = pods_fast.parse_pod(second)
    assert (len(pods_fast._TEMPLATES), len(pods_fast._REQUESTS)) == read  # the first's template
    spec = second["spec"]
    found = pods_fast._template(spec, spec["containers"], spec.get("initContainers") or [], b.meta)
    assert found is not None
    template = found[0]
    assert len(template.apps) >= 2  # each image's containers of their own
    assert a.containers[0].image != b.containers[0].image
    assert a.tolerations is b.tolerations and a.node_affinity is b.node_affinity
    assert a.requests is b.requests  # one dict, read-only like every part a template shares
    broken = copy.deepcopy(second)
    broken["metadata"]["name"] = "broken-one"
    broken["spec"]["containers"][0]["image"] = "example.com/third:1"
    broken["spec"]["tolerations"] = [*broken["spec"]["tolerations"], "not an object"]
    with pytest.raises(ModelError, match="broken-one"):
        pods_fast.parse_pod(broken)


def test_a_sidecars_host_port_is_its_pods_own() -> None:
    """A restartable init container (a sidecar) holds its host ports for the pod's life (kube-scheduler's
    `GetHostPorts`): two pods alike but for a sidecar's ports are two templates, and the second's host port
    is read, as the checked reader reads it."""
    base = next(
        p for p in REAL if p.get("spec", {}).get("containers") and not p["spec"].get("initContainers")
    )
    plain, holding = copy.deepcopy(base), copy.deepcopy(base)
    for obj, ports in ((plain, []), (holding, [{"containerPort": 9100, "hostPort": 9100}])):
        obj["spec"]["initContainers"] = [
            {"name": "proxy", "image": "proxy:1", "restartPolicy": "Always", "ports": ports}
        ]
    first = pods_fast.parse_pod(copy.deepcopy(plain))
    second = pods_fast.parse_pod(copy.deepcopy(holding))
    assert not first.placement.host_ports
    assert [p.port for p in second.placement.host_ports] == [9100]
    assert _outcome(pods_fast.parse_pod, holding) == _outcome(pods.parse_pod_checked, holding)


_TIME_TEXTS = [
    "2026-11-21T00:48:32Z",
    "2026-11-21T00:48:32.123456Z",
    "2026-11-21T00:48:32+00:00",
    "2026-11-21T02:48:32+02:00",
    "2026-11-21T00:48:32",
    "1969-12-31T23:59:59Z",
    "3000-01-01T00:00:00Z",
    "2999-12-31T23:59:59Z",
    "9999-12-31T23:00:00-05:00",
    "2026-13-01T00:00:00Z",
    "2026-11-21",
    "",
    "yesterday",
    None,
    0,
    1.5,
    [],
]


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.sampled_from(_TIME_TEXTS),
        st.datetimes(timezones=st.one_of(st.none(), st.timezones())).map(lambda d: d.isoformat()),
        st.datetimes().map(lambda d: d.isoformat() + "Z"),
        st.text(max_size=30),
    )
)
def test_fast_time_reads_as_the_checked_reader(value: object) -> None:
    """`fast.fast_time` reads the usual text itself and hands the rest to `common.opt_time`: the same
    datetime, or None, for any value."""
    assert repr(fast.fast_time(value)) == repr(common.opt_time(value))  # the instant and its zone (UTC)


def test_a_constructor_builds_what_the_struct_builds_by_place_or_by_name() -> None:
    """`fast.constructor` passes the fields by their place: every field must be named, each lands in its own
    field, and a keyword-only Struct (whose fields have no place) is refused at the first build."""
    import msgspec

    class Placed(msgspec.Struct, frozen=True):
        first: int
        second: str
        third: tuple[int, ...] = ()

    class Named(msgspec.Struct, frozen=True, kw_only=True):
        first: int
        second: str = "x"

    assert fast.constructor(Placed)(third=(3,), second="b", first=1) == Placed(1, "b", (3,))
    with pytest.raises(TypeError):
        fast.constructor(Named)(second="b", first=1)
    with pytest.raises(TypeError):
        fast.constructor(Placed)(first=1, second="b")  # `third` has a default, and must still be given
    meta = fast.fast_meta({"name": "n", "namespace": "ns", "labels": {"a": "b"}}, namespaced=True)
    assert meta is not None and meta == common.meta({"metadata": {"name": "n", "namespace": "ns", "labels": {"a": "b"}}}, "Pod")
