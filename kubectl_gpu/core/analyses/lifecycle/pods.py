"""Per pod: which pods count (they want an accelerator), their disruptions, risk, and whether they survive
as long as asked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from decimal import Decimal

from kubectl_gpu.core.accelerators.resources import PerRequests, accelerator_requests, is_accelerator_resource
from kubectl_gpu.core.analyses.lifecycle.disruptions import NodeContext, disruptions_for
from kubectl_gpu.core.analyses.lifecycle.report import Disruption, PodLifecycle, Survival
from kubectl_gpu.core.k8s.durations import SOON, WEEK, timestamp
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.state import ClusterState

__all__ = ["accelerator_pods", "pod_lifecycle", "wants_accelerator"]


def accelerator_pods(state: ClusterState) -> frozenset[int]:
    """The ids of the state's pods that `wants_accelerator`, once per state (the node and pod passes ask of the
    same pods): the replicas of a template share one requests object (`parse/pods_fast.py`), read once."""

    def build() -> frozenset[int]:
        said = PerRequests(_requests_say)
        return frozenset(id(pod) for pod in state.pods if _wants(pod, said(pod.requests)))

    return state.memo(_ACCELERATOR_PODS, build)


_ACCELERATOR_PODS = object()


def wants_accelerator(pod: Pod) -> bool:
    """The pod requests or limits an accelerator resource, or claims a device (DRA).

    A pod's requests already hold every limit its containers set without a request (the API server's
    default, applied when the pod is read: `core/k8s/parse/pods.py`), so its limits, read lazily and at a
    cost per pod, can add an accelerator only where a request names one at zero (issue 38: reading them
    for every pod on a GPU node was a fifth of `diagnose` on 1,000 nodes)."""
    return _wants(pod, _requests_say(pod.requests))


def _requests_say(requests: Mapping[str, Decimal]) -> bool | None:
    """What a pod's requests alone say: True, one is requested; False, none is named; None, one is named at
    zero, so the limits decide."""
    if accelerator_requests(requests):
        return True
    if not any(is_accelerator_resource(name) for name in requests):
        return False
    return None


def _wants(pod: Pod, said: bool | None) -> bool:
    """`wants_accelerator` of a pod whose requests said `said` (`_requests_say`)."""
    if said or pod.resource_claims:
        return True
    return said is None and bool(accelerator_requests(pod.limits))


def _risk(disruptions: Iterable[Disruption], now: datetime) -> str:
    timed = [d.at for d in disruptions if d.at is not None]
    undated = any(d.at is None for d in disruptions)
    first = min(timed) if timed else None
    if first is not None and first - now <= SOON:
        return "high"
    if (first is not None and first - now <= WEEK) or undated:
        return "medium"
    return "low"


def _survival(disruptions: Iterable[Disruption], now: datetime, needs: timedelta, text: str) -> Survival:
    deadline = now + needs
    verdict = "yes"
    reasons: list[str] = []
    causes: list[Disruption] = []
    for d in disruptions:
        if d.at is None:
            reasons.append(f"possible {d.by} at an unpredictable time: {d.detail}")
            causes.append(d)
            verdict = "no" if verdict == "no" else "at-risk"
        elif d.at < deadline:
            causes.append(d)
            kind = "will" if d.certain else "may"
            reasons.append(f"{d.by} {kind} disrupt it at {timestamp(d.at)}: {d.detail}")
            if d.certain:
                verdict = "no"
            elif verdict == "yes":
                verdict = "at-risk"
    return Survival(text, deadline, verdict, tuple(reasons), tuple(causes))


def pod_lifecycle(
    pod: Pod, ctx: NodeContext, now: datetime, needs: tuple[timedelta, str] | None
) -> PodLifecycle:
    disruptions = disruptions_for(ctx, pod, now)
    acc = {**accelerator_requests(pod.limits), **accelerator_requests(pod.requests)}
    requests = {k: str(int(v)) if v == v.to_integral_value() else str(v) for k, v in sorted(acc.items())}
    return PodLifecycle(
        namespace=pod.namespace,
        name=pod.name,
        node=ctx.node.name,
        node_pool=ctx.life.node_pool,
        started=pod.started or pod.meta.created,
        requests=requests,
        protection=ctx.protections.get(f"{pod.namespace}/{pod.name}"),
        disruptions=disruptions,
        risk=_risk(disruptions, now),
        survival=_survival(disruptions, now, needs[0], needs[1]) if needs is not None else None,
    )
