"""`karpenter.sh/do-not-disrupt`, the one place it is read. It holds off voluntary disruption (drift,
consolidation), not expiry.

* On a pod (`kubernetes-sigs/karpenter` `pkg/utils/pod/scheduling.go` `IsDoNotDisruptActive`): "true"
  protects for good, a Go duration (Karpenter v1.12+) from the pod's start (for good while it has none),
  anything else is ignored.
* On a Node or NodeClaim (`pkg/controllers/state/statenode.go` `ValidateNodeDisruptable`): exactly "true"
  blocks disruption; no other value does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

import msgspec

from kubectl_gpu.core.k8s.durations import FOREVER, timestamp
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.times import parse_go_duration

__all__ = ["DO_NOT_DISRUPT", "Protection", "block_until", "blocks_disruption", "protection_of"]

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"


class Protection(msgspec.Struct, frozen=True):
    """`karpenter.sh/do-not-disrupt` on one pod."""

    namespace: str
    name: str
    value: str
    kind: str  # permanent | duration | invalid
    until: datetime | None  # duration: start + value; permanent: None

    def active_at(self, t: datetime) -> bool:
        if self.kind == "permanent":
            return True
        return self.kind == "duration" and self.until is not None and t < self.until

    @property
    def ends(self) -> datetime | None:
        """When protection lapses: FOREVER for "true", None when it never protected (invalid)."""
        if self.kind == "permanent":
            return FOREVER
        return self.until if self.kind == "duration" else None

    def to_dict(self, now: datetime) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pod": f"{self.namespace}/{self.name}",
            "value": self.value,
            "kind": self.kind,
            "active": self.active_at(now),
            "until": timestamp(self.until),
        }
        if self.kind == "duration":
            out["note"] = "durations need Karpenter v1.12+; older releases ignore any value but 'true'"
        elif self.kind == "invalid":
            out["note"] = "not 'true' and not a positive Go duration: Karpenter ignores it"
        return out


def blocks_disruption(annotations: Mapping[str, str]) -> bool:
    """A Node's or NodeClaim's annotations block its disruption (exactly "true", like Karpenter)."""
    return annotations.get(DO_NOT_DISRUPT) == "true"


def protection_of(pod: Pod) -> Protection | None:
    value = pod.meta.annotations.get(DO_NOT_DISRUPT)
    if value is None:
        return None
    if value == "true":
        return Protection(pod.namespace, pod.name, value, "permanent", None)
    duration = parse_go_duration(value)
    if duration is None or duration <= timedelta(0):
        return Protection(pod.namespace, pod.name, value, "invalid", None)
    start = pod.started
    # No start time yet: Karpenter keeps the pod protected ("fail safe").
    until = start + duration if start is not None else FOREVER
    return Protection(pod.namespace, pod.name, value, "duration", until)


def block_until(protections: Iterable[Protection], now: datetime) -> datetime | None:
    """Until when active do-not-disrupt pods hold off voluntary disruption (FOREVER for "true")."""
    ends = [p.ends for p in protections if p.active_at(now) and p.ends is not None]
    return max(ends) if ends else None
