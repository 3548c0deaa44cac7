"""Karpenter / Auto Mode placement and lifecycle events.

`Nominated` (`Pod should schedule on: nodeclaim/X[, node/Y]`), the scheduler's `Scheduled`, NodeClaim errors
(`NodeClaim X event: ...`), `NoCompatibleInstanceTypes` on a NodePool, status-condition transitions, and the
disruption / termination family (`DisruptionBlocked`, `Unconsolidatable`, `Disruption*`,
`TerminationGracePeriodExpiring`, `FailedDraining`) with the do-not-disrupt and PDB blocker texts.
Karpenter capitalises the first letter of a blocker when it becomes an event (`Pdb prevents pod evictions`),
so those texts are matched without regard to case.
"""

from __future__ import annotations

import re

import msgspec

from kubectl_gpu.core.evidence._text import kv_list, nodepool_in, split_kv_tail
from kubectl_gpu.core.evidence.model import (
    AssignmentFinding,
    Code,
    DisruptionFinding,
    FilteredFinding,
    Finding,
    Kind,
    NodeClaimFinding,
    NominationFinding,
    StatusConditionFinding,
)
from kubectl_gpu.core.lazy_pattern import lazy_pattern

_NOMINATED = lazy_pattern(r"^Pod should schedule on(?: node)?: (?P<targets>.+)$", re.DOTALL)
_TARGET = lazy_pattern(r"^(?:(?P<kind>nodeclaim|machine|node)/)?(?P<name>\S+)$")
_ASSIGNED = lazy_pattern(r"^Successfully assigned (?P<pod>\S+) to (?P<node>\S+)$")
_NODECLAIM_EVENT = lazy_pattern(r"^NodeClaim (?P<nodeclaim>\S+) event: (?P<detail>.*)$", re.DOTALL)
_ICE = lazy_pattern(r"insufficient ?(?:instance )?capacity|unable to fulfill capacity", re.IGNORECASE)
_NODECLASS_NOT_READY = lazy_pattern(r"node ?class.*not ready", re.IGNORECASE | re.DOTALL)
_NO_COMPATIBLE = lazy_pattern(
    r"^NodePool requirements filtered out all compatible available instance types"
    r"(?P<min_values> due to minValues incompatibility)?",
    re.IGNORECASE,
)
_STATUS = lazy_pattern(
    r"^Status condition transitioned, Type: (?P<type>[^,]+), Status: (?P<from>[^,]*?) -> (?P<to>[^,]*?)"
    r"(?:, Reason: (?P<reason>[^,]*))?(?:, Message: (?P<message>.*))?$",
    re.DOTALL,
)
_CANNOT_DISRUPT = lazy_pattern(r"^Cannot disrupt (?P<target>NodeClaim|Node): (?P<detail>.*)$", re.DOTALL)
_DND_NODE = lazy_pattern(
    r"^(?:disruption is blocked through the|(?:node|nodeclaim) has(?: the)?) "
    r"\"?karpenter\.sh/do-not-disrupt\"? annotation",
    re.IGNORECASE,
)
_DND_POD = lazy_pattern(
    r"^pod(?: \"?(?P<pod>[^\s\"]+)\"?)? has(?: the)? \"?karpenter\.sh/do-not-(?:disrupt|evict)\"? annotation",
    re.IGNORECASE,
)
_PDB = lazy_pattern(r"^pdb(?: (?P<pdb>[^\s(]+))? prevents pod evictions", re.IGNORECASE)
_MULTI_PDB = lazy_pattern(r"^eviction does not support multiple PDBs", re.IGNORECASE)
_BUDGET = lazy_pattern(
    r"^No allowed disruptions(?: for disruption reason (?P<reason>\S+))? due to blocking budget",
    re.IGNORECASE,
)
_DISRUPTING = lazy_pattern(
    r"^(?:(?:Disrupting|Launching) (?P<target>NodeClaim|Node): (?P<reason>.+)"
    r"|Waiting on readiness to continue disruption)$"
)
_INVALID_DND = lazy_pattern(
    r"^Invalid karpenter\.sh/do-not-disrupt annotation: (?P<value>.*), ignoring annotation$"
)
_TGP = lazy_pattern(r"^All pods will be deleted by (?P<deadline>.+)$")
_DRAIN = lazy_pattern(r"^Failed to drain node, (?P<detail>.*)$", re.DOTALL)

_KIND_BY_REASON = {
    "FailedScheduling": Kind.FAILED_SCHEDULING,
    "Nominated": Kind.NOMINATED,
    "Scheduled": Kind.SCHEDULED,
    "InsufficientCapacityError": Kind.NODECLAIM,
    "NodeClassNotReady": Kind.NODECLAIM,
    "NoCompatibleInstanceTypes": Kind.NODEPOOL,
    "DisruptionBlocked": Kind.DISRUPTION,
    "Unconsolidatable": Kind.DISRUPTION,
    "DisruptionLaunching": Kind.DISRUPTION,
    "DisruptionTerminating": Kind.DISRUPTION,
    "DisruptionWaitingReadiness": Kind.DISRUPTION,
    "InvalidDoNotDisruptAnnotation": Kind.DISRUPTION,
    "TerminationGracePeriodExpiring": Kind.TERMINATION,
    "FailedDraining": Kind.TERMINATION,
}


class Lifecycle(msgspec.Struct, frozen=True):
    kind: Kind
    finding: Finding


def kind_of(reason: str) -> Kind:
    """The event kind a reason implies (`other` for reasons this package does not know)."""
    return _KIND_BY_REASON.get(reason, Kind.OTHER)


