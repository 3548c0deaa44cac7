"""kubectl's --field-selector on the listed kind (nodes or pods), as the API server reads it.

Terms are separated by commas, each `field=value`, `field==value` or `field!=value` (a backslash escapes a
comma, `=` or `!`). The fields are exactly the API server's for the kind (the field label conversions of
pkg/apis/core/v1/conversion.go): nodes `metadata.name`, `spec.unschedulable`; pods `metadata.name`,
`metadata.namespace`, `spec.nodeName` (and its old name `spec.host`), `spec.restartPolicy`,
`spec.schedulerName`, `spec.serviceAccountName`, `spec.hostNetwork`, `status.phase`, `status.podIP`,
`status.podIPs`, `status.nominatedNodeName`. Each has the value the server matches (`ToSelectableFields`,
pkg/registry/core/pod/strategy.go): `status.podIP` is the first of the pod's IPs, and `status.podIPs`, which
the server accepts but never sets, is always empty there, so it is here. Another field is the API server's
`field label not supported: FIELD`. Applied to the objects read, live or from a --snapshot (every pod is
read, so that node figures count them all), so both select as the API server would.
"""

from __future__ import annotations

import re

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.models import Node, Pod
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["FieldTerm", "node_matches", "parse_field_selector", "pod_matches"]

FieldTerm = tuple[str, bool, str]  # field, equal (False: !=), value

_NODE_FIELDS = ("metadata.name", "spec.unschedulable")
_POD_FIELDS = (
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
)
_ALIASES = {"pods": {"spec.host": "spec.nodeName"}}  # the server's name for old v1 clients' field
_TERM = lazy_pattern(r"^((?:[^=!\\]|\\.)+?)(==|=|!=)((?:[^\\]|\\.)*)$")


def _split(text: str) -> list[str]:
    parts, current, escaped = [], "", False
    for char in text:
        if escaped:
            current, escaped = current + "\\" + char, False
        elif char == "\\":
            escaped = True
        elif char == ",":
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def parse_field_selector(text: str, kind: str) -> tuple[FieldTerm, ...]:
    """The terms of a field selector on `kind` ("nodes" or "pods"); InvalidInput (exit 2) as the API server
    would refuse it."""
    known = _NODE_FIELDS if kind == "nodes" else _POD_FIELDS
    terms = []
    for part in _split(text):
        if not part.strip():
            continue
        match = _TERM.match(part.strip())
        if match is None:
            raise InvalidInput(f"--field-selector: invalid selector: '{text}'; can't understand '{part}'")
        field, op, value = match[1], match[2], re.sub(r"\\(.)", r"\1", match[3])
        field = _ALIASES.get(kind, {}).get(field, field)
        if field not in known:
            raise InvalidInput(
                f"--field-selector: field label not supported: {field}", f"{kind} take {', '.join(known)}"
            )
        terms.append((field, op != "!=", value))
    return tuple(terms)


def _matches(terms: tuple[FieldTerm, ...], values: dict[str, str]) -> bool:
    return all((values.get(field, "") == value) == equal for field, equal, value in terms)


def node_matches(terms: tuple[FieldTerm, ...], node: Node) -> bool:
    values = {
        "metadata.name": node.meta.name,
        "spec.unschedulable": "true" if node.unschedulable else "false",
    }
    return _matches(terms, values)


def pod_matches(terms: tuple[FieldTerm, ...], pod: Pod) -> bool:
    values = {
        "metadata.name": pod.meta.name,
        "metadata.namespace": pod.meta.namespace or "",
        "spec.nodeName": pod.node_name or "",
        "spec.schedulerName": pod.scheduler_name,
        "spec.restartPolicy": pod.restart_policy,
        "spec.serviceAccountName": pod.service_account_name,
        "spec.hostNetwork": "true" if pod.host_network else "false",
        "status.phase": pod.phase,
        "status.podIP": pod.pod_ip,
        "status.nominatedNodeName": pod.nominated_node_name or "",
    }
    return _matches(terms, values)
