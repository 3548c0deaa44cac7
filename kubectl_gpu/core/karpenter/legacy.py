"""Signs of a Karpenter older than v1 (`karpenter.sh/v1alpha5`, up to v0.31): its objects, or its events.

Karpenter v0.32 replaced Provisioner, Machine and AWSNodeTemplate with NodePool, NodeClaim and EC2NodeClass
(`karpenter.sh/v1beta1`), and v1.0 serves neither v1alpha5 nor (from v1.1) v1beta1
(https://karpenter.sh/docs/upgrading/v1beta1-migration/, aws/karpenter-provider-aws). This tool evaluates
`karpenter.sh/v1` NodePools; where only a v1alpha5 Karpenter provisions, "no NodePool" is not an answer.

The event forms are those v0.31's scheduler and provisioner wrote (kubernetes-sigs/karpenter
`pkg/controllers/provisioning/scheduling/scheduler.go` @v0.31: `incompatible with provisioner %q, ...`;
`all available instance types exceed limits for provisioner: %q`; `Pod should schedule on: machine/<name>`),
as seen in real reports (aws/karpenter-provider-aws#4738, #4698), and events about Provisioner or Machine
objects.
"""

from __future__ import annotations

import re

from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["LEGACY_KINDS", "legacy_karpenter"]

LEGACY_KINDS = frozenset({"Provisioner", "Machine", "AWSNodeTemplate"})
_EVENT_TEXT = lazy_pattern(
    r"incompatible with provisioner \"|exceed limits for provisioner\b|for provisioner: \"|"
    r"schedule on(?: node)?: machine/|\bkarpenter\.sh/provisioner-name\b",
    re.IGNORECASE,
)


def _may_be_legacy(message: str) -> bool:
    """False only where `_EVENT_TEXT` cannot match: an ASCII message naming neither a provisioner nor a
    machine in any case (ASCII letters match only ASCII ones under IGNORECASE; other text, where `re` also
    folds characters such as U+017F to `s`, is left to the pattern). Most of 50,000 events end here."""
    if not message.isascii():
        return True
    lowered = message.lower()
    return "provisioner" in lowered or "machine/" in lowered


def _any_legacy_event(state: ClusterState) -> bool:
    """False only where no event can be a sign (`legacy_karpenter`'s loop would find none): none is about a
    legacy kind, and `_may_be_legacy` is false of all the messages taken as one text. One pass in C over the
    events of an incident (50,000), not a test per message."""
    events = state.events
    if not events:
        return False
    if not LEGACY_KINDS.isdisjoint({e.involved.kind for e in events}):
        return True
    return _may_be_legacy("\n".join([e.message for e in events]))


def legacy_karpenter(state: ClusterState) -> str | None:
    """What in `state` shows a pre-v1 Karpenter (e.g. `Provisioner default (karpenter.sh/v1alpha5)`), or None."""
    found = [
        f"{obj.kind} {obj.name} ({obj.api_version})"
        for obj in sorted(state.legacy_karpenter, key=lambda o: (o.kind, o.name))
    ]
    if len(found) < 3 and _any_legacy_event(state):
        found += _event_signs(state, 3 - len(found))
    if not found:
        return None
    return "; ".join(dict.fromkeys(found[:3]))


def _event_signs(state: ClusterState, room: int) -> list[str]:
    """The first `room` events, in the order listed, about a legacy kind or in the v1alpha5 form."""
    signs: list[str] = []
    plain: set[str] = set()  # messages seen not to be in the v1alpha5 form (thousands of pods share one)
    for event in state.events:
        if event.involved.kind in LEGACY_KINDS:
            signs.append(
                f"an event about {event.involved.kind} {event.involved.name}: {event.message[:120]!r}"
            )
        elif event.message in plain:
            continue
        elif _may_be_legacy(event.message) and _EVENT_TEXT.search(event.message):
            signs.append(f"a {event.reason} event in the v1alpha5 form: {event.message[:120]!r}")
        else:
            plain.add(event.message)
        if len(signs) >= room:
            break
    return signs
