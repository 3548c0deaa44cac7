"""A NodePool's limits: what its NodeClaims use, what is left, and whether that stops a shape's fitting types
(`scheduler.go` `addToNewNodeClaim`, `filterByRemainingResources`), in the words of its limits check."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from kubectl_gpu.core.analyses.pending.checks.evaluation import CAPACITY, ZERO, Check, short_quantity
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.k8s.models import NodePool, Resources
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.instances import IndexedType, raw_capacity_of

__all__ = [
    "LimitAnswer",
    "claims_usage",
    "limit_answer_of",
    "limit_parts",
    "limit_problem",
    "remaining_limits",
]


class LimitAnswer(msgspec.Struct, frozen=True):
    """The NodePool-limits check for one pool and shape: `state` is `none` (no limits), `forbidden`
    (NodeClaims unreadable), `unfitted` (no type fits: nothing to weigh), `unknown` (`detail` says what the
    catalog lacks), `ok` or `over` (`problem` says why)."""

    state: str
    problem: str | None = None
    detail: str | None = None


def claims_usage(pool: NodePool, state: ClusterState, catalog: Catalog) -> Resources:
    """What the pool's NodeClaims hold, counted as Karpenter counts them against its limits."""
    used: Resources = {}
    for claim in state.nodeclaims_by_pool.get(pool.name, ()):
        capacity = dict(claim.capacity)
        if not capacity:
            itype = claim.meta.labels.get("node.kubernetes.io/instance-type")
            it = catalog.by_name(itype) if itype else None
            if it is not None:  # "nodes" is counted once per claim below
                capacity = {r: raw_capacity_of(it, r) for r in pool.limits if r != "nodes"}
                if "pods" in capacity:
                    capacity["pods"] = Decimal(it.allocatable_pods or 0)
        for name, value in capacity.items():
            used[name] = used.get(name, ZERO) + value
        used["nodes"] = used.get("nodes", ZERO) + 1
    return used


def remaining_limits(pool: NodePool, state: ClusterState, catalog: Catalog) -> Resources:
    """What is left of each of the pool's limits (the larger of its NodeClaims' use and its status's)."""
    if not pool.limits:
        return {}
    claims = claims_usage(pool, state, catalog)
    status = pool.status_resources
    return {
        name: limit - max(claims.get(name, ZERO), status.get(name, ZERO))
        for name, limit in pool.limits.items()
    }


def _limit_capacity(entry: IndexedType, resource: str) -> Decimal | None:
    """What one instance counts against a limit (`it.Capacity`): `pods` is its max pods (the catalog's
    allocatable pods), None when the catalog lacks it."""
    if resource == "pods":
        pods = entry.it.allocatable_pods
        return None if pods is None else Decimal(pods)
    return raw_capacity_of(entry.it, resource)


def limit_problem(remaining: Resources, fitting: tuple[IndexedType, ...]) -> tuple[str | None, str | None]:
    """Why NodePool limits with this much left stop every fitting type (no pool name in it), and what could not
    be weighed: `scheduler.go` `addToNewNodeClaim` fails a pool with no `nodes` left ("node limits have been
    exhausted"), then `filterByRemainingResources` drops each type whose capacity exceeds what is left of any
    limited resource, `pods` (its max pods) included."""
    if remaining.get("nodes", Decimal(1)) <= 0:
        return "node limits have been exhausted", None
    problem = None
    unknown: set[str] = set()
    for entry in sorted(fitting, key=lambda e: (e.it.vcpu, e.it.memory_mib)):
        over, undecided = [], False
        for r, left in remaining.items():
            if r == "nodes":
                continue
            have = _limit_capacity(entry, r)
            if have is None:
                if left <= 0:  # any instance holds at least one pod
                    over.append(f"{r} > {short_quantity(left, r)} left")
                else:
                    undecided = True
                    unknown.add(r)
            elif have > left:
                over.append(f"{r} {short_quantity(have, r)} > {short_quantity(left, r)} left")
        if not over and not undecided:
            return None, None
        if over:
            problem = problem or f"even the smallest fitting type, {entry.it.name}, needs " + ", ".join(over)
    if unknown:
        return (
            None,
            f"the catalog does not know the {', '.join(sorted(unknown))} capacity of the fitting types",
        )
    return problem, None


def limit_answer_of(remaining: Resources, fitting: tuple[IndexedType, ...]) -> LimitAnswer:
    """`limit_problem` as the limits answer of a pool with this much left whose types fit."""
    problem, unknown = limit_problem(remaining, fitting)
    if unknown is not None:
        return LimitAnswer("unknown", detail=unknown)
    return LimitAnswer("ok") if problem is None else LimitAnswer("over", problem)


def limit_parts(
    pool: NodePool,
    ref: TargetRef,
    remaining: str,
    answer: LimitAnswer,
    blockers: list[Blocker],
    checks: list[Check],
) -> None:
    """The limits check of a pool for a shape, and its blocker when what is left stops every fitting type
    (`remaining`: what is left, in words)."""
    if answer.state == "none":
        checks.append(Check("limits", True, "no limits"))
    elif answer.state == "forbidden":
        checks.append(Check("limits", None, "NodeClaims could not be read (forbidden): usage unknown"))
    elif answer.state == "unfitted":
        checks.append(Check("limits", None, f"remaining {remaining}"))
    elif answer.state == "unknown":
        checks.append(Check("limits", None, f"remaining {remaining}; {answer.detail}"))
    elif answer.problem is None:
        checks.append(Check("limits", True, f"remaining {remaining}"))
    else:
        name = pool.name
        limits = ", ".join(f"{k}={short_quantity(v, k)}" for k, v in sorted(pool.limits.items()))
        message = f"NodePool {name} limits ({limits}) are used up: {answer.problem}"
        fix = f"raise spec.limits of NodePool {name} (kubectl edit nodepool {name}) or free capacity in it"
        blockers.append(Blocker(Verdict.NODEPOOL_LIMIT_REACHED, CAPACITY, ref, message, fix))
        checks.append(Check("limits", False, message))
