"""`kubectl gpu simulate`: the changes made on a copy of the cluster, every analysis run before and after
(`diagnose.run_suite`, the same prices for both), and the difference as effects.

A change the API server would refuse (a NodePool CRD rule) is refused here too, as `kubectl apply` would:
exit 2 with the rule's message, nothing simulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kubectl_gpu.core.analyses.diagnose import cluster_prices, run_suite
from kubectl_gpu.core.analyses.simulate.diff import (
    cost_effects,
    drift_pod_effects,
    finding_effects,
    lifecycle_effects,
    pending_effects,
)
from kubectl_gpu.core.analyses.simulate.drift import Drift, drifted_state, drifts
from kubectl_gpu.core.analyses.simulate.drivers import driver_effects
from kubectl_gpu.core.analyses.simulate.effects import Direction, Effect
from kubectl_gpu.core.analyses.simulate.pdbs import pdb_holds
from kubectl_gpu.core.analyses.simulate.report import SimulateFailOn, SimulateReport
from kubectl_gpu.core.analyses.simulate.validation import nodepool_refusals, nodepool_warnings
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.changes import Applied, Change, ChangeError, apply_changes
from kubectl_gpu.core.changes.fields import node_class_group
from kubectl_gpu.core.k8s.durations import timestamp
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.report import ObjectRef

__all__ = ["changed_cluster", "simulate"]

_GPU = "nvidia.com/gpu"


def _refuse(applied: Sequence[Applied]) -> list[Effect]:
    """Raise for a NodePool the API server would refuse; the warnings a change brings, as effects."""
    out = []
    for item in applied:
        if item.change.kind != "NodePool" or item.after is None:
            continue
        refusals = nodepool_refusals(item.after, item.before)
        if refusals:
            hint = "the API server refuses this change (the CRD's validation rules): fix it before applying"
            if item.change.action == "apply" and any("Required value" in r for r in refusals):
                hint += f"; if {item.change.source or 'the file'} holds only the fields to change, it is a patch: --type merge"
            raise ChangeError(
                f'{item.change.source}: The NodePool "{item.change.name}" is invalid: ' + "; ".join(refusals),
                hint,
            )
        auto = node_class_group(item.after) == "eks.amazonaws.com"
        old = set(nodepool_warnings(item.before, auto)) if item.before else set()
        for text in nodepool_warnings(item.after, auto):
            direction = Direction.UNCHANGED if text in old else Direction.WORSE
            out.append(Effect("validation", direction, ObjectRef("NodePool", item.change.name), text))
    return out


def _lifetime(after: ClusterState, pool: str) -> str:
    """How long the replacements live: the pool's expireAfter, and Auto Mode's 21-day cap over it."""
    model = after.nodepool_by_name.get(pool)
    if model is None:
        return ""
    ref = model.node_class_ref
    cap = (
        " (Auto Mode replaces them at 21 days at most)"
        if ref is not None and ref.group == "eks.amazonaws.com"
        else ""
    )
    return f"; the replacements expire after {model.expire_after or '720h'}{cap}"


def _drift_effects(found: Sequence[Drift], before: ClusterState, after: ClusterState) -> list[Effect]:
    out = []
    for d in found:
        pdbs = pdb_holds(before, d.gpu_pods)
        pace = "all at once" if d.per_wave is None else f"{d.per_wave} at a time"
        if d.first_at is None:
            pace = "blocked: no budget allows Drifted disruption in the next 35 days"
        elif d.per_wave is not None:
            pace += f", first at {timestamp(d.first_at)}"
        how = "replaces" if d.certain else "may replace (when the selector resolves to something new)"
        if d.reason == "NodePoolDeleted":
            how, pace = "deletes (its NodeClaims go with it; budgets do not apply)", "at once"
        held = f"; held by do-not-disrupt: {', '.join(d.blocked_by)}" if d.blocked_by else ""
        text = (
            f"{d.reason} ({', '.join(d.fields)}): {how} {len(d.nodes)} node(s) and {len(d.gpu_pods)} GPU pod(s), "
            f"{pace}{held}{_lifetime(after, d.pool)}; {pdbs.sentence()}"
        )
        fix = 'add a budget {nodes: "0", reasons: [Drifted]} outside a maintenance window before applying'
        out.append(
            Effect(
                "drift",
                Direction.WORSE,
                ObjectRef("NodePool", d.pool),
                text,
                fix,
                {"reason": d.reason, "pdbs": pdbs.detail()},
            )
        )
    return out


def _limit_effects(before: ClusterState, after: ClusterState) -> list[Effect]:
    """GPUs the pools' limits allow, where a change moved them (used: the pool's status.resources)."""
    out = []
    for pool in after.nodepools:
        old = before.nodepool_by_name.get(pool.name)
        was = old.limits.get(_GPU) if old else None
        now = pool.limits.get(_GPU)
        if old is None or was == now:
            continue
        used = pool.status_resources.get(_GPU, 0)
        room = "unlimited" if now is None else f"{max(now - used, 0)} more"
        text = f"GPU limit {was if was is not None else 'none'} -> {now if now is not None else 'none'}: {room} GPUs (in use {used})"
        detail = {
            "before": str(was) if was is not None else None,
            "after": str(now) if now is not None else None,
            "inUse": str(used),
        }
        out.append(
            Effect("capacity", Direction.UNCHANGED, ObjectRef("NodePool", pool.name), text, None, detail)
        )
    return out


def _storage_effects(before: ClusterState, after: ClusterState) -> list[Effect]:
    out = []
    for nc in after.nodeclasses:
        old = before.nodeclass_by_ref.get((nc.kind, nc.name))
        if old is None or old.ephemeral_storage_size == nc.ephemeral_storage_size:
            continue
        text = f"ephemeral storage {old.ephemeral_storage_text or old.ephemeral_storage_size} -> {nc.ephemeral_storage_text or nc.ephemeral_storage_size} (NVMe effects: see the nvme findings)"
        out.append(Effect("storage", Direction.UNCHANGED, ObjectRef(nc.kind, nc.name), text))
    return out


def _changed(
    state: ClusterState, changes: Sequence[Change], now: datetime
) -> tuple[ClusterState, tuple[Applied, ...], list[Effect], list[Drift]]:
    changed, applied = apply_changes(state, changes, now)
    effects = _refuse(applied)
    found = drifts(state, applied, now)
    return drifted_state(changed, found, now), applied, effects, list(found)


def changed_cluster(
    state: ClusterState, changes: Sequence[Change], now: datetime
) -> tuple[ClusterState, tuple[Applied, ...]]:
    """The cluster as `simulate` sees it after the changes (`explain --with`, the TUI's try): refused as the
    API server would refuse them (ChangeError), the nodes they drift replaced."""
    changed, applied, _, _ = _changed(state, changes, now)
    return changed, applied


def simulate(
    state: ClusterState,
    changes: Sequence[Change],
    catalog: Catalog,
    now: datetime,
    *,
    fail_on: SimulateFailOn = SimulateFailOn.regression,
) -> SimulateReport:
    """The report of `changes` made on `state`; ChangeError (exit 2) when one cannot be made or is refused."""
    changed, applied, effects, found = _changed(state, changes, now)
    prices = cluster_prices(state, catalog)
    before, after = (
        run_suite(state, catalog, now, prices=prices),
        run_suite(changed, catalog, now, prices=prices),
    )
    pending = pending_effects(before, after, catalog, prices)
    launched = [e for e in pending if e.direction is Direction.BETTER]
    deleted = [d for d in found if d.reason == "NodePoolDeleted"]
    gone = frozenset(n for d in deleted for n in d.nodes)
    gone_refs = frozenset([f"node/{n}" for n in gone] + [f"pod/{p}" for d in deleted for p in d.gpu_pods])
    effects += pending + finding_effects(before, after, gone_refs) + lifecycle_effects(before, after, gone)
    effects += (
        cost_effects(before, after, launched, now)
        + _drift_effects(found, state, changed)
        + drift_pod_effects(before, found)
    )
    effects += _limit_effects(state, changed) + _storage_effects(state, changed)
    effects += driver_effects(state, applied, before, catalog)
    return SimulateReport(applied, tuple(sorted(effects, key=Effect.sort_key)), tuple(found), now, fail_on)
