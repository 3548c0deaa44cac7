"""Whether a debug pod is left behind (`cleanup` may delete it) or still in use by the run that made it.

`cleanup --yes` used to delete every debug pod it found, grace period 0, in every namespace: also the
shell someone opened a minute ago. A pod counts as left behind only when that is certain:

1. it is being deleted already, or it has finished (phase Succeeded or Failed);
2. it is past its deadline (`activeDeadlineSeconds` from its start, else its creation): the kubelet should
   have stopped it, so nothing is waiting on it (the node may be unreachable);
3. its creator is provably gone: each pod names the process that made it (annotation `kubectl-gpu/creator`:
   host, pid and the process's start time); on that same host, no such process runs any more.

Anything else (a creator on another machine, a pod from a version that did not record one, a creator still
running) is *in use*: listed with why, deleted only when named or with `--force`. Pure: the caller says
whether a creator process runs (`alive`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

import msgspec

from kubectl_gpu.core.k8s.times import format_age, parse_optional_time

__all__ = ["CREATOR_ANNOTATION", "Creator", "Verdict", "creator_value", "judge", "parse_creator"]

CREATOR_ANNOTATION = "kubectl-gpu/creator"
_FINISHED = ("Succeeded", "Failed")


class Creator(msgspec.Struct, frozen=True):
    """The process that created a debug pod: its host, pid and start time ("" where the OS does not say)."""

    host: str
    pid: int
    started: str = ""

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}"


def creator_value(creator: Creator) -> str:
    return f"host={creator.host} pid={creator.pid} started={creator.started}"


def parse_creator(text: object) -> Creator | None:
    """The annotation's creator; None when absent or not of our writing."""
    if not isinstance(text, str):
        return None
    fields = dict(part.partition("=")[::2] for part in text.split(" "))
    host, pid = fields.get("host", ""), fields.get("pid", "")
    if not host or not (host.isascii() and host.isprintable()) or not (pid.isascii() and pid.isdigit()):
        return None
    return Creator(host, int(pid), fields.get("started", ""))


class Verdict(msgspec.Struct, frozen=True):
    left_behind: bool
    why: str


#: Whether the creator's process still runs: True, False (provably gone), None (cannot tell: another host).
Alive = Callable[[Creator], bool | None]


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _deadline(pod: Mapping[str, Any]) -> datetime | None:
    spec, status, meta = (_mapping(pod.get(k)) for k in ("spec", "status", "metadata"))
    seconds = spec.get("activeDeadlineSeconds")
    start = parse_optional_time(status.get("startTime")) or parse_optional_time(meta.get("creationTimestamp"))
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 0 or start is None:
        return None
    return start + timedelta(seconds=min(seconds, 10**9))


def judge(pod: Mapping[str, Any], now: datetime, alive: Alive) -> Verdict:
    """Left behind (may be deleted) or in use, and why, in words the listing shows."""
    meta, status = _mapping(pod.get("metadata")), _mapping(pod.get("status"))
    if meta.get("deletionTimestamp"):
        return Verdict(True, "being deleted")
    phase = status.get("phase")
    if phase in _FINISHED:
        return Verdict(True, f"finished ({phase})")
    deadline = _deadline(pod)
    if deadline is not None and now >= deadline:
        return Verdict(True, f"past its deadline by {format_age(now - deadline)}")
    left = f"deadline in {format_age(deadline - now)}" if deadline is not None else "no deadline"
    creator = parse_creator(_mapping(meta.get("annotations")).get(CREATOR_ANNOTATION))
    if creator is None:
        return Verdict(False, f"{phase or 'Pending'}, creator not recorded, {left}")
    running = alive(creator)
    if running is False:
        return Verdict(True, f"its creator, {creator}, is gone")
    if running is None:
        return Verdict(False, f"{phase or 'Pending'}, created by {creator}: cannot tell from here, {left}")
    return Verdict(False, f"{phase or 'Pending'}, its creator {creator} is running, {left}")
