"""Events, core/v1 and events.k8s.io/v1 alike."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kubectl_gpu.core.k8s.models import Event, InvolvedObject, Meta, Raw
from kubectl_gpu.core.k8s.parse.common import as_dict, meta, opt_str
from kubectl_gpu.core.k8s.parse.fast import constructor, fast_meta
from kubectl_gpu.core.k8s.parse.fast import fast_time as opt_time  # `opt_time`, the usual text inline

__all__ = ["parse_event", "parse_event_checked"]


def _object(value: object, m: Meta, field: str) -> dict[str, Any]:
    """`as_dict(value, ...)`, the error's words built only for an error (an event cluster has thousands)."""
    if value is None:
        return {}
    return value if type(value) is dict else as_dict(value, f"Event {m.key} {field}")


def parse_event(obj: Raw) -> Event:
    """An Event from its `kubectl get -o json` dict: the usual shape through `_fast_event`, else checked."""
    found = _fast_event(obj)
    return found if found is not None else parse_event_checked(obj)


def _seen(
    get: Callable[[str], Any], series: Raw, created: datetime | None
) -> tuple[datetime | None, datetime | None]:
    """(first, last) seen: the core/v1 timestamps, else the series' and events.k8s.io's, else creation."""
    last = (
        opt_time(get("lastTimestamp"))
        or opt_time(series.get("lastObservedTime"))
        or opt_time(get("eventTime"))
        or created
    )
    return opt_time(get("firstTimestamp")) or opt_time(get("eventTime")) or last, last


def _fast_event(obj: Raw) -> Event | None:
    """`parse_event_checked` of an event whose metadata, involved object, source and series are in their
    usual shape (None for anything else), `opt_str` inline: a function call is a tenth of an event's time,
    and an incident's snapshot holds tens of thousands of events."""
    get = obj.get
    m = fast_meta(get("metadata"), namespaced=True)
    involved, source, series = get("involvedObject") or get("regarding"), get("source"), get("series")
    if (
        m is None
        or type(involved) is not dict
        or (source is not None and type(source) is not dict)
        or (series is not None and type(series) is not dict)
    ):
        return None
    source, series = source or {}, series or {}
    component = get("reportingComponent")
    if not (isinstance(component, str) and component):
        component = opt_str(get("reportingController")) or opt_str(source.get("component"))
    first, last = _seen(get, series, m.created)
    count = get("count") or series.get("count") or 1
    involved_get = involved.get
    kind, namespace = involved_get("kind"), involved_get("namespace")
    name, uid = involved_get("name"), involved_get("uid")
    event_type = get("type")
    return _event(
        meta=m,
        type=event_type if isinstance(event_type, str) and event_type else None,
        reason=str(get("reason") or ""),
        message=str(get("message") or get("note") or ""),
        involved=_involved(
            kind=kind if isinstance(kind, str) and kind else None,
            namespace=namespace if isinstance(namespace, str) and namespace else None,
            name=name if isinstance(name, str) and name else None,
            uid=uid if isinstance(uid, str) and uid else None,
        ),
        component=component,
        count=count if isinstance(count, int) and count > 0 else 1,
        first_seen=first,
        last_seen=last,
    )


def parse_event_checked(obj: Raw) -> Event:
    """An event, each field read through the checked helpers (the reference `_fast_event` is held to)."""
    get = obj.get
    m = fast_meta(get("metadata"), namespaced=True) or meta(obj, "Event", namespaced=True)
    involved = _object(get("involvedObject") or get("regarding"), m, "involvedObject")
    source = _object(get("source"), m, "source")
    series = _object(get("series"), m, "series")
    component = (
        opt_str(get("reportingComponent"))
        or opt_str(get("reportingController"))
        or opt_str(source.get("component"))
    )
    first, last = _seen(get, series, m.created)
    count = get("count") or series.get("count") or 1
    return _event(
        meta=m,
        type=opt_str(get("type")),
        reason=str(get("reason") or ""),
        message=str(get("message") or get("note") or ""),
        involved=_involved(
            kind=opt_str(involved.get("kind")),
            namespace=opt_str(involved.get("namespace")),
            name=opt_str(involved.get("name")),
            uid=opt_str(involved.get("uid")),
        ),
        component=component,
        count=count if isinstance(count, int) and count > 0 else 1,
        first_seen=first,
        last_seen=last,
    )


# Built without the frozen dataclasses' `__init__` (`fast.constructor`): the same objects.
_event = constructor(Event)
_involved = constructor(InvolvedObject)
