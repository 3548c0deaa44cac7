"""A NodePool's recent InsufficientCapacityError: EC2 had none of what the pool launches."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from kubectl_gpu.core.analyses.pending.ago import minutes_ago
from kubectl_gpu.core.analyses.pending.evaluation import CAPACITY
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, Verdict
from kubectl_gpu.core.k8s.models import Event
from kubectl_gpu.core.k8s.state import ClusterState

if TYPE_CHECKING:
    from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget

__all__ = ["CAPACITY_EVENT_WINDOW", "capacity_event", "capacity_events_key"]

# How far back an InsufficientCapacityError still says "the cloud is out of this".
CAPACITY_EVENT_WINDOW = timedelta(hours=1)


def recent_capacity_events(state: ClusterState, now: datetime) -> tuple[dict[str, str | None], list[Event]]:
    """NodeClaim name -> its pool, and the InsufficientCapacityErrors of the window (once per analysis:
    every pool asks)."""
    claims = {c.name: c.node_pool for c in state.nodeclaims}
    recent = []
    for event in state.events:
        if event.reason != "InsufficientCapacityError" or event.last_seen is None:
            continue
        if now - event.last_seen > CAPACITY_EVENT_WINDOW or event.last_seen > now + timedelta(minutes=5):
            continue
        recent.append(event)
    return claims, recent


def capacity_events_key(now: datetime) -> tuple[str, datetime]:
    """The key of `recent_capacity_events` in a PoolMemo's shared values."""
    return ("capacity events", now)


def capacity_event(target: PoolTarget, now: datetime) -> Blocker | None:
    """The newest recent InsufficientCapacityError of this pool's NodeClaims (or the pool itself)."""
    claims, recent = target.memo.shared(
        capacity_events_key(now), lambda: recent_capacity_events(target.state, now)
    )
    if not recent:
        return None
    name_of_pool = target.pool.name
    claim_name = re.compile(re.escape(name_of_pool) + r"-[a-z0-9]{5}")
    matching = []
    for event in recent:
        name = event.involved.name or ""
        pool: str | None
        if event.involved.kind == "NodePool":
            pool = name
        elif name in claims:
            pool = claims[name]
        else:
            # A deleted NodeClaim: Karpenter names claims <nodepool>-<5 random characters>.
            pool = name_of_pool if claim_name.fullmatch(name) else None
        if pool == name_of_pool:
            matching.append(event)
    if not matching:
        return None
    event = max(matching, key=lambda e: e.last_seen or now)
    assert event.last_seen is not None
    return Blocker(
        Verdict.CAPACITY_UNAVAILABLE,
        CAPACITY,
        target.ref,
        f"EC2 had no capacity for NodePool {name_of_pool} {minutes_ago(now - event.last_seen)}: {event.message}",
        "widen the pool (more instance families or sizes, more zones, spot and on-demand) or "
        "use a capacity reservation; Karpenter retries on its own",
    )
