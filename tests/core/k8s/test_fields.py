"""A List decoded to the fields the parsers read (`core/k8s/parse/fields.py`, issue 22) reads exactly as the
whole List does: on every object the tests hold, on pods with any field broken or replaced (the same pod or
the same error), and no checked reader looks up a key that the decode drops."""

from __future__ import annotations

import copy
import types
import typing
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.k8s.models import NodeClaim
from kubectl_gpu.core.k8s.parse import KINDS, ModelError, fields, kind_of, parse_object, pods_fast
from kubectl_gpu.core.k8s.parse.fields import LIST, as_dict
from kubectl_gpu.core.k8s.parse.pods import LaterContainers
from tests.core.k8s.test_parse_fast import PATHS, REAL, VALUES, _outcome, _replace, real_objects

_DECODER = msgspec.json.Decoder(LIST)


def _kinds() -> dict[str, Any]:
    """Each kind's struct, by its tag."""
    items = typing.get_type_hints(LIST)["items"]  # list[Union[...]] | None
    (listed,) = (a for a in typing.get_args(items) if a is not type(None))
    (union,) = typing.get_args(listed)
    return {t.__struct_config__.tag: t for t in typing.get_args(union)}


STRUCTS = _kinds()


OBJECTS = real_objects(STRUCTS)  # every kind the decode knows, parsed or not


def _through_fields(obj: dict[str, Any]) -> dict[str, Any] | None:
    """`obj` as the decode of a List holding it gives it back; None where the List does not decode that way."""
    data = orjson.dumps({"apiVersion": "v1", "items": [obj], "kind": "List"})
    try:
        found = _DECODER.decode(data)
    except msgspec.ValidationError:
        return None
    return as_dict(found.items[0])


def _read(obj: dict[str, Any]) -> tuple[str, ...]:
    if obj.get("kind") == "Pod":
        return _outcome(pods_fast.parse_pod, obj)
    try:
        return ("model", repr(parse_object(copy.deepcopy(obj))))
    except ModelError as exc:
        return ("error", str(exc))


def test_the_objects_held_cover_the_kinds_parsed_and_lose_weight() -> None:
    kinds = {o["kind"] for o in OBJECTS}
    assert {"Pod", "Node", "Event", "NodePool", "NodeClaim", "NodeClass", "EC2NodeClass"} <= kinds
    slim = [_through_fields(o) for o in OBJECTS]
    assert all(s is not None for s in slim), "every real object fits the decode's types"
    pods = [(o, s) for o, s in zip(OBJECTS, slim, strict=True) if o["kind"] == "Pod"]
    before = sum(len(orjson.dumps(o)) for o, _ in pods)
    after = sum(len(msgspec.json.encode(s)) for _, s in pods)  # the parts kept as text, as they were
    assert after < 0.8 * before, (after, before)  # the decode drops something: not a copy under another name


@pytest.mark.parametrize("index", range(len(OBJECTS)))
def test_every_object_reads_the_same_from_the_fields_kept(index: int) -> None:
    obj = OBJECTS[index]
    slim = _through_fields(obj)
    assert slim is not None
    assert _read(slim) == _read(orjson.loads(orjson.dumps(obj)))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(REAL))),
    st.lists(st.tuples(st.sampled_from(PATHS), VALUES), min_size=1, max_size=3),
)
def test_broken_pods_read_alike_from_the_fields_kept(
    index: int, changes: list[tuple[tuple[Any, ...], Any]]
) -> None:
    """Any field replaced by any JSON value: the decode either refuses the List (it is then read whole) or
    gives the pod that reads as the whole one reads, error for error."""
    obj = copy.deepcopy(REAL[index])
    for path, value in changes:
        _replace(obj, path, value)
    try:
        whole = orjson.loads(orjson.dumps(obj))  # NaN and infinities are written null, as JSON holds them
    except TypeError:  # an index set as a key of what became a dict: no JSON holds that
        assume(False)
    slim = _through_fields(whole)
    if slim is not None:
        assert _read(slim) == _read(whole)


class _Seen:
    """Every path a reader looked up: a key, `[]` for a list's entries, `*` where it went through all keys."""

    def __init__(self) -> None:
        self.paths: set[tuple[str, ...]] = set()

    def wrap(self, value: Any, path: tuple[str, ...]) -> Any:
        if isinstance(value, dict):
            return _RecordingDict(value, path, self)
        if isinstance(value, list):
            return _RecordingList(value, path, self)
        return value


