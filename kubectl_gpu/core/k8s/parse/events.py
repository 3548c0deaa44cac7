"""Events, core/v1 and events.k8s.io/v1 alike."""

from __future__ import annotations

from kubectl_gpu.core.k8s.models import Event, InvolvedObject, Raw
from kubectl_gpu.core.k8s.parse.common import as_dict, meta, opt_str, opt_time

__all__ = ["parse_event"]


def parse_event(obj: Raw) -> Event:
    m = meta(obj, "Event", namespaced=True)
    where = f"Event {m.key}"
    involved = as_dict(obj.get("involvedObject") or obj.get("regarding"), f"{where} involvedObject")
    source = as_dict(obj.get("source"), f"{where} source")
    series = as_dict(obj.get("series"), f"{where} series")
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
