"""What is a Pending pod's own, not its shape's: its scheduling events, and the verdicts read from them or
from its status (a nomination in flight, a bound pod whose containers wait)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import msgspec

from kubectl_gpu.core.analyses.pending.times import iso_time, minutes_ago
from kubectl_gpu.core.evidence.messages import parse_event_message
from kubectl_gpu.core.evidence.model import ParsedMessage, Source
from kubectl_gpu.core.k8s.models import Event, Pod
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = [
    "NOMINATION_WINDOW",
    "Evidence",
    "evidence_row",
    "pod_events",
    "provisioning",
    "scheduled_fix",
    "scheduled_not_started",
]

# A Nominated event older than this no longer means "a node is on its way".
NOMINATION_WINDOW = timedelta(minutes=15)
_RELEVANT_REASONS = frozenset(
    {"FailedScheduling", "Nominated", "NotTriggerScaleUp", "TriggeredScaleUp", "FailedCreatePodSandBox"}
)


class Evidence(msgspec.Struct, frozen=True):
    source: str  # scheduler | karpenter | auto-mode | kubelet | unknown
    reason: str
    message: str
    count: int
    last_seen: datetime | None
    codes: tuple[str, ...]  # what the message says, parsed (UNTOLERATED_TAINT, UNKNOWN_LABEL, ...)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "reason": self.reason,
            "message": self.message,
            "count": self.count,
            "lastSeen": iso_time(self.last_seen),
            "codes": list(self.codes),
        }


def pod_events(
    state: ClusterState, pod: Pod, parsed: dict[tuple[str, str, str | None], ParsedMessage] | None = None
) -> list[tuple[Event, ParsedMessage]]:
    """The pod's scheduling events, parsed; `parsed` keeps each distinct message parsed once (the replicas
    of one Deployment get the same text from the scheduler and from Karpenter)."""
    events = [e for e in state.events_for("Pod", pod.name, pod.namespace) if e.reason in _RELEVANT_REASONS]
    if pod.meta.uid:
        events = [e for e in events if e.involved.uid in (None, pod.meta.uid)]
    memo = {} if parsed is None else parsed
    out = []
    for e in events:
        key = (e.reason, e.message, e.component)
        found = memo.get(key)
        if found is None:
            found = memo[key] = parse_event_message(e.reason, e.message, e.component)
        out.append((e, found))
    return out


def evidence_row(event: Event, parsed: ParsedMessage) -> Evidence:
    return Evidence(
        source=str(parsed.source),
        reason=event.reason,
        message=event.message,
        count=event.count,
        last_seen=event.last_seen,
        codes=tuple(dict.fromkeys(str(c) for c in parsed.codes)),
    )


def provisioning(
    state: ClusterState,
    pod: Pod,
    parsed: list[tuple[Event, ParsedMessage]],
    now: datetime,
) -> str | None:
    """Why the pod is in flight by the evidence, or None.

    Only the newest nomination counts, and only while it is fresh, not followed by a failure from the
    provisioner itself (kube-scheduler keeps failing until the new node registers, so its events do not
    supersede a nomination), and its NodeClaim is neither initialized already, out of capacity nor being
    deleted. Capacity in flight without a nomination is `StateNodes.room_in_flight` (targets/nodes/existing.py).
    """
    if pod.nominated_node_name:
        return f"the scheduler nominated node {pod.nominated_node_name} (status.nominatedNodeName)"
    nominations = [(e, m) for e, m in parsed if e.reason == "Nominated" and e.last_seen is not None]
    if nominations:
        event, message = max(nominations, key=lambda item: item[0].last_seen or now)
        assert event.last_seen is not None
        provisioner_failures = [
            e.last_seen
            for e, m in parsed
            if e.reason == "FailedScheduling"
            and e.last_seen is not None
            and m.source in (Source.KARPENTER, Source.AUTO_MODE)
        ]
        claim_name = next((n for n in (getattr(p, "nodeclaim", None) for p in message.parts) if n), None)
        claim = state.nodeclaim_by_name.get(claim_name) if claim_name else None
        initialized = claim.condition("Initialized") if claim is not None else None
        fresh = now - event.last_seen <= NOMINATION_WINDOW
        superseded = any(t > event.last_seen for t in provisioner_failures)
        out_of_capacity = claim_name is not None and any(
            e.reason == "InsufficientCapacityError" and e.involved.name == claim_name
            for e in state.events_for("NodeClaim", claim_name)
        )
        done = initialized is not None and initialized.is_true
        deleting = claim is not None and claim.meta.deleting  # Karpenter launches anew (StateNode.Deleted)
        if fresh and not superseded and not out_of_capacity and not done and not deleting:
            who = f"NodeClaim {claim_name}" if claim_name else "a new node"
            return f"{message.source} nominated the pod for {who} {minutes_ago(now - event.last_seen)}"
        return None
    return None


def scheduled_not_started(pod: Pod) -> str:
    waiting = [c for c in pod.container_statuses if c.state == "waiting" and c.reason]
    if waiting:
        c = waiting[0]
        kind = "init container" if c.init else "container"
        detail = f": {c.message}" if c.message else ""
        return f"bound to node {pod.node_name}; {kind} {c.name} is waiting: {c.reason}{detail}"
    return f"bound to node {pod.node_name} but not running yet (phase {pod.phase})"


def scheduled_fix(reason: str, node: str) -> str:
    if "ImagePull" in reason or "ErrImage" in reason:
        return "check the image name and tag, and that the node can pull it (registry auth, VPC endpoints)"
    if "CreateContainerConfigError" in reason:
        return "a referenced ConfigMap/Secret key is missing: kubectl describe pod shows which"
    if "UnexpectedAdmissionError" in reason or "device" in reason.lower():
        return (
            f"the device plugin on the node did not provide the device: kubectl gpu smi {node}, "
            "then recreate the pod"
        )
    return "kubectl describe pod and kubectl logs show what the kubelet reports"