class _RecordingDict(dict[str, Any]):
    def __init__(self, data: dict[str, Any], path: tuple[str, ...], seen: _Seen) -> None:
        super().__init__(data)
        self._path, self._seen = path, seen

    def _at(self, key: str) -> tuple[str, ...]:
        self._seen.paths.add((*self._path, key))
        return (*self._path, key)

    def __getitem__(self, key: str) -> Any:
        return self._seen.wrap(super().__getitem__(key), self._at(key))

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        path = self._at(key)
        return self._seen.wrap(super().__getitem__(key), path) if super().__contains__(key) else default

    def __contains__(self, key: object) -> bool:
        self._at(str(key))
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self._at("*")
        return super().__iter__()

    def items(self) -> Any:  # type: ignore[override]
        path = self._at("*")
        return [(k, self._seen.wrap(v, (*path[:-1], k))) for k, v in super().items()]

    def values(self) -> Any:  # type: ignore[override]
        return [v for _, v in self.items()]

    def keys(self) -> Any:  # type: ignore[override]
        self._at("*")
        return super().keys()


class _RecordingList(list[Any]):
    def __init__(self, data: list[Any], path: tuple[str, ...], seen: _Seen) -> None:
        super().__init__(data)
        self._path, self._seen = (*path, "[]"), seen

    def __iter__(self) -> Any:
        return (self._seen.wrap(v, self._path) for v in list.__iter__(self))

    def __getitem__(self, index: Any) -> Any:
        return self._seen.wrap(super().__getitem__(index), self._path)


def _kept(kind: str, path: tuple[str, ...]) -> bool:
    """Whether the decode keeps what `path` reaches in an object of `kind` (all of it under an `Any`)."""
    node: Any = STRUCTS[kind]
    if path == ("kind",) or (path == ("*",) and node.__struct_config__.forbid_unknown_fields):
        return True  # the tag; every key of a kind read whole (any other key makes the decode fail)
    for step in path:
        if node is Any or node is msgspec.Raw:  # kept whole, as a value or as its text
            return True
        args = [a for a in typing.get_args(node) if a is not type(None)]
        if typing.get_origin(node) in (typing.Union, types.UnionType):
            (node,) = args
        if typing.get_origin(node) is list:
            if step != "[]":
                return False
            (node,) = typing.get_args(node)
            continue
        hints = typing.get_type_hints(node)
        if step not in hints:
            return False
        node = hints[step]
    return True


def test_every_key_the_checked_readers_look_up_is_kept() -> None:
    """The readers are run on objects that record each lookup (the fast paths step aside for them: they
    read only plain dicts, and read nothing the checked ones do not). Every key looked up is one the decode
    keeps, so no reader can see a value the decode dropped."""
    missing: set[tuple[str, tuple[str, ...]]] = set()
    for obj in OBJECTS:
        parser = KINDS.get(kind_of(obj))
        if parser is None:
            continue
        seen = _Seen()
        try:
            model = parser(seen.wrap(copy.deepcopy(obj), ()))
        except ModelError:
            continue
        for detail in ("limits", "containers", "container_statuses"):
            getattr(model, detail, None)
        missing |= {(obj["kind"], path) for path in seen.paths if not _kept(obj["kind"], path)}
    assert not missing, sorted(missing)


def test_the_skipped_kinds_are_parsed_in_no_group() -> None:
    """A kind read as only its apiVersion must be one no parser reads under any API group."""
    parsed = {kind for _, kind in KINDS}
    assert not parsed & set(fields.SKIPPED_KINDS)
    assert parsed <= set(STRUCTS)


