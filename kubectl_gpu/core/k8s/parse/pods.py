"""Pods: effective requests, tolerations, node constraints, and the status fields the analyses read."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from kubectl_gpu.core.k8s.models import Condition, ContainerState, Pod, Raw, Resources
from kubectl_gpu.core.k8s.parse.common import (
    ModelError,
    as_dict,
    as_list,
    conditions,
    meta,
    opt_int,
    opt_str,
    opt_time,
    resources,
    str_map,
    tolerations,
)

__all__ = ["parse_pod", "pod_conditions", "pod_container_states", "pod_limits"]


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
        res = as_dict(as_dict(container, f"{where} container").get("resources"), f"{where} resources")
        _add(total, resources(res.get(field), f"{where} containers[{index}].resources.{field}"))
    if init:
        sidecars: Resources = {}
        peak: Resources = {}
        for index, container in enumerate(init):
            body = as_dict(container, f"{where} initContainer")
            res = resources(
                as_dict(body.get("resources"), f"{where} resources").get(field),
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
        for item in as_list(status.get(key), f"{where} status.{key}"):
            if not isinstance(item, dict):
                continue
            state = as_dict(item.get("state"), f"{where} state")
            kind = next(iter(state), "unknown") if state else "unknown"
            found = state.get(kind)
            detail: Raw = found if isinstance(found, dict) else {}
            out.append(
                ContainerState(
                    name=str(item.get("name", "")),
                    ready=bool(item.get("ready", False)),
                    state=kind,
                    reason=opt_str(detail.get("reason")),
                    message=opt_str(detail.get("message")),
                    restart_count=_count(item.get("restartCount")),
                    init=init,
                )
            )
    return tuple(out)


def parse_pod(obj: Raw) -> Pod:
    m = meta(obj, "Pod", namespaced=True)
    where = f"Pod {m.key}"
    spec = as_dict(obj.get("spec"), f"{where} spec")
    status = as_dict(obj.get("status"), f"{where} status")
    containers = as_list(spec.get("containers"), f"{where} spec.containers")
    init = as_list(spec.get("initContainers"), f"{where} spec.initContainers")
    overhead = resources(spec.get("overhead"), f"{where} spec.overhead")
    claims = tuple(
        str(c.get("resourceClaimName") or c.get("resourceClaimTemplateName") or c.get("name", ""))
        for c in as_list(spec.get("resourceClaims"), f"{where} spec.resourceClaims")
        if isinstance(c, dict)
    )
    return Pod(
        meta=m,
        node_name=opt_str(spec.get("nodeName")),
        phase=opt_str(status.get("phase")) or "Pending",
        scheduler_name=opt_str(spec.get("schedulerName")) or "default-scheduler",
        priority=opt_int(spec.get("priority"), f"{where} spec.priority"),
        requests=_effective(containers, init, overhead, where, "requests"),
        tolerations=tolerations(spec.get("tolerations"), f"{where} spec.tolerations"),
        node_selector=str_map(spec.get("nodeSelector"), f"{where} spec.nodeSelector"),
        nominated_node_name=opt_str(status.get("nominatedNodeName")),
        resource_claims=claims,
        started=opt_time(status.get("startTime")),
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
