"""Karpenter and EKS Auto Mode `FailedScheduling` messages: `Failed to schedule pod, <err>`.

`<err>` is a multierr (`"; "`-joined) of per-NodePool errors. Up to v1.4 each one is prefixed with
`incompatible with nodepool "x", daemonset overhead={...}, ` (the overhead is JSON and contains commas) and a
prefixed error may itself be a multierr, so clauses that follow a prefix without their own NodePool belong to
that NodePool. From v1.5 only limit and minValues errors name their NodePool, as a serrors tail
`(NodePool=x)`. Every message form handled here is listed in `karpenter_messages.json` (shared reference).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from kubectl_gpu.core.evidence._text import kv_list, nodepool_in, parse_taint, split_kv_tail
from kubectl_gpu.core.evidence.model import (
    Code,
    Finding,
    InstanceTypeFinding,
    LabelFinding,
    LimitFinding,
    MinValuesFinding,
    RequirementFinding,
    TaintFinding,
)
from kubectl_gpu.core.lazy_pattern import lazy_pattern

_ENVELOPE = lazy_pattern(r"^\s*(?:Failed to schedule pod|Could not schedule pod)[,:]\s*", re.IGNORECASE)
_MULTIERR = lazy_pattern(r";(?:\s+|$)")
_NODEPOOL_PREFIX = lazy_pattern(
    r"^incompatible with (?:nodepool|provisioner) \"(?P<nodepool>[^\"]*)\""
    r"(?:, daemonset overhead=(?P<overhead>\{[^{}]*\}))?"
    r"(?:, (?:…|\.\.\.))?"  # overhead elided in hand-copied reports (aws/karpenter-provider-aws#7574)
    r"(?:, (?P<rest>.*))?$",
    re.DOTALL,
)
_WRAPPERS: tuple[tuple[str, Code], ...] = (
    ("incompatible requirements, ", Code.REQUIREMENT_CONFLICT),
    ("incompatible volume requirements, ", Code.VOLUME),
    ("allocating dynamic resources, ", Code.DRA),
    ("incompatible dynamic resource requirements, ", Code.DRA),
)
_TAINT_SERRORS = lazy_pattern(r"^did not tolerate taint(?: \(|$)")  # not a taint whose key is `taint`
_TAINT_PRETTY = lazy_pattern(r"^did not tolerate (?P<taint>\S+)$")
_UNKNOWN_LABEL = lazy_pattern(
    r"^label \"(?P<label>[^\"]*)\" does not have known values(?: \(typo of \"(?P<typo>[^\"]*)\"\?\))?$"
)
_CONFLICT = lazy_pattern(r"^key (?P<key>\S+), (?P<pod>.+?) not in (?P<pool>.+)$", re.DOTALL)
_LIMITS = lazy_pattern(
    r"^(?:(?P<resources>all available instance types exceed limits for nodepool)"
    r"|(?P<nodes>node limits have been exhausted for nodepool))\b"
)
_MIN_VALUES_WRAPPER = lazy_pattern(
    r"^pod didn['’]t schedule because NodePool(?: \"(?P<nodepool>[^\"]*)\")? couldn['’]t meet minValues "
    r"requirements(?:, (?P<inner>.*))?$",
    re.DOTALL,
)
_QUOTED = lazy_pattern(r"\"([^\"]+)\"")
_MIN_VALUES_FOR = lazy_pattern(r"minValues requirement is not met for (?P<what>.*)$", re.DOTALL)
_SATISFIED = lazy_pattern(
    r"^no instance type satisfied resources (?P<resources>\{[^{}]*\}) and requirements "
)
_SUFFIX = lazy_pattern(
    r"^(?:, requirements=(?P<requirements>.*?))?(?:, resources=(?P<resources>.*?))?"
    r"(?: \((?P<hint>CPU request >= 1 Million, m vs M typo\?)\))?\s*$",
    re.DOTALL,
)
_TOPOLOGY = lazy_pattern(
    r"^unsatisfiable topology constraint for (?P<type>topology spread|pod affinity|pod "
    r"anti-affinity)\b"
)
_TOPOLOGY_CODES = {
    "topology spread": Code.TOPOLOGY_SPREAD,
    "pod affinity": Code.POD_AFFINITY,
    "pod anti-affinity": Code.POD_ANTI_AFFINITY,
}
# InstanceTypeFilterError.Error() sentences -> (criteria that failed, failed only in combination)
_R, _F, _O = "requirements", "resources", "offering"
_SENTENCES: tuple[tuple[str, tuple[str, ...], bool], ...] = tuple(
    sorted(
        (
            (
                "no instance type met the scheduling requirements or had enough resources or had a required "
                "offering",
                (_R, _F, _O),
                False,
            ),
            ("no instance type met the scheduling requirements or had enough resources", (_R, _F), False),
            ("no instance type met the scheduling requirements or had a required offering", (_R, _O), False),
            ("no instance type had enough resources or had a required offering", (_F, _O), False),
            ("no instance type met all requirements", (_R,), False),
            ("no instance type has enough resources", (_F,), False),
            ("no instance type has the required offering", (_O,), False),
            (
                "no instance type which met the scheduling requirements and had enough resources, "
                "had a required offering",
                (_O,),
                True,
            ),
            (
                "no instance type which had enough resources and the required offering met the scheduling "
                "requirements",
                (_R,),
                True,
            ),
            (
                "no instance type which met the scheduling requirements and the required offering "
                "had the required resources",
                (_F,),
                True,
            ),
            ("no instance type met the requirements/resources/offering tuple", (_R, _F, _O), True),
        ),
        key=lambda row: -len(row[0]),
    )
)
_DRA_TEXTS = (
    "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter",
    "no instance type satisfies both scheduling and dynamic resource requirements",
)
_RESERVED_TEXTS = (
    "one or more instance types with compatible reserved offerings are available, but could not be reserved",
    "satisfying updated nodeclaim constraints would remove all compatible reserved offering options",
)
_FILTERED_ALL = lazy_pattern(
    r"^(?:skipping, )?nodepool requirements filtered out all (?:available )?instance types"
)


def parse_failure(message: str, *, require_envelope: bool) -> tuple[Finding, ...] | None:
    """Parse `Failed to schedule pod, <err>`. Without the envelope (a bare Karpenter error, e.g. the `error`
    field of the `could not schedule pod` log line) the text is accepted only when `require_envelope` is False
    and at least one clause is recognised."""
    envelope = _ENVELOPE.match(message)
    if envelope is not None:
        return _clauses(message[envelope.end() :])
    if require_envelope:
        return None
    parts = _clauses(message)
    return None if all(part.code is Code.OTHER for part in parts) else parts


def classify(clause: str) -> Finding:
    """One Karpenter error clause (no `; `), e.g. `did not tolerate taint (taint=k:NoSchedule)`."""
    text = clause.strip()
    for matcher in _MATCHERS:
        if (finding := matcher(text)) is not None:
            return finding
    return Finding(code=Code.OTHER, text=text, nodepool=nodepool_in(text))


def _clauses(body: str) -> tuple[Finding, ...]:
    parts: list[Finding] = []
    nodepool: str | None = None
    overhead: str | None = None
    for raw in _MULTIERR.split(body):
        clause = raw.strip()
        if not clause:
            continue
        prefix = _NODEPOOL_PREFIX.match(clause)
        if prefix is not None:
            nodepool, overhead = prefix.group("nodepool"), prefix.group("overhead")
            rest = prefix.group("rest")
            finding = classify(rest) if rest else Finding(code=Code.OTHER, text=clause)
        else:
            finding = classify(clause)
        if finding.nodepool is None and nodepool is not None:
            finding = msgspec.structs.replace(finding, nodepool=nodepool, daemonset_overhead=overhead)
        parts.append(finding)
    return tuple(parts) or (Finding(code=Code.OTHER, text=body.strip()),)


def _wrapped(text: str) -> Finding | None:
    for prefix, code in _WRAPPERS:
        if text.startswith(prefix):
            inner = classify(text[len(prefix) :])
            if code is Code.REQUIREMENT_CONFLICT:  # keep what the inner clause says; unknown -> a conflict
                return msgspec.structs.replace(
                    inner, text=text, code=code if inner.code is Code.OTHER else inner.code
                )
            if code is Code.VOLUME and isinstance(inner, RequirementFinding):
                return msgspec.structs.replace(inner, code=Code.VOLUME, text=text)
            return Finding(code=code, text=text, nodepool=inner.nodepool)
    return None


def _taint(text: str) -> Finding | None:
    if _TAINT_SERRORS.match(text):
        _, values = split_kv_tail(text)
        taint = parse_taint(values.get("taint", ""))
    elif (match := _TAINT_PRETTY.match(text)) is not None:
        taint = parse_taint(match.group("taint"))
    else:
        return None
    if taint is None:
        return TaintFinding(code=Code.UNTOLERATED_TAINT, text=text)
    key, value, effect = taint
    return TaintFinding(code=Code.UNTOLERATED_TAINT, text=text, key=key, value=value, effect=effect)


def _unknown_label(text: str) -> Finding | None:
    match = _UNKNOWN_LABEL.match(text)
    if match is None:
        return None
    return LabelFinding(
        code=Code.UNKNOWN_LABEL, text=text, label=match.group("label"), typo_of=match.group("typo")
    )


def _conflict(text: str) -> Finding | None:
    if (match := _CONFLICT.match(text)) is not None:
        key, pod, pool = match.group("key"), match.group("pod"), match.group("pool")
    else:  # pre-v1: `<pod> not in <pool>, key K` (split by hand: a regex here backtracks quadratically)
        head, _, key = text.rpartition(", key ")
        pod, found, pool = head.partition(" not in ")
        if not found or not key or any(blank.isspace() for blank in key):
            return None

    def side(requirement: str) -> str:  # HEAD prints `key K, K In [a] not in K In [b]`: drop the repeat
        requirement = requirement.strip()
        return requirement[len(key) + 1 :] if requirement.startswith(key + " ") else requirement

    return RequirementFinding(
        code=Code.REQUIREMENT_CONFLICT,
        text=text,
        key=key,
        pod_requirement=side(pod),
        nodepool_requirement=side(pool),
    )


def _limits(text: str) -> Finding | None:
    match = _LIMITS.match(text)
    if match is None:
        return None
    _, values = split_kv_tail(text)
    return LimitFinding(
        code=Code.LIMITS_EXCEEDED,
        text=text,
        nodepool=values.get("NodePool") or nodepool_in(text),
        limit="nodes" if match.group("nodes") else "resources",
    )


def _min_values(text: str) -> Finding | None:
    body, values = split_kv_tail(text)
    wrapper = _MIN_VALUES_WRAPPER.match(body)
    if wrapper is None and "minValues requirement is not met" not in text:
        return None
    nodepool = values.get("NodePool") or (wrapper.group("nodepool") if wrapper else None)
    inner = (wrapper.group("inner") or "") if wrapper else body
    inner, requirements, resources = _split_requirements(inner)
    inner, inner_values = split_kv_tail(inner)
    listed = (
        values.get("label(s)")
        or values.get("label")
        or inner_values.get("label(s)")
        or inner_values.get("label")
    )
    labels: tuple[str, ...] = kv_list(listed) if listed else ()
    if not labels and (match := _MIN_VALUES_FOR.search(inner)) is not None:
        what = match.group("what").strip()
        labels = tuple(_QUOTED.findall(what)) or tuple(
            word for word in what.split()[:1] if word not in ("label", "label(s)")
        )
    return MinValuesFinding(
        code=Code.MIN_VALUES,
        text=text,
        nodepool=nodepool,
        labels=labels,
        requirements=requirements,
        resources=resources,
    )


def _split_requirements(text: str) -> tuple[str, str | None, str | None]:
    start = text.find(", requirements=")
    if start < 0:
        return text, None, None
    match = _SUFFIX.match(text[start:])
    if match is None:
        return text[:start], text[start + len(", requirements=") :], None
    return text[:start], match.group("requirements"), match.group("resources")


def _fixed_texts(text: str) -> Finding | None:
    if text.startswith(_DRA_TEXTS):
        return Finding(code=Code.DRA, text=text)
    if text.startswith(_RESERVED_TEXTS):
        return Finding(code=Code.RESERVED_OFFERING, text=text)
    if _FILTERED_ALL.match(text):
        return Finding(code=Code.NODEPOOL_FILTERED_ALL, text=text)
    if (match := _TOPOLOGY.match(text)) is not None:
        return Finding(code=_TOPOLOGY_CODES[match.group("type")], text=text)
    return None


def _no_instance_type(text: str) -> Finding | None:
    satisfied = _SATISFIED.match(text)
    if satisfied is not None:
        return _satisfied(text, satisfied.group("resources"), text[satisfied.end() :])
    if not text.startswith("no instance type"):
        return None
    for sentence, failed, jointly in _SENTENCES:
        rest = text[len(sentence) :]
        if text.startswith(sentence) and (not rest or rest.startswith((",", " ("))):
            suffix = _SUFFIX.match(rest)
            if suffix is None:  # e.g. a message truncated by the event recorder
                return InstanceTypeFinding(
                    code=Code.NO_INSTANCE_TYPE, text=text, reason=sentence, failed=failed, jointly=jointly
                )
            return InstanceTypeFinding(
                code=Code.NO_INSTANCE_TYPE,
                text=text,
                reason=sentence,
                failed=failed,
                jointly=jointly,
                requirements=suffix.group("requirements"),
                resources=suffix.group("resources"),
                hint=suffix.group("hint"),
            )
    return InstanceTypeFinding(code=Code.NO_INSTANCE_TYPE, text=text, reason=text)


def _satisfied(text: str, resources: str, tail: str) -> Finding:
    """<= v1.3: `no instance type satisfied resources {..} and requirements <reqs> (<reason>)`. Requirement
    strings never contain " (", so the first one opens the reason."""
    requirements, _, why = tail.partition(" (")
    if not why.endswith(")"):  # truncated message
        return InstanceTypeFinding(
            code=Code.NO_INSTANCE_TYPE,
            text=text,
            reason=text,
            requirements=requirements or None,
            resources=resources,
        )
    reason = classify(why[:-1])
    if isinstance(reason, MinValuesFinding | InstanceTypeFinding):
        return msgspec.structs.replace(reason, text=text, requirements=requirements, resources=resources)
    return InstanceTypeFinding(
        code=Code.NO_INSTANCE_TYPE,
        text=text,
        reason=reason.text,
        requirements=requirements,
        resources=resources,
    )


_MATCHERS: tuple[Callable[[str], Finding | None], ...] = (
    _wrapped,
    _taint,
    _unknown_label,
    _conflict,
    _limits,
    _min_values,
    _fixed_texts,
    _no_instance_type,
)
