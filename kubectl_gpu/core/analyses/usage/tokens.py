"""$ per million output tokens per inference workload. Pure.

Per pod: output tokens per second over the window (`core.usage.window`), and the share of its node's
hourly price that its GPUs represent (GPUs held / node GPUs x node $/h). Per workload (a Deployment, ...):
the pods' tokens per second and costs summed; $ per 1M output tokens = cost per hour / (tokens per
second x 3600) x 1,000,000. A pod read but not recognised, recognised without a token counter, or never
read is listed with that status, never with a zero rate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal

from kubectl_gpu.core.analyses.usage.report import ZERO, TokenCost, Workload
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.usage.window import ServerWindow

__all__ = ["token_costs"]

_STATUS_ORDER = ("not-read", "not-recognised", "no-token-counter", "rate-unknown", "ok")


def _status(server: ServerWindow) -> str:
    if server.samples == 0:
        return "not-read"
    if server.server is None:
        return "not-recognised"
    if not server.counted:
        return "no-token-counter"
    return "ok" if server.output_tokens_per_s is not None else "rate-unknown"


def _sum(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return math.fsum(known) if known and len(known) == len(values) else None


def token_costs(
    servers: Sequence[ServerWindow],
    pods: Mapping[tuple[str, str], Pod],
    workload_of: Callable[[Pod], Workload],
    pod_cost: Callable[[Pod], Decimal | None],
) -> list[TokenCost]:
    """One row per workload with inference pods, dearest per million tokens first."""
    groups: dict[Workload, list[ServerWindow]] = defaultdict(list)
    for server in servers:
        pod = pods.get((server.namespace, server.pod))
        workload = workload_of(pod) if pod is not None else Workload(server.namespace, "Pod", server.pod)
        groups[workload].append(server)
    rows = []
    for workload, members in groups.items():
        costs = [pod_cost(p) for s in members if (p := pods.get((s.namespace, s.pod))) is not None]
        known = [c for c in costs if c is not None]
        cost = sum(known, ZERO) if known and len(known) == len(members) else None
        status = min((_status(s) for s in members), key=_STATUS_ORDER.index)
        servers_named = {s.server for s in members if s.server}
        models = {s.model for s in members if s.model}
        rows.append(
            TokenCost(
                workload=workload,
                server=servers_named.pop() if len(servers_named) == 1 else None,
                model=models.pop() if len(models) == 1 else None,
                pods=tuple(sorted(s.pod for s in members)),
                status=status,
                output_tokens_per_s=_sum([s.output_tokens_per_s for s in members]),
                prompt_tokens_per_s=_sum([s.prompt_tokens_per_s for s in members]),
                cost_per_hour=cost,
                resets=sum(s.resets for s in members),
                unread=next((s.unread for s in members if s.unread), None),
            )
        )
    rows.sort(key=lambda r: (-(r.usd_per_million_output_tokens or Decimal(-1)), str(r.workload)))
    return rows
