"""kube-scheduler `FailedScheduling` messages (`FitError.Error()`).

Shape: `0/N nodes are available: <count> <reason>, <count> <reason>.` then, optionally, PostFilter text:
the DynamicResources `no new claims to deallocate, ` and/or DefaultPreemption
`preemption: 0/N nodes are available: ...`. Those tails are not reasons and are kept apart. When a PreFilter
plugin fails, the body is one message without counts; it is kept as one reason with `count=None`.
"""

from __future__ import annotations

import re

import msgspec

from kubectl_gpu.core.evidence._text import strip_sentence
from kubectl_gpu.core.evidence.model import Code, Finding, Preemption, ResourceFinding, TaintFinding
from kubectl_gpu.core.lazy_pattern import lazy_pattern

_HEADER = lazy_pattern(r"^\s*(?P<available>\d{1,9})/(?P<total>\d{1,9}) nodes are available\b:?\s*", re.DOTALL)
_POSTFILTER_MARKERS = ("no new claims to deallocate", "preemption: ")
# Any other PostFilter plugin message that is itself a FitError: `. <plugin text>: 0/N nodes are available`.
_GENERIC_POSTFILTER = lazy_pattern(r"\.\s+(?=[^.:]*: \d{1,9}/\d{1,9} nodes are available)")
_ENTRY = lazy_pattern(r"(?P<count>\d{1,9}) (?P<reason>.+?)(?=, \d{1,9} |\Z)", re.DOTALL)
_PREEMPTION = lazy_pattern(
    r"preemption: (?P<total_available>\d{1,9})/(?P<total>\d{1,9}) nodes are available:?\s*(?P<body>.*)$",
    re.DOTALL,
)

_TAINT_FORMS = (
    # k8s ~1.25 .. 1.34 early: node(s) had untolerated taint {key: value}
    lazy_pattern(r"^node\(s\) had untolerated taint \{(?P<key>[^:{}]*): ?(?P<value>[^{}]*)\}$"),
    # <= ~1.24: node(s) had taint {key: value}, that the pod didn't tolerate
    lazy_pattern(
        r"^node\(s\) had taint \{(?P<key>[^:{}]*): ?(?P<value>[^{}]*)\}, that the pod didn't tolerate$"
    ),
    # after kubernetes#134740 (1.34 cherry-pick, 1.35+), and the pre-1.18 predicate text: no key
    lazy_pattern(r"^node\(s\) had (?:untolerated taint\(s\)|taints that the pod didn't tolerate)$"),
)
_INSUFFICIENT = lazy_pattern(r"^Insufficient (?P<resource>\S+)$")
_CLASSES: tuple[tuple[re.Pattern[str], Code], ...] = (
    (
        lazy_pattern(r"^node\(s\) didn't match (?:Pod's node affinity(?:/selector)?|node selector)$"),
        Code.NODE_AFFINITY,
    ),
    (lazy_pattern(r"^node\(s\) were unschedulable$"), Code.UNSCHEDULABLE),
    # pre-1.19 `node(s) didn't match pod affinity/anti-affinity` names the pod's own (anti-)affinity terms
    (lazy_pattern(r"pod affinity/anti-affinity", re.IGNORECASE), Code.POD_AFFINITY),
    (lazy_pattern(r"anti-affinity", re.IGNORECASE), Code.POD_ANTI_AFFINITY),
    (lazy_pattern(r"pod affinity", re.IGNORECASE), Code.POD_AFFINITY),
    (lazy_pattern(r"topology spread", re.IGNORECASE), Code.TOPOLOGY_SPREAD),
    (lazy_pattern(r"^node\(s\) had unknown conditions$"), Code.UNKNOWN_CONDITION),
    (
        lazy_pattern(
            r"^node\(s\) (?:had (?:disk|memory|pid) pressure|were not ready|were out of disk space|had "
            r"network unavailable)$"
        ),
        Code.NODE_CONDITION,
    ),
    (lazy_pattern(r"volume|persistentvolume|\bpvc|\bpv\(s\)|storage", re.IGNORECASE), Code.VOLUME),
    (lazy_pattern(r"claim|dynamic resource|deviceclass|\bdevices?\b", re.IGNORECASE), Code.DRA),
)


class FitError(msgspec.Struct, frozen=True):
    """A parsed `0/N nodes are available` message."""

    total_nodes: int
    parts: tuple[Finding, ...]
    postfilter: str | None
    preemption: Preemption | None


def parse_fit_error(message: str) -> FitError | None:
    """Parse a kube-scheduler FitError text; None when the text does not start with the FitError header."""
    header = _HEADER.match(message)
    if header is None:
        return None
    rest = message[header.end() :].strip()
    body, postfilter = _split_postfilter(rest)
    preemption = _preemption(postfilter) if postfilter else None
    return FitError(int(header.group("total")), _reasons(strip_sentence(body)), postfilter, preemption)


def classify_reason(reason: str, count: int | None) -> Finding:
    """One kube-scheduler reason (`node(s) had untolerated taint {k: v}`, `Insufficient cpu`, ...)."""
    for form in _TAINT_FORMS:
        if (match := form.match(reason)) is not None:
            groups = match.groupdict()
            key = groups.get("key")
            return TaintFinding(
                code=Code.UNTOLERATED_TAINT,
                text=reason,
                count=count,
                key=key.strip() if key is not None else None,
                value=(groups.get("value") or "").strip() if key is not None else None,
            )
    if (match := _INSUFFICIENT.match(reason)) is not None:
        return ResourceFinding(
            code=Code.INSUFFICIENT_RESOURCE, text=reason, count=count, resource=match.group("resource")
        )
    if reason == "Too many pods":
        return ResourceFinding(code=Code.INSUFFICIENT_RESOURCE, text=reason, count=count, resource="pods")
    for pattern, code in _CLASSES:
        if pattern.search(reason):
            return Finding(code=code, text=reason, count=count)
    return Finding(code=Code.OTHER, text=reason, count=count)


def _split_postfilter(rest: str) -> tuple[str, str | None]:
    starts = [index for marker in _POSTFILTER_MARKERS if (index := rest.find(marker)) >= 0]
    if starts:
        cut = min(starts)
        return rest[:cut], rest[cut:].strip() or None
    match = _GENERIC_POSTFILTER.search(rest)
    if match is not None:
        return rest[: match.start()], rest[match.end() :].strip() or None
    return rest, None


def _reasons(body: str) -> tuple[Finding, ...]:
    if not body:
        return ()
    if not body[0].isdigit():
        return (classify_reason(body, None),)  # PreFilter message: no histogram
    return tuple(classify_reason(reason, count) for count, reason in _histogram(body))


def _histogram(body: str) -> list[tuple[int | None, str]]:
    entries: list[tuple[int | None, str]] = []
    position = 0
    while position < len(body):
        match = _ENTRY.match(body, position)
        if match is None:  # something that is not `<count> <reason>`: keep the rest as one reason
            entries.append((None, body[position:].strip()))
            break
        entries.append((int(match.group("count")), match.group("reason").strip()))
        position = match.end()
        if body.startswith(", ", position):
            position += 2
    return entries


def _preemption(postfilter: str) -> Preemption | None:
    start = postfilter.find("preemption: ")
    if start < 0:
        return None
    text = postfilter[start:].strip()
    match = _PREEMPTION.match(text)
    if match is None:
        return Preemption(text=text, total_nodes=None, reasons=())
    reasons = tuple(
        (count, reason)
        for count, reason in _histogram(strip_sentence(match.group("body")))
        if count is not None
    )
    return Preemption(text=text, total_nodes=int(match.group("total")), reasons=reasons)