def _texts_in(value: Any, seen: set[int]) -> list[str]:
    """Where a `msgspec.Raw` is in what `value` holds (dicts, sequences, Structs, slotted objects)."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
        return []
    seen.add(id(value))
    if isinstance(value, msgspec.Raw):
        return [repr(bytes(value)[:40])]
    if isinstance(value, dict):
        children = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    else:
        names = getattr(type(value), "__struct_fields__", None) or getattr(type(value), "__slots__", ())
        children = [getattr(value, n) for n in names if hasattr(value, n)]
    return [t for child in children for t in _texts_in(child, seen)]


def test_a_pods_template_parts_are_kept_as_text_read_once_and_never_kept() -> None:
    """A pod decoded from a List holds its template's parts as text (tolerations, affinity, the containers'
    requests and ports): its template is keyed by that text, so replicas, and pods that differ only in their
    nodeSelector (a pod's own), share one template; what a pod keeps holds no text (a `msgspec.Raw` would keep
    the whole input's bytes alive), and it reads as the whole pod does."""
    base = next(
        o
        for o in OBJECTS
        if o["kind"] == "Pod" and o["spec"].get("tolerations") and o["spec"]["containers"][0].get("resources")
    )
    first = _through_fields(base)
    assert first is not None
    assert isinstance(first["spec"]["tolerations"], msgspec.Raw)
    assert isinstance(first["spec"]["containers"][0]["resources"], msgspec.Raw)
    other = copy.deepcopy(base)
    other["metadata"]["name"] = "replica-2"
    other["spec"]["nodeSelector"] = {"team": "b"}
    other["spec"]["containers"][0]["image"] = "example.com/other:2"
    second = _through_fields(other)
    assert second is not None
    before = len(pods_fast._TEMPLATES)
    a = pods_fast.parse_pod(first)
    b = pods_fast.parse_pod(second)
    assert len(pods_fast._TEMPLATES) <= before + 1  # one template for both (none where a test made it)
    assert a.requests is b.requests and a.tolerations is b.tolerations and a.node_affinity is b.node_affinity
    assert b.node_selector == {"team": "b"} and b.containers[0].image == "example.com/other:2"
    for pod in (a, b):
        read = (pod.limits, pod.containers, pod.container_statuses)
        assert not _texts_in((pod, read), set())
    assert _read(first) == _read(orjson.loads(orjson.dumps(base)))
    assert _read(second) == _read(orjson.loads(orjson.dumps(other)))


def test_containers_of_names_and_images_alone_are_made_on_first_use_once() -> None:
    """Replicas whose containers have names and images alone (no variables) share one `LaterContainers`:
    nothing is made until a pod's containers or limits are read, then once for all of them, equal to what
    the whole read gives; a pod with variables gets its own cut-down containers at once."""
    base = next(
        o
        for o in OBJECTS
        if o["kind"] == "Pod"
        and o["spec"]["containers"][0].get("resources")
        and all("env" not in c for c in o["spec"]["containers"])
        and not o["spec"].get("initContainers")
    )
    base = copy.deepcopy(base)
    for n, container in enumerate(base["spec"]["containers"]):  # names and images no other test parses
        container["image"] = f"example.com/made-on-first-use:{n}"
    replicas = []
    for name in ("replica-a", "replica-b"):
        other = copy.deepcopy(base)
        other["metadata"]["name"] = name
        found = _through_fields(other)
        assert found is not None
        replicas.append(pods_fast.parse_pod(found))
    a, b = replicas
    later = a._details._app  # type: ignore[attr-defined]
    assert type(later) is LaterContainers and b._details._app is later  # type: ignore[attr-defined]
    assert later._made is None  # nothing made while no pod is asked
    whole = pods_fast.parse_pod(orjson.loads(orjson.dumps(base)))
    assert a.containers == whole.containers and a.limits == whole.limits
    assert later._made is not None and b._details._apps() is later._made  # type: ignore[attr-defined]
    with_env = copy.deepcopy(base)
    with_env["metadata"]["name"] = "replica-env"
    with_env["spec"]["containers"][0]["env"] = [{"name": "A", "value": "1"}]
    found = _through_fields(with_env)
    assert found is not None
    pod = pods_fast.parse_pod(found)
    assert type(pod._details._app) is list  # type: ignore[attr-defined]
    assert pod.containers[0].env == {"A": "1"}


@pytest.mark.parametrize(
    ("where", "name"),
    [("spec", n) for n in fields.POD_TEXT_FIELDS]
    + [(part, n) for part in ("containers", "initContainers") for n in fields.CONTAINER_TEXT_FIELDS],
)
def test_each_part_kept_as_text_is_in_the_template_s_key(where: str, name: str) -> None:
    """`pods_fast._text_key` names the parts one by one: every part kept as text is in the key (two pods
    that differ in it alone never share a template), and one that is a value is not keyed by text."""
    container = {"name": "c", "image": "i", "resources": msgspec.Raw(b'{"limits":{}}')}
    spec: dict[str, Any] = {"containers": [dict(container)], "initContainers": [dict(container)]}
    holder = spec if where == "spec" else spec[where][0]
    keys = set()
    for text in (b"[]", b"{}", b'{"a":1}'):
        holder[name] = msgspec.Raw(text)
        keys.add(pods_fast._text_key(spec, spec["containers"], spec["initContainers"]))
    holder.pop(name)
    keys.add(pods_fast._text_key(spec, spec["containers"], spec["initContainers"]))
    assert None not in keys and len(keys) == 4
    holder[name] = {"a": 1}
    assert pods_fast._text_key(spec, spec["containers"], spec["initContainers"]) is None


CLAIMS = [o for o in OBJECTS if o["kind"] == "NodeClaim"]
CLAIM_PATHS = [
    ("spec",),
    ("spec", "requirements"),
    ("spec", "requirements", 0),
    ("spec", "requirements", 0, "key"),
    ("spec", "requirements", 0, "values"),
    ("spec", "taints"),
    ("spec", "startupTaints"),
    ("spec", "nodeClassRef"),
    ("spec", "expireAfter"),
    ("status",),
    ("status", "conditions"),
    ("status", "conditions", 0),
    ("status", "conditions", 0, "lastTransitionTime"),
    ("status", "conditions", 0, "status"),
    ("status", "capacity"),
    ("status", "capacity", "cpu"),
    ("status", "allocatable"),
    ("status", "allocatable", "memory"),
    ("status", "lastPodEventTime"),
    ("metadata", "labels"),
    ("metadata", "generateName"),
    ("metadata", "finalizers"),
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(CLAIMS))),
    st.lists(st.tuples(st.sampled_from(CLAIM_PATHS), VALUES), min_size=1, max_size=3),
)
def test_broken_claims_read_alike_from_the_fields_kept(
    index: int, changes: list[tuple[tuple[str, ...], Any]]
) -> None:
    """A NodeClaim keeps its requirements, taints, capacity and conditions as text, read once per distinct text: with
    any field replaced by any JSON value, each read twice (the second from the memo), it reads as the whole
    claim does, error for error."""
    obj = copy.deepcopy(CLAIMS[index])
    for path, value in changes:
        _replace(obj, path, value)
    try:
        whole = orjson.loads(orjson.dumps(obj))
    except TypeError:  # an index set as a key of what became a dict: no JSON holds that
        assume(False)
    for _ in range(2):
        slim = _through_fields(whole)
        if slim is not None:
            assert _read(slim) == _read(whole)


