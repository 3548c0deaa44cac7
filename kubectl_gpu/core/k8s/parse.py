"""The one place that knows the JSON shape of each Kubernetes kind: dict in, frozen model out.

Live and snapshot sources both hand us `kubectl get -o json`-shaped dicts, so both go through here and
behave identically. Unknown kinds give None (the caller counts them); a known kind with a broken required
field raises `ModelError` naming the object and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.models import (
    Budget,
    Condition,
    ContainerState,
    Device,
    Event,
    InvolvedObject,
    Meta,
    Node,
    NodeClaim,
    NodeClass,
    NodeClassRef,
    NodePool,
    Pod,
    Raw,
    Resources,
    ResourceSlice,
)
from kubectl_gpu.core.k8s.quantity import QuantityError, parse_quantity
from kubectl_gpu.core.k8s.times import TimeError, parse_optional_time, parse_time
from kubectl_gpu.core.scheduling.taints import Taint, Toleration

Model = Node | Pod | Event | NodePool | NodeClaim | NodeClass | ResourceSlice

__all__ = ["KINDS", "Model", "ModelError", "kind_of", "parse_object"]


class ModelError(InvalidInput):
    """A Kubernetes object of a kind we know, with a field we cannot read."""


# Timestamps outside this range are garbage (a hand-edited file); read them as absent, like malformed ones,
# since the analyses add expiry periods to them and datetime ends at year 9999.
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def _time(value: object) -> datetime | None:
    try:
        parsed = parse_optional_time(value)
    except OverflowError:  # an offset that pushes it past year 9999
        return None
    return parsed if parsed is not None and _EARLIEST <= parsed < _LATEST else None


def _time_text(value: object) -> str | None:
    """A timestamp kept as text (parsed on use): dropped, like `_time`, when out of range."""
    text = _opt_str(value)
    if text is None:
        return None
    try:
        parsed = parse_time(text)
    except TimeError:  # malformed: the reader treats it as absent
        return text
    except OverflowError:
        return None
    return text if _EARLIEST <= parsed < _LATEST else None


def _dict(value: object, where: str) -> Raw:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ModelError(f"{where} must be an object, got {type(value).__name__}")
    return value


def _list(value: object, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelError(f"{where} must be a list, got {type(value).__name__}")
    return value


def _str_map(value: object, where: str) -> dict[str, str]:
    mapping = _dict(value, where)
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise ModelError(f"{where}.{key} must be a string")
    return mapping


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(f"{where} must be an integer")
    return value


# The API server keeps quantities in an int64 of their canonical unit and refuses negative requests,
# capacities and limits; beyond these bounds a value is a hand-edited file, and JSON output and pricing
# arithmetic (28 significant digits) would fail on it.
_QUANTITY_MAX = Decimal(2**63 - 1)


def resources(value: object, where: str) -> Resources:
    """A ResourceList ({"cpu": "500m", "nvidia.com/gpu": "1"}) as exact Decimals."""
    mapping = _dict(value, where)
    out: Resources = {}
    for name, quantity in mapping.items():
        try:
            parsed = parse_quantity(quantity)
            in_range = parsed.is_finite() and 0 <= parsed <= _QUANTITY_MAX
        except QuantityError as exc:
            raise ModelError(f"{where}.{name}: {exc}") from None
        except (TypeError, ArithmeticError):  # unhashable, or NaN/inf from YAML's .nan/.inf
            raise ModelError(f"{where}.{name}: not a quantity: {quantity!r}") from None
        if not in_range:
            raise ModelError(f"{where}.{name}: quantity out of range: {quantity!r:.40}")
        out[name] = parsed
    return out


def meta(obj: Raw, kind: str, *, namespaced: bool = False) -> Meta:
    md = _dict(obj.get("metadata"), f"{kind}.metadata")
    name = md.get("name")
    if name is not None and not isinstance(name, str):
        raise ModelError(f"{kind} metadata.name must be a string, got {type(name).__name__}: {name!r:.40}")
    if not name:
        raise ModelError(f"{kind} without metadata.name")
    owner_kind = owner_name = None
    owners = md.get("ownerReferences")
    if isinstance(owners, list) and owners and isinstance(owners[0], dict):
        owner_kind = _opt_str(owners[0].get("kind"))
        owner_name = _opt_str(owners[0].get("name"))
    namespace = _opt_str(md.get("namespace"))
    return Meta(
        name=name,
        namespace=namespace if namespace or not namespaced else "default",
        uid=_opt_str(md.get("uid")),
        labels=_str_map(md.get("labels"), f"{kind} {name} labels"),
        annotations=_str_map(md.get("annotations"), f"{kind} {name} annotations"),
        created=_time(md.get("creationTimestamp")),
        owner_kind=owner_kind,
        owner_name=owner_name,
    )


def conditions(value: object, where: str) -> tuple[Condition, ...]:
    out = []
    for item in _list(value, where):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        out.append(
            Condition(
                type=item["type"],
                status=str(item.get("status", "Unknown")),
                reason=_opt_str(item.get("reason")),
                message=_opt_str(item.get("message")),
                last_transition_text=_time_text(item.get("lastTransitionTime")),
            )
        )
    return tuple(out)


def _taints(value: object, where: str) -> tuple[Taint, ...]:
    out = []
    for item in _list(value, where):
        if not isinstance(item, dict):
            raise ModelError(f"{where} entries must be objects")
        try:
            out.append(Taint.from_dict(item))
        except (ValueError, TypeError, KeyError) as exc:
            raise ModelError(f"{where}: {exc}") from None
    return tuple(out)


_TOLERATIONS: dict[tuple[tuple[str, Any], ...], Toleration] = {}


def _tolerations(value: object, where: str) -> tuple[Toleration, ...]:
    """Tolerations, interned: nearly every pod carries the same two defaults (not-ready, unreachable)."""
    out = []
    for item in _list(value, where):
        if not isinstance(item, dict):
            raise ModelError(f"{where} entries must be objects")
        try:
            key = tuple(sorted(item.items()))
            found = _TOLERATIONS.get(key)
        except TypeError:  # unhashable values: parse it, it will be rejected or kept as is
            key, found = None, None
        if found is None:
            try:
                found = Toleration.from_dict(item)
            except (ValueError, TypeError, KeyError) as exc:
                raise ModelError(f"{where}: {exc}") from None
            if key is not None and len(_TOLERATIONS) < 4096:
                _TOLERATIONS[key] = found
        out.append(found)
    return tuple(out)


def _node_class_ref(value: object) -> NodeClassRef | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    return NodeClassRef(
        group=str(value.get("group", "")), kind=str(value.get("kind", "")), name=value["name"]
    )


def parse_node(obj: Raw) -> Node:
    m = meta(obj, "Node")
    where = f"Node {m.name}"
    spec = _dict(obj.get("spec"), f"{where} spec")
    status = _dict(obj.get("status"), f"{where} status")
    info = _dict(status.get("nodeInfo"), f"{where} status.nodeInfo")
    return Node(
        meta=m,
        provider_id=_opt_str(spec.get("providerID")),
        unschedulable=bool(spec.get("unschedulable", False)),
        taints=_taints(spec.get("taints"), f"{where} spec.taints"),
        capacity=resources(status.get("capacity"), f"{where} status.capacity"),
        allocatable=resources(status.get("allocatable"), f"{where} status.allocatable"),
        conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
        os_image=_opt_str(info.get("osImage")),
        kernel_version=_opt_str(info.get("kernelVersion")),
        kubelet_version=_opt_str(info.get("kubeletVersion")),
        container_runtime=_opt_str(info.get("containerRuntimeVersion")),
        architecture=_opt_str(info.get("architecture")),
        raw=obj,
    )


def _add(total: Resources, extra: Mapping[str, Decimal]) -> None:
    for name, value in extra.items():
        total[name] = total.get(name, Decimal(0)) + value


def _effective(
    containers: list[Any], init: list[Any], overhead: Resources, where: str, field: str
) -> Resources:
    """Kubernetes' effective pod request (`resourcehelper.PodRequests`).

    max(app containers + restartable init containers (sidecars), the peak of the init sequence) + overhead,
    where each plain init container runs alongside the sidecars started before it.
    """
    total: Resources = {}
    for index, container in enumerate(containers):
        res = _dict(_dict(container, f"{where} container").get("resources"), f"{where} resources")
        _add(total, resources(res.get(field), f"{where} containers[{index}].resources.{field}"))
    if init:
        sidecars: Resources = {}
        peak: Resources = {}
        for index, container in enumerate(init):
            body = _dict(container, f"{where} initContainer")
            res = resources(
                _dict(body.get("resources"), f"{where} resources").get(field),
                f"{where} initContainers[{index}].resources.{field}",
            )
            if body.get("restartPolicy") == "Always":
                _add(sidecars, res)
                step = dict(sidecars)
            else:
                step = dict(sidecars)
                _add(step, res)
            for name, value in step.items():
                if value > peak.get(name, Decimal(0)):
                    peak[name] = value
        _add(total, sidecars)
        for name, value in peak.items():
            if value > total.get(name, Decimal(0)):
                total[name] = value
    _add(total, overhead)
    return total


def _count(value: object) -> int:
    """A status counter (restartCount); anything but a whole number reads as 0, as the status is lenient."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _container_states(status: Raw, where: str) -> tuple[ContainerState, ...]:
    out = []
    for key, init in (("initContainerStatuses", True), ("containerStatuses", False)):
        for item in _list(status.get(key), f"{where} status.{key}"):
            if not isinstance(item, dict):
                continue
            state = _dict(item.get("state"), f"{where} state")
            kind = next(iter(state), "unknown") if state else "unknown"
            found = state.get(kind)
            detail: Raw = found if isinstance(found, dict) else {}
            out.append(
                ContainerState(
                    name=str(item.get("name", "")),
                    ready=bool(item.get("ready", False)),
                    state=kind,
                    reason=_opt_str(detail.get("reason")),
                    message=_opt_str(detail.get("message")),
                    restart_count=_count(item.get("restartCount")),
                    init=init,
                )
            )
    return tuple(out)


