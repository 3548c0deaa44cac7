"""Pods: effective requests and limits, tolerations, node constraints, containers, and the status fields
the analyses read."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from operator import itemgetter
from sys import intern
from typing import Any

from kubectl_gpu.core.k8s.models import Container, ContainerPort, ContainerState, Meta, Pod, Raw, Resources
from kubectl_gpu.core.k8s.parse.common import (
    ModelError,
    as_dict,
    as_list,
    meta,
    opt_int,
    opt_str,
    opt_time,
    resources,
    str_map,
    tolerations,
)
from kubectl_gpu.core.k8s.parse.placement import parse_placement
from kubectl_gpu.core.scheduling.affinity import NodeAffinity

__all__ = [
    "APP_KEYS",
    "INIT_KEYS",
    "SlimDetails",
    "effective",
    "parse_pod_checked",
    "selectable",
    "slim",
    "slim_status",
]


def _add(total: Resources, extra: Mapping[str, Decimal]) -> None:
    for name, value in extra.items():
        total[name] = total.get(name, Decimal(0)) + value


def _container_resources(res: Mapping[str, Any], field: str, where: str) -> Resources:
    """One container's `field`, with the API server's default applied to requests (`SetDefaults_Pod`,
    pkg/apis/core/v1/defaults.go): a resource with a limit and no request requests its limit. Objects from
    the API server have it already; manifests and partial snapshots may not."""
    out = resources(res.get(field), f"{where}.{field}")
    if field == "requests":
        try:
            limits = resources(res.get("limits"), f"{where}.limits")
        except ModelError:  # limits are only shown: a broken one does not refuse the pod
            limits = {}
        for name, value in limits.items():
            out.setdefault(name, value)
    return out


def effective(
    containers: list[Any], init: list[Any], overhead: Resources, where: str, field: str
) -> Resources:
    """Kubernetes' effective pod request (`resourcehelper.PodRequests`).

    max(app containers + restartable init containers (sidecars), the peak of the init sequence) + overhead,
    where each plain init container runs alongside the sidecars started before it.
    """
    total: Resources = {}
    for index, container in enumerate(containers):
        res = as_dict(as_dict(container, f"{where} container").get("resources"), f"{where} resources")
        _add(total, _container_resources(res, field, f"{where} containers[{index}].resources"))
    if init:
        sidecars: Resources = {}
        peak: Resources = {}
        for index, container in enumerate(init):
            body = as_dict(container, f"{where} initContainer")
            res = _container_resources(
                as_dict(body.get("resources"), f"{where} resources"),
                field,
                f"{where} initContainers[{index}].resources",
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


def _limits(containers: list[Any], init: list[Any], where: str) -> Resources:
    """Effective limits, computed like requests (without the overhead); {} when one does not parse: limits
    are only ever shown."""
    try:
        return effective(containers, init, {}, where, "limits")
    except ModelError:
        return {}


def _env(value: object) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    if not isinstance(value, list):
        return env
    for item in value:
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if not isinstance(name, str) or name in env:
            continue
        text = item.get("value")
        env[name] = str(text) if text is not None else (None if "valueFrom" in item else "")
    return env


def _resource_names(value: object) -> frozenset[str]:
    if not isinstance(value, dict):
        return frozenset()
    names: list[str] = []
    for kind in ("requests", "limits"):
        listed = value.get(kind)
        if isinstance(listed, dict):
            names.extend(str(name) for name in listed)
    return frozenset(names)


def _ports(value: object) -> tuple[ContainerPort, ...]:
    if not isinstance(value, list):
        return ()
    ports = []
    for item in value:
        number = item.get("containerPort") if isinstance(item, dict) else None
        if type(number) is int and 0 < number < 65536:
            name = item.get("name")
            ports.append(ContainerPort(number, name if isinstance(name, str) and name else None))
    return tuple(ports)


def _containers(items: list[Any]) -> tuple[Container, ...]:
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        out.append(
            Container(
                name=name if isinstance(name, str) else None,
                image=opt_str(item.get("image")),
                env=_env(item.get("env")),
                resource_names=_resource_names(item.get("resources")),
                ports=_ports(item.get("ports")),
            )
        )
    return tuple(out)


def _count(value: object) -> int:
    """A status counter (restartCount); anything but a whole number reads as 0, as the status is lenient."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _container_state(item: Raw, init: bool, where: str) -> ContainerState:
    state = as_dict(item.get("state"), f"{where} state")
    kind = next(iter(state), "unknown") if state else "unknown"
    found = state.get(kind)
    detail: Raw = found if isinstance(found, dict) else {}
    terminated = state.get("terminated")
    return ContainerState(
        name=str(item.get("name", "")),
        ready=bool(item.get("ready", False)),
        state=kind,
        reason=opt_str(detail.get("reason")),
        message=opt_str(detail.get("message")),
        restart_count=_count(item.get("restartCount")),
        init=init,
        finished_at=opt_time(terminated.get("finishedAt")) if isinstance(terminated, dict) else None,
    )


