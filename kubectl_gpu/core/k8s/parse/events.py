"""Events, core/v1 and events.k8s.io/v1 alike."""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.k8s.models import Event, InvolvedObject, Meta, Raw
from kubectl_gpu.core.k8s.parse.common import as_dict, meta, opt_str
from kubectl_gpu.core.k8s.parse.fast import constructor, fast_meta
from kubectl_gpu.core.k8s.parse.fast import memo_time as opt_time  # `opt_time`, once per distinct text

__all__ = ["parse_event"]


def _object(value: object, m: Meta, field: str) -> dict[str, Any]:
    """`as_dict(value, ...)`, the error's words built only for an error (an event cluster has thousands)."""
    if value is None:
        return {}
    return value if type(value) is dict else as_dict(value, f"Event {m.key} {field}")


def parse_event(obj: Raw) -> Event:
    get = obj.get  # an incident's snapshot holds tens of thousands of events: every lookup counts
    m = fast_meta(get("metadata"), namespaced=True) or meta(obj, "Event", namespaced=True)
    involved = _object(get("involvedObject") or get("regarding"), m, "involvedObject")
    source = _object(get("source"), m, "source")
    series = _object(get("series"), m, "series")
    component = (
        opt_str(get("reportingComponent"))
        or opt_str(get("reportingController"))
        or opt_str(source.get("component"))
    )
    last = (
        opt_time(get("lastTimestamp"))
        or opt_time(series.get("lastObservedTime"))
        or opt_time(get("eventTime"))
        or m.created
    )
    first = opt_time(get("firstTimestamp")) or opt_time(get("eventTime")) or last
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