def parse_pod(obj: Raw) -> Pod:
    m = meta(obj, "Pod", namespaced=True)
    where = f"Pod {m.key}"
    spec = _dict(obj.get("spec"), f"{where} spec")
    status = _dict(obj.get("status"), f"{where} status")
    containers = _list(spec.get("containers"), f"{where} spec.containers")
    init = _list(spec.get("initContainers"), f"{where} spec.initContainers")
    overhead = resources(spec.get("overhead"), f"{where} spec.overhead")
    claims = tuple(
        str(c.get("resourceClaimName") or c.get("resourceClaimTemplateName") or c.get("name", ""))
        for c in _list(spec.get("resourceClaims"), f"{where} spec.resourceClaims")
        if isinstance(c, dict)
    )
    return Pod(
        meta=m,
        node_name=_opt_str(spec.get("nodeName")),
        phase=_opt_str(status.get("phase")) or "Pending",
        scheduler_name=_opt_str(spec.get("schedulerName")) or "default-scheduler",
        priority=_int(spec.get("priority"), f"{where} spec.priority"),
        requests=_effective(containers, init, overhead, where, "requests"),
        tolerations=_tolerations(spec.get("tolerations"), f"{where} spec.tolerations"),
        node_selector=_str_map(spec.get("nodeSelector"), f"{where} spec.nodeSelector"),
        nominated_node_name=_opt_str(status.get("nominatedNodeName")),
        resource_claims=claims,
        started=_time(status.get("startTime")),
        raw=obj,
    )


