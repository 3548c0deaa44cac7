"""Pending analysis: which pods, which targets, the nearest target, the verdict, the evidence."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import partial

import msgspec

from kubectl_gpu.core.accelerators.resources import accelerator_requests
from kubectl_gpu.core.analyses.pending.checks.no_pool import no_pool_fix
from kubectl_gpu.core.analyses.pending.decide import Decider
from kubectl_gpu.core.analyses.pending.decision import After, Decision
from kubectl_gpu.core.analyses.pending.disagreements import disagreements
from kubectl_gpu.core.analyses.pending.pod.evidence import (
    evidence_row,
    pod_events,
)
from kubectl_gpu.core.analyses.pending.pod.gates import provisioner_skip
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape, shape_of
from kubectl_gpu.core.analyses.pending.pod.shapes import ShapeKey, owner_key, shape_key
from kubectl_gpu.core.analyses.pending.ranking import Entry, Evaluated, Ranked
from kubectl_gpu.core.analyses.pending.report import ExplainReport, PendingReport, PodDiagnosis
from kubectl_gpu.core.analyses.pending.targets.nodes.existing import StateNodes
from kubectl_gpu.core.analyses.pending.targets.nodes.target import NodeTarget
from kubectl_gpu.core.analyses.pending.targets.pools.conditions import capacity_events_key
from kubectl_gpu.core.analyses.pending.targets.pools.kinds import PoolKinds
from kubectl_gpu.core.analyses.pending.targets.pools.memo import PoolMemo
from kubectl_gpu.core.analyses.pending.targets.pools.target import PoolTarget
from kubectl_gpu.core.analyses.pending.verdicts import Verdict
from kubectl_gpu.core.analyses.pending.verify.changes import cheapest
from kubectl_gpu.core.analyses.pending.verify.verifier import FixVerifier
from kubectl_gpu.core.catalog import Catalog, Provider
from kubectl_gpu.core.evidence.model import ParsedMessage
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.provider import cluster_provider
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from kubectl_gpu.core.scheduling.taints import suggest_toleration

__all__ = ["analyse", "analyse_pending", "explain", "in_scope"]


def in_scope(pod: Pod, *, all_pending: bool) -> bool:
    """Pending pods that want an accelerator (device plugin resources or DRA claims), or all with --all-pending."""
    if pod.phase != "Pending" or pod.meta.annotations.get("kubectl-gpu.io/ignore") == "true":
        return False
    if all_pending:
        return True
    return bool(accelerator_requests(pod.requests)) or bool(pod.resource_claims)


class _ShapeAnswer(msgspec.Struct):
    """What the pods of one shape key share: evaluated once (`_Analyser.diagnose`)."""

    shape: PodShape
    skip: Decision | None
    ranked: Ranked
    notes: tuple[str, ...]
    settled: Decision | None = None  # the shape's decision with its fix verified, once a pod needs it


class _Analyser:
    def __init__(
        self,
        state: ClusterState,
        catalog: Catalog,
        now: datetime,
        *,
        share_pools: bool = True,
        group_shapes: bool = True,
        share_unnamed: bool = True,
    ) -> None:
        self.state = state
        self.catalog = catalog
        self.now = now
        provider = self.provider = cluster_provider(state)
        memo = self._memo = (
            PoolMemo()
        )  # pools of a kind share their work (targets/pools: memo.py, template.py)
        self.pools = [
            PoolTarget(
                pool,
                state,
                catalog,
                InstanceIndex.of(catalog, _pool_provider(pool, provider)),
                now,
                memo if share_pools else PoolMemo(),
            )
            for pool in state.nodepools
        ]
        self.share_pools = share_pools
        self.kinds = PoolKinds(self.pools if share_pools else (), share_unnamed=share_unnamed)
        self.nodes = [NodeTarget(n, state, provider, catalog) for n in state.nodes]
        # Karpenter's state nodes (targets/nodes/existing.py): tried before any NodePool, so only where there are some.
        self.state_nodes = StateNodes(state, provider, catalog, now) if self.pools else None
        self.cache: dict[tuple[object, ...], Ranked] = {}
        self._shapes: dict[ShapeKey, _ShapeAnswer] = {}
        self._by_parts: dict[tuple[object, ...], tuple[tuple[object, ...], _ShapeAnswer]] = {}
        self.group_shapes = group_shapes
        self.anti_affinity = bool(state.placed_with_anti_affinity)
        self._parsed: dict[tuple[str, str, str | None], ParsedMessage] = {}
        self.decider = Decider(
            state,
            catalog,
            now,
            pool_names=[p.pool.name for p in self.pools],
            state_nodes=self.state_nodes,
            key=partial(self._key, nodes_only=False),
        )
        self.verifier = FixVerifier(self)
        self._pool_targets: dict[int, PoolTarget] = {}

    def _targets(self, shape: PodShape, key: tuple[object, ...]) -> list[Entry]:
        """NodePools when there are any, after the existing nodes that have room for the pod (Karpenter tries
        them first and launches nothing then; kube-scheduler places the pod); existing nodes otherwise, and
        also when no NodePool can offer the accelerator but some node has it (MIG slices, hand-made GPU
        nodes next to Karpenter)."""
        if not self.pools:
            return self._nodes(shape)
        targets: list[Entry] = (
            self.kinds.entries(shape)
            if self.share_pools
            else [Entry.single(p.candidate(shape)) for p in self.pools]
        )
        if shape.wants_accelerator and not any(p.offers(shape) for p in self.pools):
            targets += [Entry.single(Evaluated(n.evaluate(shape))) for n in self.nodes if n.offers(shape)]
        elif self.state_nodes is not None:
            targets += [Entry.single(Evaluated(e)) for e in self.state_nodes.fitting(shape, key)]
        return targets

    def _nodes(self, shape: PodShape) -> list[Entry]:
        return [Entry.single(Evaluated(n.evaluate(shape))) for n in self.nodes]

    def _key(self, shape: PodShape, *, nodes_only: bool) -> tuple[object, ...]:
        key = (*shape.key, nodes_only)
        if self.anti_affinity:  # a placed pod's required anti-affinity may select this one by its labels
            key = (*key, shape.namespace, shape.labels)
        return key

    def evaluate(self, shape: PodShape, *, nodes_only: bool = False) -> Ranked:
        key = self._key(shape, nodes_only=nodes_only)
        found = self.cache.get(key)
        if found is None:
            if nodes_only:
                found = Ranked(self._nodes(shape))
            else:
                found = Ranked(self._targets(shape, key), self.kinds.reword(shape) if self.pools else None)
            self.cache[key] = found
        return found

    def diagnose(self, pod: Pod) -> PodDiagnosis:
        """The pod's answer: what its shape decides is worked out once per shape (`shapes.shape_key`), what
        its events decide (a nomination in flight) and its status (bound, waiting) per pod."""
        common = self._shape_answer(pod)
        ranked = common.ranked
        parsed = pod_events(self.state, pod, self._parsed)
        own = self.decider.own(pod, parsed, ranked)
        if own is None:
            if common.settled is None:
                common.settled = self._settled(
                    pod, common, self.decider.of_shape(common.shape, ranked, common.skip)
                )
            decision = common.settled
        else:
            decision = self._settled(pod, common, own)
        return PodDiagnosis(
            namespace=pod.namespace,
            name=pod.name,
            requests=common.shape.requests,
            decision=decision,
            evidence=tuple(evidence_row(e, m) for e, m in parsed),
            ranked=ranked,
            disagreements=disagreements(parsed, ranked, decision.verdict),
            notes=common.notes,
            created=pod.meta.created,
            owner=owner_key(pod),
        )

    def _shape_answer(self, pod: Pod) -> _ShapeAnswer:
        """The shape's targets, ranked, and its notes, once per shape key."""
        if not self.group_shapes:
            return self._shape_answer_by_key(pod, ("pod", id(pod)))
        # Replicas parsed from one template hold its requests, tolerations and affinity as one object each
        # (pods_fast.py): by those objects, a pod's shape is found without building and hashing its key.
        held = (pod.requests, pod.tolerations, pod.node_affinity, pod.placement)
        fast = (
            *map(id, held),
            tuple(pod.node_selector.items()),
            pod.namespace,
            tuple(pod.meta.labels.items()) if self.anti_affinity or pod.placement else None,
            pod.scheduler_name,
            pod.scheduling_gates,
            pod.resource_claims,
            pod.node_name,
            pod.phase,
        )
        kept = self._by_parts.get(fast)
        if kept is not None:
            return kept[1]
        found = self._shape_answer_by_key(pod, shape_key(pod, labels=self.anti_affinity))
        self._by_parts[fast] = (held, found)  # holds the parts: their ids are not reused while it is kept
        return found

    def _shape_answer_by_key(self, pod: Pod, key: ShapeKey) -> _ShapeAnswer:
        found = self._shapes.get(key)
        if found is None:
            shape = shape_of(pod)
            skip = (
                None
                if pod.node_name
                else provisioner_skip(pod, has_pools=bool(self.pools), provider=self.provider)
            )
            ranked = self.evaluate(shape, nodes_only=skip is not None)
            found = self._shapes[key] = _ShapeAnswer(shape, skip, ranked, tuple(self._notes(pod, shape)))
        return found

    def _settled(self, pod: Pod, common: _ShapeAnswer, found: Decision) -> Decision:
        check = self._settle(pod, common.shape, common.ranked, common.skip, found)
        return found if check is None else check

    def _settle(
        self,
        pod: Pod,
        shape: PodShape,
        ranked: Ranked,
        skip: Decision | None,
        found: Decision,
    ) -> Decision | None:
        """The verdict with its fix verified (verify/verifier.py), when the verdict is a target's blocker or
        NO_ACCELERATOR_NODEPOOL; None otherwise (nothing to change, or not the provisioner's to place)."""
        verdict, fix, ref = found.verdict, found.fix, found.target
        nearest = ranked.nearest
        blocked = nearest is not None and bool(nearest.blockers) and ref == nearest.target
        if blocked and skip is None and not pod.node_name and nearest and verdict is nearest.blockers[0].code:
            return self.verifier.settle(pod, shape, ranked, self._key(shape, nodes_only=False))
        if verdict is Verdict.NO_ACCELERATOR_NODEPOOL:
            _, manifest, taints = no_pool_fix(self.state, shape, self.catalog)
            if manifest is not None:
                check = self.verifier.new_pool(pod, manifest, tuple(suggest_toleration(t) for t in taints))
                if check.verified is False and check.after is not None:  # never offered: it cannot help
                    fix = (
                        f"no change found that lets a NodePool launch it: {check.change} leaves "
                        f"{check.after.verdict} ({check.after.message}); request the accelerators in separate "
                        "pods, or add nodes that have them all"
                    )
                return Decision(verdict, found.reason, fix, ref, check)
        return None

    def answer(self, pod: Pod) -> tuple[After, Ranked]:
        """A changed pod's verdict, without evidence (verify/verifier.py)."""
        shape = shape_of(pod)
        skip = provisioner_skip(pod, has_pools=bool(self.pools), provider=self.provider)
        ranked = self.evaluate(shape, nodes_only=skip is not None)
        found = self.decider.own(pod, [], ranked) or self.decider.of_shape(shape, ranked, skip)
        verdict, ref = found.verdict, found.target
        nearest = ranked.nearest
        instance = None
        launches = verdict is Verdict.NO_BLOCKER_FOUND and ref is not None and ref.kind == "NodePool"
        if launches and nearest is not None and ref == nearest.target and not nearest.blockers:
            instance = cheapest(self.catalog, nearest.fitting_types)
        return After(verdict, ref, instance, found.reason), ranked

    def ignored(self, pod: Pod) -> Decision | None:
        """Why Karpenter would not provision for the pod even with a NodePool for it (verify/verifier.py)."""
        return provisioner_skip(pod, has_pools=True, provider=self.provider)

    def pool_target(self, pool: NodePool) -> PoolTarget:
        """A NodePool changed by a fix, as a target of its own (its own memo: nothing shared is changed)."""
        found = self._pool_targets.get(id(pool))
        if found is None or found.pool is not pool:
            index = InstanceIndex.of(self.catalog, _pool_provider(pool, self.provider))
            memo = PoolMemo()
            memo.adopt(self._memo, capacity_events_key(self.now))  # the cluster's, not the pool's
            found = PoolTarget(pool, self.state, self.catalog, index, self.now, memo)
            self._pool_targets[id(pool)] = found
        return found

    def _notes(self, pod: Pod, shape: PodShape) -> list[str]:
        notes = list(shape.requirements.notes) if shape.requirements else []
        if shape.requirement_error:
            notes.append(f"pod affinity could not be read: {shape.requirement_error}")
        if pod.resource_claims and not shape.accelerators:
            notes.append(
                "the pod uses DRA ResourceClaims: device availability is checked against ResourceSlices by the "
                "scheduler; this analysis evaluates its selectors and tolerations only"
            )
        affecting = _AFFECTING | (_VOLUME_KINDS if shape.placement.claims else frozenset())
        if self.pools:
            affecting |= _POOL_KINDS
        notes += [n.message for n in self.state.notes if n.code == "FORBIDDEN" and n.kind in affecting]
        return notes