def test_a_claims_parts_are_kept_as_text_and_never_kept() -> None:
    """What a claim parsed from a List keeps holds no text (a `msgspec.Raw` would keep the input's bytes
    alive), and its spec, labels and conditions are read once for the claims that share them: their
    requirements, taints, labels and conditions are the same objects, their requests each claim's own dict."""
    claim = next(c for c in CLAIMS if c["spec"].get("requirements") and c.get("status", {}).get("conditions"))
    first = _through_fields(claim)
    assert first is not None
    assert isinstance(first["spec"], msgspec.Raw)
    assert isinstance(first["status"]["conditions"], msgspec.Raw)
    assert isinstance(first["status"]["capacity"], msgspec.Raw)
    other = copy.deepcopy(claim)
    other["metadata"]["name"] = "claim-2"
    second = _through_fields(other)
    assert second is not None
    a, b = parse_object(first), parse_object(second)
    assert isinstance(a, NodeClaim) and isinstance(b, NodeClaim)
    assert a.requirements is b.requirements and a.conditions is b.conditions and a.taints is b.taints
    assert a.requested == b.requested and a.requested is not b.requested
    assert a.capacity and a.capacity == b.capacity and a.capacity is not b.capacity  # each claim's own dict
    assert a.allocatable == b.allocatable and a.allocatable is not b.allocatable
    assert isinstance(first["metadata"]["labels"], msgspec.Raw) and a.meta.labels is b.meta.labels
    assert not _texts_in(a, set()) and not _texts_in(b, set())
    assert _read(first) == _read(orjson.loads(orjson.dumps(claim)))
    moved = copy.deepcopy(claim)  # another spec: read for itself
    moved["spec"]["requirements"] = [*claim["spec"]["requirements"], {"key": "x", "operator": "Exists"}]
    third = _through_fields(moved)
    assert third is not None
    c = parse_object(third)
    assert isinstance(c, NodeClaim) and c.requirements is not a.requirements
    assert c.requirements[-1] == {"key": "x", "operator": "Exists"}