def _spec_status(obj: Raw) -> tuple[Raw, Raw]:
    spec, status = obj.get("spec"), obj.get("status")
    return (spec if isinstance(spec, dict) else {}), (status if isinstance(status, dict) else {})


def pod_conditions(obj: Raw) -> tuple[Condition, ...]:
    """A pod's status conditions (lenient: read on use, see `Pod.conditions`)."""
    try:
        return conditions(_spec_status(obj)[1].get("conditions"), "status.conditions")
    except ModelError:
        return ()


def pod_container_states(obj: Raw) -> tuple[ContainerState, ...]:
    try:
        return _container_states(_spec_status(obj)[1], "Pod")
    except ModelError:
        return ()


def pod_limits(obj: Raw) -> Resources:
    spec = _spec_status(obj)[0]
    containers, init = spec.get("containers"), spec.get("initContainers")
    try:
        return _effective(
            containers if isinstance(containers, list) else [],
            init if isinstance(init, list) else [],
            {},
            "Pod",
            "limits",
        )
    except ModelError:
        return {}


def parse_event(obj: Raw) -> Event:
    m = meta(obj, "Event", namespaced=True)
    where = f"Event {m.key}"
    involved = _dict(obj.get("involvedObject") or obj.get("regarding"), f"{where} involvedObject")
    source = _dict(obj.get("source"), f"{where} source")
    series = _dict(obj.get("series"), f"{where} series")
    component = (
        _opt_str(obj.get("reportingComponent"))
        or _opt_str(obj.get("reportingController"))
        or _opt_str(source.get("component"))
    )
    last = (
        _time(obj.get("lastTimestamp"))
        or _time(series.get("lastObservedTime"))
        or _time(obj.get("eventTime"))
        or m.created
    )
    first = _time(obj.get("firstTimestamp")) or _time(obj.get("eventTime")) or last
    count = obj.get("count") or series.get("count") or 1
    return Event(
        meta=m,
        type=_opt_str(obj.get("type")),
        reason=str(obj.get("reason") or ""),
        message=str(obj.get("message") or obj.get("note") or ""),
        involved=InvolvedObject(
            kind=_opt_str(involved.get("kind")),
            namespace=_opt_str(involved.get("namespace")),
            name=_opt_str(involved.get("name")),
            uid=_opt_str(involved.get("uid")),
        ),
        component=component,
        count=count if isinstance(count, int) and count > 0 else 1,
        first_seen=first,
        last_seen=last,
        raw=obj,
    )


