"""The common case of an object, read without the checked path's per-field work.

A fleet's pods are most of a snapshot, and the checked readers (`common`) pay for every field: an f-string
naming the field for an error that almost never comes, a function call per type check, quantities parsed
one container at a time. Here the usual shapes are recognised with exact type tests, and what repeats from
pod to pod (a Deployment's requests, tolerations, creation times) is looked up once per distinct value:

* `fast_meta` and the memo helpers return None at the first thing they do not expect (a field of another
  type, a value that is not hashable, a quantity that does not parse); the caller then runs the checked
  path from the start, so an error, and its wording, is exactly the checked path's;
* a memo's value is what the checked reader returns for that input, and its key is the input itself (a
  timestamp's text, or the JSON text of the fields read, exact where Python's equality is not: `1 == 1.0
  == True`; see `pods._template` for NaN), so a hit is an input that reads the same. Each memo is bounded; past its size
  it is only read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

from kubectl_gpu.core.k8s.models import Condition, Meta, Resources
from kubectl_gpu.core.k8s.parse.common import EARLIEST, LATEST, conditions, opt_time, resources, time_text
from kubectl_gpu.core.k8s.parse.fields import Text, read_text

__all__ = [
    "constructor",
    "dumps",
    "fast_conditions",
    "fast_meta",
    "fast_time",
    "memo_json",
    "memo_labels",
    "memo_resources",
    "memo_text",
    "memo_time_text",
    "remember",
    "str_values",
]

_LIMIT = 65536
_T = TypeVar("_T")
_from_iso = datetime.fromisoformat
_RESOURCES: dict[tuple[tuple[str, str], ...], Resources] = {}
_RESOURCE_TEXTS: dict[bytes, Resources] = {}
#: The JSON text of a value, as a memo key; TypeError for what JSON cannot hold (bytes, big integers,
#: keys that are not strings). Faster than `repr` by a few microseconds a pod.
dumps = orjson.dumps


def constructor(cls: type[_T]) -> Callable[..., _T]:
    """A function that builds the msgspec Struct `cls` from every field, each named (keyword-only, none
    defaulted: a field added to `cls` fails every call until it is given, never silently), through the
    Struct's own `__init__` (C), which takes them by their place in `__struct_fields__` (a tenth of a pod's
    construction less than by name): `cls` must not be `kw_only` (such a Struct raises TypeError at the first
    build, never builds another object)."""
    struct_fields: tuple[str, ...] | None = getattr(cls, "__struct_fields__", None)
    if struct_fields is None:
        raise TypeError(f"{cls.__name__}: not a msgspec Struct")
    names = list(struct_fields)
    source = f"def build(*, {', '.join(names)}):\n    return _cls({', '.join(names)})\n"
    namespace: dict[str, Any] = {"_cls": cls}
    exec(source, namespace)  # straight-line code, no loop over the fields
    build: Callable[..., _T] = namespace["build"]
    return build


def remember(memo: dict[Any, _T], key: Any, value: _T) -> _T:
    """`value`, kept under `key` while the memo is under its size. A key that is `dumps`' text is kept as an
    exact-size copy: orjson's bytes are allocated ~4 KB whatever their length, and 12,575 pod templates kept
    that way held 49 MiB (tracemalloc, bench's `small` shape)."""
    if len(memo) < _LIMIT:
        memo[bytes(memoryview(key)) if type(key) is bytes else key] = value
    return value


def memo_json(memo: dict[bytes, _T], value: object, read: Callable[[], _T]) -> _T:
    """`read()`, a checked reader of `value` whose answer is immutable (a tuple of frozen models), once per
    distinct JSON text of `value` (exact where Python's equality is not); a `null` in it may be NaN or an
    infinity (JSON writes them so): then, and for what JSON cannot hold, `read()` itself."""
    try:
        key = dumps(value)
    except TypeError:
        return read()
    if b"null" in key:
        return read()
    found = memo.get(key)
    if found is None:
        found = remember(memo, key, read())
    return found


def memo_text(memo: dict[bytes, _T], value: object, read: Callable[[object], _T]) -> _T:
    """`read(value)`, once per distinct text of a part kept as text (`parse/fields.py`: a literal `null` in it
    is null), read as the whole parse reads it; any other value through `memo_json`."""
    if type(value) is not Text:
        return memo_json(memo, value, lambda: read(value))
    key = bytes(value)
    found = memo.get(key)
    if found is None:
        found = remember(memo, key, read(read_text(value)))
    return found


def str_values(mapping: dict[str, Any]) -> bool:
    """Whether every value is a `str` (what `common.str_map` accepts, as orjson hands it)."""
    for value in mapping.values():  # noqa: SIM110 (a loop: faster than all() over a generator)
        if type(value) is not str:
            return False
    return True


def _memo_text(cache: dict[str, _T], read: Callable[[object], _T], value: object) -> _T:
    """`read(value)`, once per distinct text in `cache` (anything but a str is read each time)."""
    if type(value) is not str:
        return read(value)
    found = cache.get(value, cache)
    if found is cache:
        return remember(cache, value, read(value))
    return found  # type: ignore[return-value]


def fast_time(value: object) -> datetime | None:
    """`common.opt_time` of the usual text (RFC 3339 in UTC, `...Z`, in range) read here, anything else by it:
    the same datetime, through one call to C's `fromisoformat` instead of the checked reader's four. Not a
    memo: a fleet's pods are created and started at mostly distinct seconds, and a hit cost as much as this."""
    if type(value) is str:
        try:
            parsed = _from_iso(value)
        except ValueError:
            return opt_time(value)
        if parsed.tzinfo is UTC and EARLIEST <= parsed < LATEST:
            return parsed
    return opt_time(value)


def memo_resources(value: object, where: Callable[[], str]) -> Resources:
    """`common.resources(value, where())`, a fresh dict each time, read once per distinct list where every
    quantity is a string (a node's capacity is its instance type's: thousands alike), or per distinct text of
    a list kept as text (`parse/fields.py`); `where` is called only to name the field in an error, which is
    the checked reader's own."""
    if value is None:  # absent (a claim in flight has no capacity yet): what `resources` reads it as
        return {}
    if type(value) is Text:
        read: Resources = memo_text(_RESOURCE_TEXTS, value, lambda text: resources(text, where()))
        return dict(read)
    if type(value) is not dict or not str_values(value):
        return resources(value, where())
    key = tuple(value.items())
    found = _RESOURCES.get(key)
    if found is None:
        found = remember(_RESOURCES, key, resources(value, where()))
    return dict(found)


def fast_meta(md: object, *, namespaced: bool, labels: dict[str, str] | None = None) -> Meta | None:
    """`common.meta` of an object's metadata in its usual shape; None for anything else. `labels`: its
    labels already read (`memo_labels`)."""
    if type(md) is not dict:
        return None
    get = md.get
    name = get("name")
    if type(name) is not str or not name:
        return None
    if labels is None:
        labels = get("labels")
        if labels is None:
            labels = {}
        elif type(labels) is not dict or not str_values(labels):
            return None
    annotations = get("annotations")
    if annotations is None:
        annotations = {}
    elif type(annotations) is not dict or not str_values(annotations):
        return None
    owner_kind = owner_name = None
    owners = get("ownerReferences")
    if owners and type(owners) is list and type(owners[0]) is dict:
        first = owners[0]
        owner_kind, owner_name = first.get("kind"), first.get("name")
        # `opt_str` of each, inline (as below): a function call is a tenth of this function's time
        owner_kind = owner_kind if isinstance(owner_kind, str) and owner_kind else None
        owner_name = owner_name if isinstance(owner_name, str) and owner_name else None
    namespace, uid = get("namespace"), get("uid")
    if not (isinstance(namespace, str) and namespace):
        namespace = "default" if namespaced else None
    return _meta(
        name=name,
        namespace=namespace,
        uid=uid if isinstance(uid, str) and uid else None,
        labels=labels,
        annotations=annotations,
        created=fast_time(get("creationTimestamp")),
        owner_kind=owner_kind,
        owner_name=owner_name,
        deleting=bool(get("deletionTimestamp")),
    )


_meta = constructor(Meta)
_condition = constructor(Condition)
_TIME_TEXTS: dict[str, str | None] = {}


_LABELS: dict[bytes, dict[str, str]] = {}


def memo_labels(text: Text) -> dict[str, str] | None:
    """Labels kept as their text read to the dict the whole parse gives, one dict for every object with
    that text (read-only, as every model field is); None where the text is not an object of strings."""
    key = bytes(text)
    found = _LABELS.get(key)
    if found is None:
        value = read_text(text)
        if type(value) is not dict or not str_values(value):
            return None
        found = remember(_LABELS, key, value)
    return found


def memo_time_text(value: object) -> str | None:
    """`common.time_text`, once per distinct text (conditions of nodes and claims share their times)."""
    return _memo_text(_TIME_TEXTS, time_text, value)


def fast_conditions(value: object, where: str) -> tuple[Condition, ...]:
    """`common.conditions`, each built without the frozen dataclass's `__init__` and its time checked once
    per distinct text: the same conditions."""
    if type(value) is not list:
        return conditions(value, where)
    out = []
    for item in value:
        if not isinstance(item, dict):
            continue
        get = item.get
        kind = get("type")
        if not isinstance(kind, str):
            continue
        reason, message = get("reason"), get("message")
        out.append(
            _condition(
                type=kind,
                status=str(get("status", "Unknown")),
                reason=reason if isinstance(reason, str) and reason else None,
                message=message if isinstance(message, str) and message else None,
                last_transition_text=memo_time_text(get("lastTransitionTime")),
            )
        )
    return tuple(out)
