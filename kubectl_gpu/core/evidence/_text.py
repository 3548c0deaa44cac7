"""Small text helpers shared by the parsers: serrors key/value tails, NodePool references, taints."""

from __future__ import annotations

import re

from kubectl_gpu.core.lazy_pattern import lazy_pattern

# awslabs/operatorpkg serrors (Karpenter >= v1.5) renders `msg (Key=value, Key2=value2)`; wrapping an
# already-wrapped error appends a second group: `msg (label(s)=[a b]) (NodePool=gpu)`.
_KEY = r"[A-Za-z][\w./-]*(?:\(s\))?"
_KV_TAIL = lazy_pattern(rf"\s?\((?P<kvs>{_KEY}=[^()]*)\)\s*$")
_KV_SPLIT = lazy_pattern(rf", (?={_KEY}=)")
_MAX_KV_GROUPS = 4  # real messages nest two at most; the cap keeps hostile input linear

# `(NodePool=x)`, `nodepool "x"`, `nodepool: "x"`, `NodePool "x"`, pre-v1 `provisioner "x"`.
_NODEPOOL_REF = lazy_pattern(
    r"\bNodePool=(?P<kv>[^\s,()\[\]]+)|\b(?:nodepool|provisioner):? \"(?P<quoted>[^\"]*)\"", re.IGNORECASE
)

# pretty.Taint: `key:Effect` or `key=value:Effect` (v1.0 prints `key=:Effect` for an empty value).
_TAINT = lazy_pattern(r"^(?P<key>[^\s=:]+)(?:=(?P<value>[^\s:]*))?:(?P<effect>[A-Za-z]+)$")


def split_kv_tail(text: str) -> tuple[str, dict[str, str]]:
    """Strip trailing serrors groups. Returns the message and its keys (outermost group wins on clashes)."""
    values: dict[str, str] = {}
    body = text.rstrip()
    for _ in range(_MAX_KV_GROUPS):
        match = _KV_TAIL.search(body)
        if match is None:
            break
        for item in _KV_SPLIT.split(match.group("kvs")):
            key, _, value = item.partition("=")
            values.setdefault(key, value.strip().strip('"'))
        body = body[: match.start()].rstrip()
    return body, values


def kv_list(value: str) -> tuple[str, ...]:
    """`[a b]` (a Go slice printed with %v) or `a` -> ("a", "b") / ("a",)."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return tuple(item for item in value.replace(",", " ").split() if item)


def nodepool_in(text: str) -> str | None:
    """The first NodePool the text names, if any."""
    match = _NODEPOOL_REF.search(text)
    if match is None:
        return None
    return match.group("kv") or match.group("quoted")


def parse_taint(text: str) -> tuple[str, str, str] | None:
    """`nvidia.com/gpu=present:NoSchedule` -> (key, value, effect); value "" when absent or empty."""
    match = _TAINT.match(text.strip())
    if match is None:
        return None
    return match.group("key"), match.group("value") or "", match.group("effect")


def strip_sentence(text: str) -> str:
    """Drop a single trailing full stop and surrounding blanks."""
    text = text.strip()
    return text[:-1].rstrip() if text.endswith(".") else text