def _container_states(status: Raw, where: str) -> tuple[ContainerState, ...]:
    """Init then app container statuses; () when the status does not parse (see `Pod.container_statuses`)."""
    try:
        return tuple(
            _container_state(item, init, where)
            for key, init in (("initContainerStatuses", True), ("containerStatuses", False))
            for item in as_list(status.get(key), f"{where} status.{key}")
            if isinstance(item, dict)
        )
    except ModelError:
        return ()


# What `SlimDetails` reads of each entry (and so all it keeps of the pod): `_limits` reads `resources` of both
# kinds of container and `restartPolicy` of init containers, `_containers` the app containers' `name`,
# `image`, `env` and `resources`, `_container_state` a status's `name`, `ready`, `restartCount` and `state`.
APP_KEYS = ("name", "image", "env", "resources", "ports")
INIT_KEYS = ("resources", "restartPolicy")
_STATUS_KEYS = ("name", "ready", "restartCount", "state")
_STATUS_LISTS = ("initContainerStatuses", "containerStatuses")


def slim(items: list[Any], keys: tuple[str, ...]) -> list[Any]:
    """`items` with each object cut to `keys` (those it has), other entries as they are."""
    return [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else item for item in items]


_status_parts = itemgetter(*_STATUS_KEYS)


def _slim_statuses(items: list[Any]) -> list[Any]:
    """`slim(items, _STATUS_KEYS)`: an entry that has the four keys (every real one) is cut without the
    comprehension's per-key tests, in a third of the time (a pod has a status per container)."""
    out = []
    for item in items:
        if type(item) is dict:
            try:
                name, ready, restarts, state = _status_parts(item)
            except KeyError:
                out.append({k: item[k] for k in _STATUS_KEYS if k in item})
                continue
            out.append({"name": name, "ready": ready, "restartCount": restarts, "state": state})
        else:
            out.append({k: item[k] for k in _STATUS_KEYS if k in item} if isinstance(item, dict) else item)
    return out


def slim_status(status: Raw) -> Raw:
    """The container status lists of a pod's status, each entry cut to what `_container_state` reads; a
    value that is not a list stays as it is (it reads as no statuses, as before)."""
    out: Raw = {}
    for key in _STATUS_LISTS:
        value = status.get(key)
        if value is not None:
            out[key] = _slim_statuses(value) if isinstance(value, list) else value
    return out


class LaterContainers:
    """The cut-down app containers of the pods alike in their template and their containers' names and images
    (no variables): each container is its name, its image and its part of `texts` (the template's resources and
    ports, read). Made on first use, once for all those pods: few pods are asked for their containers, and a
    fleet of small Deployments has names and images of its own per one or two pods (parse/pods_fast.py)."""

    __slots__ = ("_made", "_pairs", "_texts")

    def __init__(self, pairs: tuple[tuple[str, str], ...], texts: list[Any]) -> None:
        self._pairs, self._texts = pairs, texts
        self._made: list[Any] | None = None

    def made(self) -> list[Any]:
        found = self._made
        if found is None:  # two threads may both make it: equal lists, either is kept
            found = self._made = [
                {"name": name, "image": image, **read}
                for (name, image), read in zip(self._pairs, self._texts, strict=True)
            ]
        return found


