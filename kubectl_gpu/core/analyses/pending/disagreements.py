"""Where the provisioner's own latest message names a problem the analysis does not find now."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.ranking import Ranked
from kubectl_gpu.core.analyses.pending.verdicts import Verdict
from kubectl_gpu.core.evidence.model import Code, ParsedMessage, Source
from kubectl_gpu.core.k8s.models import Event

__all__ = ["disagreements"]

# What a provisioner/scheduler message code means in our verdict vocabulary.
_EQUIVALENT = {
    Code.UNTOLERATED_TAINT: {Verdict.MISSING_TOLERATION},
    Code.UNKNOWN_LABEL: {Verdict.UNKNOWN_LABEL, Verdict.LABEL_NAMESPACE_MISMATCH},
    Code.REQUIREMENT_CONFLICT: {Verdict.REQUIREMENT_CONFLICT},
    Code.LIMITS_EXCEEDED: {Verdict.NODEPOOL_LIMIT_REACHED},
    Code.NO_INSTANCE_TYPE: {Verdict.NO_INSTANCE_TYPE_FITS, Verdict.NO_ACCELERATOR_NODEPOOL},
    Code.NODEPOOL_FILTERED_ALL: {Verdict.NO_INSTANCE_TYPE_FITS, Verdict.NO_ACCELERATOR_NODEPOOL},
    Code.INSUFFICIENT_CAPACITY: {Verdict.CAPACITY_UNAVAILABLE},
    Code.NODECLASS_NOT_READY: {Verdict.NODECLASS_NOT_READY},
}


def disagreements(
    parsed: list[tuple[Event, ParsedMessage]], ranked: Ranked, verdict: Verdict
) -> tuple[str, ...]:
    """Where the provisioner's own latest message names something this analysis does not find now.

    Compared item by item: a taint by key, a label by key, a limit by NodePool; other codes by kind. The
    shape's facts (`Ranked.facts`, a pass over every target) are read only when there is such a message.
    """
    latest = next(
        (
            (e, m)
            for e, m in reversed(parsed)
            if e.reason == "FailedScheduling" and m.source in (Source.KARPENTER, Source.AUTO_MODE)
        ),
        None,
    )
    if latest is None:
        return ()
    event, message = latest
    facts = ranked.facts
    ours = facts.codes | {verdict}
    taints, labels, limited = facts.taint_keys, facts.label_keys, facts.limited_pools
    out: list[str] = []
    for part in message.parts:
        code = part.code
        missing: str | None = None
        if code is Code.UNTOLERATED_TAINT:
            key = getattr(part, "key", None)
            if key and key not in taints:
                missing = f"an untolerated taint {key}"
        elif code in (Code.UNKNOWN_LABEL, Code.REQUIREMENT_CONFLICT):
            key = getattr(part, "label", None) or getattr(part, "key", None)
            if key and key not in labels:
                missing = f"a problem with label {key}"
        elif code is Code.LIMITS_EXCEEDED:
            if part.nodepool and part.nodepool not in limited:
                missing = f"exhausted limits of NodePool {part.nodepool}"
        else:
            expected = _EQUIVALENT.get(code)
            if expected and not (expected & ours):
                missing = str(code)
        if missing and not any(missing in line for line in out):
            out.append(
                f"{message.source} reported {code} ({missing}: {part.text[:140]}), which this analysis does not "
                f"find now: the cluster may have changed since, or the data is incomplete"
            )
    if verdict in (Verdict.NO_BLOCKER_FOUND, Verdict.UNVERIFIED) and message.codes and not out:
        out.append(f"{message.source} still reports: {event.message[:200]}")
    return tuple(out)
