"""A pod spec's host ports, topology spread constraints, required pod (anti-)affinity and claims (see
`core/k8s/placement.py`). Never raises: what does not parse is kept as `Placement.error`, so the checks that
need it are unknown for that one pod (the API server would have rejected it)."""

from __future__ import annotations

from typing import Any

from kubectl_gpu.core.k8s.models import Raw
from kubectl_gpu.core.k8s.placement import (
    NO_PLACEMENT,
    AffinityTerm,
    ClaimRef,
    HostPort,
    LabelSelector,
    Placement,
    SpreadConstraint,
)
from kubectl_gpu.core.k8s.selectors import Term

__all__ = ["interesting", "label_selector", "parse_placement"]

_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!exists"}


class _Bad(ValueError):
    pass


def _dict(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Bad(f"expected an object, got {type(value).__name__}")
    return value


def _list(value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Bad(f"expected a list, got {type(value).__name__}")
    return value


def label_selector(value: object) -> LabelSelector | None:
    """A `metav1.LabelSelector`; None for a nil one. Raises ValueError on an unknown operator."""
    if value is None:
        return None
    body = _dict(value)
    terms = [Term(str(k), "=", frozenset({str(v)})) for k, v in _dict(body.get("matchLabels")).items()]
    for expr in _list(body.get("matchExpressions")):
        expr = _dict(expr)
        op = _OPS.get(str(expr.get("operator")))
        if op is None:
            raise _Bad(f"label selector operator {expr.get('operator')!r}")
        terms.append(Term(str(expr.get("key", "")), op, frozenset(str(v) for v in _list(expr.get("values")))))
    return LabelSelector(tuple(terms))


def _port_containers(spec: Raw) -> list[Any]:
    """The containers whose host ports the pod holds (kube-scheduler `pkg/scheduler/util` `GetHostPorts`, which
    the NodePorts plugin reads for the pod and for the pods on a node): the restartable init containers
    (sidecars, `restartPolicy: Always`), which run as long as the pod, and the app containers."""
    sidecars = [c for c in _list(spec.get("initContainers")) if _dict(c).get("restartPolicy") == "Always"]
    return sidecars + _list(spec.get("containers"))


def _host_ports(spec: Raw) -> tuple[HostPort, ...]:
    out = []
    for container in _port_containers(spec):
        for port in _list(_dict(container).get("ports")):
            port = _dict(port)
            host = port.get("hostPort")
            if not host:
                continue
            if not isinstance(host, int) or isinstance(host, bool):
                raise _Bad(f"hostPort {host!r}")
            out.append(
                HostPort(str(port.get("hostIP") or "0.0.0.0"), host, str(port.get("protocol") or "TCP"))
            )
    return tuple(out)


def _spread(spec: Raw) -> tuple[SpreadConstraint, ...]:
    out = []
    for item in _list(spec.get("topologySpreadConstraints")):
        item = _dict(item)
        skew = item.get("maxSkew")
        if not isinstance(skew, int) or isinstance(skew, bool) or skew < 1:
            raise _Bad(f"topologySpreadConstraints maxSkew {skew!r}")
        min_domains = item.get("minDomains")
        out.append(
            SpreadConstraint(
                max_skew=skew,
                topology_key=str(item.get("topologyKey", "")),
                when_unsatisfiable=str(item.get("whenUnsatisfiable", "DoNotSchedule")),
                selector=label_selector(item.get("labelSelector")),
                min_domains=min_domains if isinstance(min_domains, int) else None,
                node_affinity_policy=str(item.get("nodeAffinityPolicy") or "Honor"),
                node_taints_policy=str(item.get("nodeTaintsPolicy") or "Ignore"),
            )
        )
    return tuple(out)


def _affinity(spec: Raw) -> tuple[AffinityTerm, ...]:
    affinity = _dict(spec.get("affinity"))
    out = []
    for field, anti in (("podAffinity", False), ("podAntiAffinity", True)):
        part = _dict(affinity.get(field))
        for term in _list(part.get("requiredDuringSchedulingIgnoredDuringExecution")):
            term = _dict(term)
            ns_selector = term.get("namespaceSelector")
            everywhere = isinstance(ns_selector, dict) and not ns_selector
            if ns_selector is not None and not everywhere:
                raise _Bad("a pod affinity namespaceSelector (namespaces are not read)")
            out.append(
                AffinityTerm(
                    anti=anti,
                    topology_key=str(term.get("topologyKey", "")),
                    selector=label_selector(term.get("labelSelector")),
                    namespaces=tuple(str(n) for n in _list(term.get("namespaces"))),
                    all_namespaces=everywhere,
                )
            )
    return tuple(out)


def _claims(spec: Raw, pod_name: str) -> tuple[ClaimRef, ...]:
    out = []
    for volume in _list(spec.get("volumes")):
        volume = _dict(volume)
        name = str(volume.get("name", ""))
        pvc = volume.get("persistentVolumeClaim")
        if isinstance(pvc, dict) and pvc.get("claimName"):
            out.append(ClaimRef(name, str(pvc["claimName"])))
        elif volume.get("ephemeral") is not None:
            out.append(ClaimRef(name, f"{pod_name}-{name}", ephemeral=True))
    return tuple(out)


def interesting(spec: Raw) -> bool:
    """Whether the spec has anything `Placement` keeps: most pods have volumes (the service account token)
    and container ports, but no claim and no host port, and are answered here without building anything."""
    try:
        if spec.get("topologySpreadConstraints"):
            return True
        affinity = spec.get("affinity")
        if isinstance(affinity, dict) and (affinity.get("podAffinity") or affinity.get("podAntiAffinity")):
            return True
        for volume in spec.get("volumes") or ():
            if isinstance(volume, dict) and ("persistentVolumeClaim" in volume or "ephemeral" in volume):
                return True
        sidecars = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
        for container in [*sidecars, *(spec.get("containers") or ())]:
            if isinstance(container, dict):
                for port in container.get("ports") or ():
                    if isinstance(port, dict) and port.get("hostPort"):
                        return True
    except (TypeError, AttributeError):  # not lists: the full read says what is wrong
        return True
    return False


def parse_placement(spec: Raw, pod_name: str) -> Placement:
    if not interesting(spec):
        return NO_PLACEMENT
    parts: dict[str, Any] = {}
    errors = []
    for name, read in (
        ("host_ports", lambda: _host_ports(spec)),
        ("spread", lambda: _spread(spec)),
        ("affinity", lambda: _affinity(spec)),
        ("claims", lambda: _claims(spec, pod_name)),
    ):
        try:
            parts[name] = read()
        except _Bad as exc:
            errors.append(str(exc))
    placement = Placement(**parts, error="; ".join(errors) or None)
    return placement if placement else NO_PLACEMENT