class SlimDetails:
    """`PodDetails`: each read from the pod's spec and status on first use, then kept.

    Until then it holds only the parts of the containers and statuses those readers look at (`slim`): a
    fleet's pods are most of a snapshot, and the rest of their specs and statuses (volume mounts, probes,
    commands, conditions, image IDs ...) would otherwise stay in memory for as long as the pods."""

    __slots__ = ("_app", "_containers", "_init", "_limits", "_meta", "_status", "_statuses")

    def __init__(
        self, containers: list[Any] | LaterContainers, init: list[Any], status: Raw, meta: Meta
    ) -> None:
        self._app, self._init, self._status, self._meta = containers, init, status, meta
        self._limits: Resources | None = None
        self._containers: tuple[Container, ...] | None = None
        self._statuses: tuple[ContainerState, ...] | None = None

    def _apps(self) -> list[Any]:
        """The app containers, cut down (`LaterContainers` made on first use)."""
        app = self._app
        return app.made() if type(app) is LaterContainers else app  # type: ignore[return-value]

    def _where(self) -> str:
        """The pod, as errors name it (built on use: most pods never need it)."""
        return f"Pod {self._meta.key}"

    def limits(self) -> Resources:
        if self._limits is None:
            self._limits = _limits(self._apps(), self._init, self._where())
        return self._limits

    def containers(self) -> tuple[Container, ...]:
        if self._containers is None:
            self._containers = _containers(self._apps())
        return self._containers

    def container_statuses(self) -> tuple[ContainerState, ...]:
        if self._statuses is None:
            self._statuses = _container_states(self._status, self._where())
        return self._statuses


def _text(value: object) -> str:
    """A selectable field's text: a string as it is (interned: a fleet's pods share a handful of values),
    anything else as the empty value Go's zero value reads as."""
    return intern(value) if type(value) is str else ""


def selectable(spec: Raw, status: Raw) -> tuple[str, str, bool, str]:
    """The API server's selectable pod fields the analyses do not read (`ToSelectableFields`,
    pkg/registry/core/pod/strategy.go), as the server reads them from a v1 pod (pkg/apis/core/v1): the
    restart policy (`Always` when unset, `SetDefaults_PodSpec`), the service account (the deprecated
    `serviceAccount` where `serviceAccountName` is empty), host networking, and the pod IP (the first of
    `status.podIPs`, else `status.podIP`). Read leniently, never an error: a value of the wrong type reads
    as unset. Both parsers read them here, so they read alike."""
    podips = status.get("podIPs")
    first = podips[0] if type(podips) is list and podips else None
    ip = first.get("ip") if type(first) is dict else status.get("podIP")
    return (
        _text(spec.get("restartPolicy")) or "Always",
        _text(spec.get("serviceAccountName")) or _text(spec.get("serviceAccount")),
        spec.get("hostNetwork") is True,
        ip if type(ip) is str else "",
    )


def parse_pod_checked(obj: Raw) -> Pod:
    """A pod, every field checked as it is read (errors name the field); `pod_fast` reads the usual shape."""
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
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and type(grace) is not int:  # a bool, a string: opt_int says what is wrong
        grace = opt_int(grace, f"{where} spec.terminationGracePeriodSeconds")
    restart, account, host_network, pod_ip = selectable(spec, status)
    return Pod(
        meta=m,
        node_name=opt_str(spec.get("nodeName")),
        phase=opt_str(status.get("phase")) or "Pending",
        scheduler_name=opt_str(spec.get("schedulerName")) or "default-scheduler",
        priority=opt_int(spec.get("priority"), f"{where} spec.priority"),
        requests=effective(containers, init, overhead, where, "requests"),
        tolerations=tolerations(spec.get("tolerations"), f"{where} spec.tolerations"),
        node_selector=str_map(spec.get("nodeSelector"), f"{where} spec.nodeSelector"),
        node_affinity=NodeAffinity.from_spec(spec),
        nominated_node_name=opt_str(status.get("nominatedNodeName")),
        resource_claims=claims,
        started=opt_time(status.get("startTime")),
        termination_grace_period_seconds=grace,
        scheduling_gates=tuple(
            str(g.get("name", ""))
            for g in as_list(spec.get("schedulingGates"), f"{where} spec.schedulingGates")
            if isinstance(g, dict)
        ),
        _details=SlimDetails(slim(containers, APP_KEYS), slim(init, INIT_KEYS), slim_status(status), m),
        placement=parse_placement(spec, m.name),
        restart_policy=restart,
        service_account_name=account,
        host_network=host_network,
        pod_ip=pod_ip,
    )