def _requirements(value: object, where: str) -> tuple[Raw, ...]:
    items = _list(value, where)
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise ModelError(f"{where} entries need a key")
    return tuple(items)


def parse_nodepool(obj: Raw) -> NodePool:
    m = meta(obj, "NodePool")
    where = f"NodePool {m.name}"
    spec = _dict(obj.get("spec"), f"{where} spec")
    template = _dict(spec.get("template"), f"{where} spec.template")
    tmeta = _dict(template.get("metadata"), f"{where} spec.template.metadata")
    tspec = _dict(template.get("spec"), f"{where} spec.template.spec")
    disruption = _dict(spec.get("disruption"), f"{where} spec.disruption")
    budgets = []
    for item in _list(disruption.get("budgets"), f"{where} spec.disruption.budgets"):
        if isinstance(item, dict):
            budgets.append(
                Budget(
                    nodes=str(item.get("nodes", "10%")),
                    schedule=_opt_str(item.get("schedule")),
                    duration=_opt_str(item.get("duration")),
                    reasons=tuple(str(r) for r in _list(item.get("reasons"), f"{where} budget reasons")),
                )
            )
    status = _dict(obj.get("status"), f"{where} status")
    return NodePool(
        meta=m,
        requirements=_requirements(tspec.get("requirements"), f"{where} spec.template.spec.requirements"),
        template_labels=_str_map(tmeta.get("labels"), f"{where} spec.template.metadata.labels"),
        taints=_taints(tspec.get("taints"), f"{where} spec.template.spec.taints"),
        startup_taints=_taints(tspec.get("startupTaints"), f"{where} spec.template.spec.startupTaints"),
        node_class_ref=_node_class_ref(tspec.get("nodeClassRef")),
        expire_after=_opt_str(tspec.get("expireAfter")),
        termination_grace_period=_opt_str(tspec.get("terminationGracePeriod")),
        consolidation_policy=_opt_str(disruption.get("consolidationPolicy")),
        consolidate_after=_opt_str(disruption.get("consolidateAfter")),
        budgets=tuple(budgets),
        limits=resources(spec.get("limits"), f"{where} spec.limits"),
        weight=_int(spec.get("weight"), f"{where} spec.weight"),
        replicas=_int(spec.get("replicas"), f"{where} spec.replicas"),
        conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
        status_resources=resources(status.get("resources"), f"{where} status.resources"),
        raw=obj,
    )


def parse_nodeclaim(obj: Raw) -> NodeClaim:
    m = meta(obj, "NodeClaim")
    where = f"NodeClaim {m.name}"
    spec = _dict(obj.get("spec"), f"{where} spec")
    status = _dict(obj.get("status"), f"{where} status")
    return NodeClaim(
        meta=m,
        node_pool=m.labels.get("karpenter.sh/nodepool"),
        node_class_ref=_node_class_ref(spec.get("nodeClassRef")),
        requirements=_requirements(spec.get("requirements"), f"{where} spec.requirements"),
        taints=_taints(spec.get("taints"), f"{where} spec.taints"),
        expire_after=_opt_str(spec.get("expireAfter")),
        termination_grace_period=_opt_str(spec.get("terminationGracePeriod")),
        requested=resources(_dict(spec.get("resources"), where).get("requests"), f"{where} spec.resources"),
        node_name=_opt_str(status.get("nodeName")),
        provider_id=_opt_str(status.get("providerID")),
        image_id=_opt_str(status.get("imageID")),
        capacity=resources(status.get("capacity"), f"{where} status.capacity"),
        allocatable=resources(status.get("allocatable"), f"{where} status.allocatable"),
        conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
        raw=obj,
    )


