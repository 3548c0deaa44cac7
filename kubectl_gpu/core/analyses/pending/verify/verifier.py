"""Which fix a pod is offered, verified on a copy of the state (changes.py): the blocked pod's `Decision`.

The nearest target's first blocker is the verdict and its fix the fix, when that fix is verified: the blocker
is gone once the change is made. Of the `TRIED` nearest targets, the one whose verified fix gets furthest (the
pod launches, then only unknown checks, then capacity, then spec blockers left) is the one reported; when no
fix of theirs is verified, the nearest keeps its verdict, and a fix that was tried and does not remove its
blocker is not offered: the fix says so instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import msgspec

from kubectl_gpu.core.analyses.pending.decision import After, Decision, FixCheck
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape, shape_of
from kubectl_gpu.core.analyses.pending.ranking import Ranked
from kubectl_gpu.core.analyses.pending.targets.pools.target import PoolTarget
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef
from kubectl_gpu.core.analyses.pending.verify.changes import (
    after_of,
    new_pool_change,
    pod_change,
    pool_change,
    tolerations_patch,
)
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.changes import Change, changed_objects
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.taints import Taint

__all__ = ["TRIED", "Answering", "FixVerifier"]

#: How many of the nearest targets' fixes are tried for a blocked pod.
TRIED = 3

_SPEC = (3, 0)  # After.distance of an answer with a spec blocker left


class Answering(Protocol):
    """What the verifier needs of the analysis: the state, and a pod's answer once changed."""

    state: ClusterState
    catalog: Catalog

    def answer(self, pod: Pod) -> tuple[After, Ranked]: ...

    def pool_target(self, pool: NodePool) -> PoolTarget: ...

    def ignored(self, pod: Pod) -> Decision | None: ...


class FixVerifier:
    def __init__(self, analysis: Answering) -> None:
        self.analysis = analysis
        self._checks: dict[tuple[object, ...], FixCheck] = {}

    def settle(self, pod: Pod, shape: PodShape, ranked: Ranked, key: tuple[object, ...]) -> Decision:
        """The verdict of a blocked pod: the nearest target's first blocker, unless its fix was tried and does
        not remove it, or removes it and leaves a spec blocker; then the next of the `TRIED` nearest whose
        verified fix gets further and leaves no spec blocker, if any, never one that cannot offer the
        accelerator when the nearest can (a Neuron pod is not told to tolerate a GPU-only pool's taint, issue 37).
        A fix that is no change to the cluster (fix the NodeClass, wait for capacity) cannot be tried: the
        nearest keeps it."""
        nearest = ranked.first(TRIED)
        check = self.check(pod, shape, nearest[0].blockers[0], key)
        chosen = nearest[0]
        if check.verified is False or (check.verified and check.after and check.after.distance >= _SPEC):
            bar = check.after.distance if check.verified and check.after else (9, 9)
            for evaluation in nearest[1:]:
                if not evaluation.blockers or (nearest[0].offers and not evaluation.offers):
                    break  # nothing against it, or it cannot offer the accelerator: no fix there helps
                other = self.check(pod, shape, evaluation.blockers[0], key)
                if other.verified and other.after is not None and other.after.distance < min(bar, _SPEC):
                    chosen, check, bar = evaluation, other, other.after.distance
        first = chosen.blockers[0]
        fix = first.fix
        if check.verified is False and check.removed and check.after is not None:
            fix = (
                f"no change found that unblocks the pod on {first.target.kind} {first.target.name}: "
                f"{check.change} removes {first.code}, but {check.after.text()}; the fix it would have been: "
                f"{first.fix}"
            )
        elif check.verified is False:
            left = f" ({check.after.text()})" if check.after else ""
            fix = (
                f"no change found that removes {first.code} on {first.target.kind} {first.target.name}: "
                f"{check.change} leaves it{left}; the fix it would have been: {first.fix}"
            )
        return Decision(first.code, first.message, fix, chosen.target, check)

    def check(self, pod: Pod, shape: PodShape, blocker: Blocker, key: tuple[object, ...]) -> FixCheck:
        """The blocker's fix made on a copy, once per shape, target and code."""
        memo = (*key, blocker.target, blocker.code)
        found = self._checks.get(memo)
        if found is None:
            found = self._checks[memo] = self._check(pod, shape, blocker)
        return found

    def _made(self, change: Change, pod: Pod | None = None) -> Any:
        """The object the change makes, through the engine `simulate` uses (the state itself is not changed);
        `pod`: the pod a change to a pod is to."""
        return changed_objects(self.analysis.state, (change,), pods=(pod,) if pod is not None else ())[
            0
        ].model

    def _check(self, pod: Pod, shape: PodShape, blocker: Blocker) -> FixCheck:
        state = self.analysis.state
        if blocker.target.kind == "NodePool":
            pool = state.nodepool_by_name.get(blocker.target.name)
            changed = pool_change(pool, blocker) if pool is not None else None
            if changed is not None:
                patch, words = changed
                evaluation = self.analysis.pool_target(self._made(patch)).evaluate(shape)
                gone = blocker.code not in {b.code for b in evaluation.blockers}
                return FixCheck(gone, words, after_of(evaluation, self.analysis.catalog), changes=(patch,))
        moved = pod_change(pod, blocker, self._taints)
        if moved is None:
            return FixCheck(None, "not a change kubectl-gpu can make on a copy of the cluster")
        change, words = moved
        new_pod = self._made(change, pod) if isinstance(change, Change) else change
        made = (_shared(change),) if isinstance(change, Change) else ()
        after, ranked = self.analysis.answer(new_pod)
        target = ranked.find(blocker.target)
        gone = target is None or blocker.code not in {b.code for b in target.blockers}
        if gone and blocker.target.kind == "Node" and target is not None and target.blockers:
            # the node still does not take the pod (cordoned, no room): verified only when it does
            return FixCheck(False, words, after, removed=True, changes=made)
        return FixCheck(gone, words, after, changes=made)

    def _taints(self, ref: TargetRef) -> tuple[Taint, ...]:
        state = self.analysis.state
        if ref.kind == "NodePool":
            pool = state.nodepool_by_name.get(ref.name)
            return pool.taints if pool is not None else ()
        node = state.node_by_name.get(ref.name)
        return node.taints if node is not None else ()

    def new_pool(self, pod: Pod, manifest: dict[str, Any], added: tuple[Mapping[str, Any], ...]) -> FixCheck:
        """NO_ACCELERATOR_NODEPOOL: the proposed NodePool (and the tolerations the fix adds) made on a copy."""
        made = (new_pool_change(manifest), *((tolerations_patch(pod, added),) if added else ()))
        pool = self._made(made[0])
        tolerating = made[1] if added else None
        made = tuple(_shared(c) for c in made)
        assert isinstance(pool, NodePool)
        change = f"NodePool {pool.name} created as shown"
        ignored = self.analysis.ignored(pod)
        if ignored is not None:  # Karpenter provisions for no such pod, whatever the NodePools
            return FixCheck(False, change, After(ignored.verdict, None, None, ignored.reason), changes=made)
        shape = shape_of(self._made(tolerating, pod) if tolerating is not None else pod)
        evaluation = self.analysis.pool_target(pool).evaluate(shape)
        after = after_of(evaluation, self.analysis.catalog)
        return FixCheck(evaluation.offers, change, after, changes=made)


def _shared(change: Change) -> Change:
    """The change as a FixCheck keeps it: one check answers every pod of a shape, so a change to a pod names
    none (`PodDiagnosis.fix_changes` names the pod it is for)."""
    return msgspec.structs.replace(change, name="", namespace=None) if change.kind == "Pod" else change
