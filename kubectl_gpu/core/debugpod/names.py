"""What a debug pod is called and labelled: an RFC 1123 name whatever the node is called, and the labels
and annotations `cleanup` finds it by."""

from __future__ import annotations

import hashlib
import re

__all__ = [
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
    "pod_name",
]

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

_LABEL_VALUE_RE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")


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
