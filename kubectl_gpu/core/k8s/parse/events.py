"""Events, core/v1 and events.k8s.io/v1 alike."""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.k8s.models import Event, InvolvedObject, Meta, Raw
from kubectl_gpu.core.k8s.parse.common import as_dict, meta, opt_str
from kubectl_gpu.core.k8s.parse.fast import fast_meta
from kubectl_gpu.core.k8s.parse.fast import memo_time as opt_time  # `opt_time`, once per distinct text

__all__ = ["parse_event"]


def _object(value: object, m: Meta, field: str) -> dict[str, Any]:
    """`as_dict(value, ...)`, the error's words built only for an error (an event cluster has thousands)."""
    if value is None:
        return {}
    return value if type(value) is dict else as_dict(value, f"Event {m.key} {field}")


def parse_event(obj: Raw) -> Event:
    m = fast_meta(obj.get("metadata"), namespaced=True) or meta(obj, "Event", namespaced=True)
    involved = _object(obj.get("involvedObject") or obj.get("regarding"), m, "involvedObject")
    source = _object(obj.get("source"), m, "source")
    series = _object(obj.get("series"), m, "series")
    component = (
        opt_str(obj.get("reportingComponent"))
        or opt_str(obj.get("reportingController"))
        or opt_str(source.get("component"))
    )
    last = (
        opt_time(obj.get("lastTimestamp"))
        or opt_time(series.get("lastObservedTime"))
        or opt_time(obj.get("eventTime"))
        or m.created
    )
    first = opt_time(obj.get("firstTimestamp")) or opt_time(obj.get("eventTime")) or last
    count = obj.get("count") or series.get("count") or 1
    return Event(
        meta=m,
        type=opt_str(obj.get("type")),
        reason=str(obj.get("reason") or ""),
        message=str(obj.get("message") or obj.get("note") or ""),
        involved=InvolvedObject(
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