def _nodeclass(kind: str, group: str) -> Callable[[Raw], NodeClass]:
    def parse(obj: Raw) -> NodeClass:
        m = meta(obj, kind)
        where = f"{kind} {m.name}"
        spec = _dict(obj.get("spec"), f"{where} spec")
        size: Decimal | None = None
        eph = spec.get("ephemeralStorage")
        if isinstance(eph, dict) and eph.get("size") is not None:
            size = resources({"size": eph["size"]}, f"{where} spec.ephemeralStorage")["size"]
        status = _dict(obj.get("status"), f"{where} status")
        return NodeClass(
            meta=m,
            kind=kind,
            group=group,
            ephemeral_storage_size=size,
            instance_store_policy=_opt_str(spec.get("instanceStorePolicy")),
            conditions=conditions(status.get("conditions"), f"{where} status.conditions"),
            raw=obj,
        )

    return parse


def parse_resourceslice(obj: Raw) -> ResourceSlice:
    m = meta(obj, "ResourceSlice")
    where = f"ResourceSlice {m.name}"
    spec = _dict(obj.get("spec"), f"{where} spec")
    devices = []
    for item in _list(spec.get("devices"), f"{where} spec.devices"):
        if not isinstance(item, dict):
            continue
        # resource.k8s.io/v1beta1 nests attributes under "basic"; v1 and v1beta2 do not.
        basic = item.get("basic")
        body: Raw = basic if isinstance(basic, dict) else item
        capacity = {
            k: str(v.get("value", v)) if isinstance(v, dict) else str(v)
            for k, v in _dict(body.get("capacity"), f"{where} capacity").items()
        }
        devices.append(
            Device(
                name=str(item.get("name", "")),
                attributes=_dict(body.get("attributes"), f"{where} attributes"),
                capacity=capacity,
            )
        )
    pool = _dict(spec.get("pool"), f"{where} spec.pool")
    return ResourceSlice(
        meta=m,
        driver=str(spec.get("driver", "")),
        node_name=_opt_str(spec.get("nodeName")),
        pool=_opt_str(pool.get("name")),
        devices=tuple(devices),
        raw=obj,
    )


# (API group, kind) -> parser. The version is not part of the key: v1beta1 and v1 shapes differ only in
# fields we read defensively.
KINDS: dict[tuple[str, str], Callable[[Raw], Model]] = {
    ("", "Node"): parse_node,
    ("", "Pod"): parse_pod,
    ("", "Event"): parse_event,
    ("events.k8s.io", "Event"): parse_event,
    ("karpenter.sh", "NodePool"): parse_nodepool,
    ("karpenter.sh", "NodeClaim"): parse_nodeclaim,
    ("eks.amazonaws.com", "NodeClass"): _nodeclass("NodeClass", "eks.amazonaws.com"),
    ("karpenter.k8s.aws", "EC2NodeClass"): _nodeclass("EC2NodeClass", "karpenter.k8s.aws"),
    ("resource.k8s.io", "ResourceSlice"): parse_resourceslice,
}


def kind_of(obj: Raw) -> tuple[str, str]:
    """(API group, kind) of an object dict; group "" for the core API."""
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    return group, str(obj.get("kind", ""))


def parse_object(obj: Raw) -> Model | None:
    """Parse one object; None for kinds this tool does not analyse."""
    parser = KINDS.get(kind_of(obj))
    return parser(obj) if parser is not None else None


def parse_objects(objs: Iterable[Raw]) -> tuple[list[Model], int]:
    """Parse many objects; returns the models and how many were of kinds we skip."""
    models: list[Model] = []
    skipped = 0
    for obj in objs:
        model = parse_object(obj)
        if model is None:
            skipped += 1
        else:
            models.append(model)
    return models, skipped