# Forbidden kinds whose absence changes a pending verdict: each affected pod says so in its own entry.
_AFFECTING = frozenset({"nodepools", "nodeclaims", "nodes", "events", "nodeclasses", "ec2nodeclasses"})
_VOLUME_KINDS = frozenset(
    {"persistentvolumeclaims", "persistentvolumes", "storageclasses"}
)  # pods with claims
_POOL_KINDS = frozenset({"daemonsets", "nodeoverlays"})  # every NodePool's instance fit


def _pool_provider(pool: object, default: Provider) -> Provider:
    ref = getattr(pool, "node_class_ref", None)
    if ref is not None and ref.group == "eks.amazonaws.com":
        return "auto"
    if ref is not None and ref.group == "karpenter.k8s.aws":
        return "karpenter"
    return default


# Worst first: verdicts that need a human before verdicts that will sort themselves out.
_SEVERITY = {v: i for i, v in enumerate(Verdict)}


def analyse_pending(
    state: ClusterState,
    catalog: Catalog,
    now: datetime,
    *,
    all_pending: bool = False,
    pods: Iterable[Pod] | None = None,
    share_pools: bool = True,
    group_shapes: bool = True,
    share_unnamed: bool = True,
) -> PendingReport:
    """`share_pools=False` evaluates each NodePool on its own, `group_shapes=False` each pod on its own
    (no answer shared by shape key), `share_unnamed=False` each shape that names a NodePool on its own
    (targets/pools/unnamed.py): the references the tests hold the shared evaluations to."""
    analyser = _Analyser(
        state,
        catalog,
        now,
        share_pools=share_pools,
        group_shapes=group_shapes,
        share_unnamed=share_unnamed,
    )
    chosen = (
        list(pods)
        if pods is not None
        else [p for p in state.listed_pods if in_scope(p, all_pending=all_pending)]
    )
    results = [analyser.diagnose(p) for p in chosen]
    results.sort(key=lambda d: (not d.verdict.blocking, _SEVERITY[d.verdict], d.namespace, d.name))
    unlisted = next((n.message for n in state.notes if n.code == "FORBIDDEN" and n.kind == "pods"), None)
    return PendingReport(tuple(results), now, "nodepools" if analyser.pools else "nodes", unlisted)


def analyse(
    state: ClusterState, catalog: Catalog, now: datetime, *, all_pending: bool = False
) -> PendingReport:
    """Every Pending pod in scope that wants an accelerator (every Pending pod with `all_pending`)."""
    return analyse_pending(state, catalog, now, all_pending=all_pending)


def explain(state: ClusterState, catalog: Catalog, now: datetime, pod: Pod) -> ExplainReport:
    """One Pending pod, target by target."""
    return ExplainReport(analyse_pending(state, catalog, now, pods=[pod]))
