"""What a debug pod is called and labelled: an RFC 1123 name whatever the node is called, and the labels
and annotations `cleanup` finds it by."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = [
    "CONTAINER",
    "DEBUG_POD_SELECTOR",
    "MANAGED_BY",
    "MANAGED_BY_LABEL",
    "MODE_LABEL",
    "NAME_MAX",
    "NAME_PREFIX",
    "NODE_ANNOTATION",
    "NODE_LABEL",
    "STRATEGY_ANNOTATION",
    "SUFFIX_ALPHABET",
    "SUFFIX_LENGTH",
    "node_label_value",
    "not_our_pod",
    "pod_name",
]

CONTAINER = "debugger"  # kubectl debug's container name, so `kubectl logs`/`exec` habits carry over
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "kubectl-gpu"
NODE_LABEL = "kubectl-gpu/node"
MODE_LABEL = "kubectl-gpu/mode"
NODE_ANNOTATION = "kubectl-gpu/node"  # the full node name; the label value may be shortened
STRATEGY_ANNOTATION = "kubectl-gpu/strategy"
DEBUG_POD_SELECTOR = f"{MANAGED_BY_LABEL}={MANAGED_BY}"
NAME_PREFIX = "gpu-debug-"
SUFFIX_LENGTH = 5
#: What the API server's generateName draws from (no vowels: no accidental words).
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NAME_MAX = 63

_LABEL_VALUE_RE = lazy_pattern(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def pod_name(node: str, suffix: str) -> str:
    """`gpu-debug-<node>-<suffix>`: an RFC 1123 label (≤ 63 chars) whatever the node is called."""
    if not re.fullmatch(r"[a-z0-9]{1,10}", suffix):
        raise ValueError(f"name suffix must be 1-10 lower-case letters or digits, got {suffix!r}")
    room = NAME_MAX - len(NAME_PREFIX) - 1 - len(suffix)
    middle = re.sub(r"[^a-z0-9-]+", "-", node.lower())[:room].strip("-") or "node"
    return f"{NAME_PREFIX}{middle}-{suffix}"


def node_label_value(node: str) -> str:
    """The node name as a label value; a name that is not one (too long) becomes a prefix plus a digest."""
    if len(node) <= 63 and _LABEL_VALUE_RE.match(node):
        return node
    head = re.sub(r"[^-A-Za-z0-9_.]+", "-", node)[:52].strip("-_.")
    return f"{head}-{_digest(node)}" if head else _digest(node)


_MODES = ("smi", "shell")
_STRATEGIES = ("privileged-all", "request")


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def not_our_pod(pod: Mapping[str, Any]) -> str | None:
    """Why `pod` is not a debug pod this tool made (None when it is one): `cleanup` deletes only pods of
    its full shape - the labels, the annotations, a name rebuilt from them, one `debugger` container on
    the annotated node - not any pod that merely carries the managed-by label."""
    meta = _mapping(pod.get("metadata"))
    labels, annotations = _mapping(meta.get("labels")), _mapping(meta.get("annotations"))
    name, node = meta.get("name"), annotations.get(NODE_ANNOTATION)
    if labels.get(MANAGED_BY_LABEL) != MANAGED_BY:
        return f"no label {DEBUG_POD_SELECTOR}"
    if labels.get(MODE_LABEL) not in _MODES:
        return f"label {MODE_LABEL} is not one of {', '.join(_MODES)}"
    if annotations.get(STRATEGY_ANNOTATION) not in _STRATEGIES:
        return f"annotation {STRATEGY_ANNOTATION} is not one of {', '.join(_STRATEGIES)}"
    if not isinstance(node, str) or not node or labels.get(NODE_LABEL) != node_label_value(node):
        return f"annotation {NODE_ANNOTATION} and label {NODE_LABEL} do not name the same node"
    suffix = name.rsplit("-", 1)[-1] if isinstance(name, str) else ""
    if len(suffix) != SUFFIX_LENGTH or set(suffix) - set(SUFFIX_ALPHABET) or name != pod_name(node, suffix):
        return f"its name is not {NAME_PREFIX}<node>-<suffix> for node {node}"
    spec = _mapping(pod.get("spec"))
    containers = spec.get("containers")
    if spec.get("nodeName") != node or not isinstance(containers, list) or len(containers) != 1:
        return f"it is not one container bound to node {node}"
    if _mapping(containers[0]).get("name") != CONTAINER:
        return f"its container is not named {CONTAINER}"
    return None