def parse_lifecycle(reason: str, text: str) -> Lifecycle | None:
    """Recognise a placement / lifecycle message; None when neither the text nor the reason is known."""
    for parser in (_placement, _nodeclaim, _status):
        if (found := parser(reason, text)) is not None:
            return found
    finding = _disruption(reason, text)
    if finding is None:
        return None
    default = Kind.TERMINATION if finding.code in _TERMINATION_CODES else Kind.DISRUPTION
    kind = kind_of(reason)
    return Lifecycle(kind if kind in (Kind.DISRUPTION, Kind.TERMINATION) else default, finding)


_TERMINATION_CODES = (Code.TERMINATION_GRACE_PERIOD_EXPIRING, Code.FAILED_DRAINING)


def _placement(reason: str, text: str) -> Lifecycle | None:
    if (match := _NOMINATED.match(text)) is not None:
        nodeclaim = node = None
        for target in match.group("targets").split(","):
            parsed = _TARGET.match(target.strip())
            if parsed is None:
                continue
            if parsed.group("kind") in (None, "node"):
                node = node or parsed.group("name")
            else:
                nodeclaim = nodeclaim or parsed.group("name")
        return Lifecycle(
            Kind.NOMINATED, NominationFinding(code=Code.NOMINATED, text=text, nodeclaim=nodeclaim, node=node)
        )
    if (match := _ASSIGNED.match(text)) is not None:
        finding = AssignmentFinding(
            code=Code.SCHEDULED, text=text, pod=match.group("pod"), node=match.group("node")
        )
        return Lifecycle(Kind.SCHEDULED, finding)
    return None


def _nodeclaim(reason: str, text: str) -> Lifecycle | None:
    if (match := _NO_COMPATIBLE.match(text)) is not None:
        finding = FilteredFinding(
            code=Code.NO_COMPATIBLE_INSTANCE_TYPES,
            text=text,
            min_values=match.group("min_values") is not None,
        )
        return Lifecycle(Kind.NODEPOOL, finding)
    match = _NODECLAIM_EVENT.match(text)
    if match is None:
        return None
    detail = match.group("detail").strip()
    if reason == "InsufficientCapacityError" or (reason != "NodeClassNotReady" and _ICE.search(detail)):
        code = Code.INSUFFICIENT_CAPACITY
    elif reason == "NodeClassNotReady" or _NODECLASS_NOT_READY.search(detail):
        code = Code.NODECLASS_NOT_READY
    else:
        code = Code.OTHER
    nodeclaim = match.group("nodeclaim")
    return Lifecycle(
        Kind.NODECLAIM, NodeClaimFinding(code=code, text=text, nodeclaim=nodeclaim, detail=detail)
    )


def _status(reason: str, text: str) -> Lifecycle | None:
    match = _STATUS.match(text)
    if match is None:
        return None
    finding = StatusConditionFinding(
        code=Code.STATUS_CONDITION,
        text=text,
        condition=match.group("type").strip(),
        from_status=match.group("from").strip(),
        to_status=match.group("to").strip(),
        condition_reason=match.group("reason"),
        condition_message=match.group("message"),
    )
    return Lifecycle(Kind.STATUS, finding)


def _disruption(reason: str, text: str) -> DisruptionFinding | None:
    target: str | None = None
    detail = text
    if (match := _CANNOT_DISRUPT.match(text)) is not None:
        target, detail = match.group("target"), match.group("detail").strip()
    body, values = split_kv_tail(detail)
    pod = values.get("Pod")
    if _DND_NODE.match(body):
        return DisruptionFinding(code=Code.DO_NOT_DISRUPT, text=text, detail=detail, target=target)
    if (match := _DND_POD.match(body)) is not None:
        return DisruptionFinding(
            code=Code.DO_NOT_DISRUPT, text=text, detail=detail, target=target, pod=pod or match.group("pod")
        )
    if (match := _PDB.match(body)) is not None or _MULTI_PDB.match(body):
        listed = values.get("PodDisruptionBudget") or (match.group("pdb") if match else None)
        return DisruptionFinding(
            code=Code.PDB_BLOCKED,
            text=text,
            detail=detail,
            target=target,
            pod=pod,
            pdbs=kv_list(listed) if listed else (),
        )
    if (match := _BUDGET.match(body)) is not None:
        return DisruptionFinding(
            code=Code.DISRUPTION_BUDGET, text=text, detail=detail, disruption_reason=match.group("reason")
        )
    if (match := _DISRUPTING.match(text)) is not None:
        return DisruptionFinding(
            code=Code.DISRUPTING,
            text=text,
            detail=text,
            target=match.group("target"),
            disruption_reason=match.group("reason"),
        )
    if (match := _INVALID_DND.match(text)) is not None:
        return DisruptionFinding(
            code=Code.INVALID_DO_NOT_DISRUPT, text=text, detail=text, value=match.group("value")
        )
    if (match := _TGP.match(text)) is not None:
        return DisruptionFinding(
            code=Code.TERMINATION_GRACE_PERIOD_EXPIRING,
            text=text,
            detail=text,
            deadline=match.group("deadline").strip(),
        )
    if (match := _DRAIN.match(text)) is not None:
        return DisruptionFinding(code=Code.FAILED_DRAINING, text=text, detail=match.group("detail").strip())
    if reason == "Unconsolidatable":
        return DisruptionFinding(
            code=Code.UNCONSOLIDATABLE, text=text, detail=detail, nodepool=nodepool_in(text)
        )
    if reason == "DisruptionBlocked" or target is not None:
        return DisruptionFinding(code=Code.DISRUPTION_BLOCKED, text=text, detail=detail, target=target)
    return None
