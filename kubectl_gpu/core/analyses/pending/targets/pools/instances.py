"""A NodePool's instance types for a pod shape: which hold it, and in what words a pool none of whose types
does is blocked (the template's part that `PoolTarget._instance_answer` shares)."""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.checks.evaluation import SPEC, Check, resources_text, type_names
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.pools.facts import PoolFacts, failure
from kubectl_gpu.core.analyses.pending.targets.pools.template import POOL, POOL_REF
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, Verdict
from kubectl_gpu.core.scheduling.instances import IndexedType
from kubectl_gpu.core.scheduling.requirements import Requirements

__all__ = ["instance_blockers"]


def instance_blockers(
    target: PoolFacts,
    shape: PodShape,
    pod_reqs: Requirements,
    blockers: list[Blocker],
    checks: list[Check],
) -> tuple[IndexedType, ...]:
    """The "instance types" check of the pool for the shape with `pod_reqs` (its attempt), and the
    NO_INSTANCE_TYPE_FITS blocker when no type holds it; the types left for the pool checks."""
    if not shape.wants_accelerator:
        checks.append(
            Check("instance types", None, "not evaluated: the catalog lists accelerated types only")
        )
        return ()
    pool_types = target.types
    with_pod, fitting, known, found = target.fitting(shape, pod_reqs)
    if found is not None:
        checks.append(found)
        return known or fitting
    detail: dict[str, object] = {}
    if not pool_types or not target.offers(shape):
        kinds = ", ".join(sorted(shape.accelerators))
        message = f"NodePool {POOL} launches no instance type with {kinds}"
        if pool_types:
            message += f" (it admits {_type_names(target, pool_types)})"
        fix = (
            f"use a NodePool whose requirements admit instance types with {kinds}, or create one "
            f"(see NO_ACCELERATOR_NODEPOOL in the README)"
        )
    elif not with_pod:
        message = (
            f"no instance type satisfies both NodePool {POOL} (admits {_type_names(target, pool_types)}) "
            f"and the pod's selectors"
        )
        fix = f"relax the pod's instance selectors or add matching families to NodePool {POOL}"
        detail = {"podSelector": True}  # the pod's own selectors exclude this pool (ranking.nearness)
    else:
        # The words' parts once per what they read. The largest type: the fit group's capacities (`fit`) of
        # types the memo holds, in the order the shape names them.
        memo = target.memo
        names = tuple(shape.accelerators)
        largest = memo.shared(
            ("largest", target.group, id(with_pod), names),
            lambda: max(with_pod, key=lambda e: tuple(target.fit.capacity(e, r) for r in names)),
        )
        why = failure(target, largest, shape)
        wanted = memo.shared(
            ("requests text", memo.requests_id(shape), tuple(shape.requests)),  # in the shape's order
            lambda: resources_text(shape.requests),
        )
        message = (
            f"no instance type in NodePool {POOL} has room for {wanted}: the largest, "
            f"{largest.it.name}, offers less ({why})"
        )
        fix = "request fewer accelerators per pod (shard the workload) or admit larger instance types"
    blockers.append(Blocker(Verdict.NO_INSTANCE_TYPE_FITS, SPEC, POOL_REF, message, fix, detail))
    checks.append(Check("instance types", False, message))
    return ()


def _type_names(target: PoolFacts, types: tuple[IndexedType, ...]) -> str:
    """`type_names` of the pool's types, once per tuple (pools that admit alike share theirs: `_admitted`)."""
    return target.memo.shared(("type names", id(types)), lambda: type_names(types))
