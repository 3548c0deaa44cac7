"""The rules that make a pod's `Decision` (decision.py) from what the analysis found (analysis.py): first what
the pod decides alone (bound, gated, another scheduler, a nomination in flight: `own`), else what its shape's
ranked targets say, the same for every pod of the shape (`of_shape`): a NodeClaim in flight with room for it,
a Karpenter older than v1, a pod Karpenter ignores, no NodePool for its accelerator, the nearest target's first
blocker, or no blocker found (and whether every check could be made). Verifying the fix comes after
(verify/)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from kubectl_gpu.core.analyses.pending.checks.evaluation import TargetEvaluation
from kubectl_gpu.core.analyses.pending.checks.no_pool import no_pool_fix
from kubectl_gpu.core.analyses.pending.decision import Decision
from kubectl_gpu.core.analyses.pending.pod.evidence import provisioning, scheduled_fix, scheduled_not_started
from kubectl_gpu.core.analyses.pending.pod.gates import pod_decision
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.ranking import Ranked
from kubectl_gpu.core.analyses.pending.targets.nodes.existing import StateNodes
from kubectl_gpu.core.analyses.pending.verdicts import TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.evidence.model import ParsedMessage
from kubectl_gpu.core.k8s.models import Event, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.karpenter.legacy import legacy_karpenter

__all__ = ["Decider", "unverified_checks"]


class Decider:
    """The verdict rules of one analysis. `pool_names`: the cluster's NodePools (none: existing nodes are the
    targets); `state_nodes`: Karpenter's state nodes, where there are NodePools; `key`: a shape's key in the
    analysis (what a NodeClaim in flight is matched by)."""

    def __init__(
        self,
        state: ClusterState,
        catalog: Catalog,
        now: datetime,
        *,
        pool_names: Sequence[str],
        state_nodes: StateNodes | None,
        key: Callable[[PodShape], tuple[object, ...]],
    ) -> None:
        self.state = state
        self.catalog = catalog
        self.now = now
        self.pool_names = tuple(pool_names)
        self.state_nodes = state_nodes
        self.key = key
        self.unreadable = frozenset(n.kind for n in state.notes if n.code == "FORBIDDEN" and n.kind)
        self.legacy = legacy_karpenter(state)
        self._advertised: set[frozenset[str]] | None = None
        self._node_has: dict[frozenset[str], bool] = {}

    def node_has(self, shape: PodShape) -> bool:
        """Whether some node advertises every accelerator the shape wants (once per accelerator set)."""
        wanted = frozenset(shape.accelerators)
        found = self._node_has.get(wanted)
        if found is None:
            if self._advertised is None:  # the distinct sets of resources nodes advertise: a handful
                self._advertised = {
                    frozenset(r for r, v in n.allocatable.items() if v > 0) for n in self.state.nodes
                }
            found = self._node_has[wanted] = any(wanted <= have for have in self._advertised)
        return found

    def own(self, pod: Pod, parsed: list[tuple[Event, ParsedMessage]], ranked: Ranked) -> Decision | None:
        """A verdict the pod's own status or events decide (bound, gated, another scheduler, nominated), or
        None: then its shape decides (`of_shape`)."""
        nearest = ranked.nearest
        ref = nearest.target if nearest else None
        if pod.node_name:
            waiting = next(
                (c.reason for c in pod.container_statuses if c.state == "waiting" and c.reason), ""
            )
            return Decision(
                Verdict.SCHEDULED_NOT_STARTED,
                scheduled_not_started(pod),
                scheduled_fix(waiting or "", pod.node_name),
                TargetRef("Node", pod.node_name),
            )
        decided = pod_decision(pod)
        if decided is not None:
            return decided
        if (why := provisioning(self.state, pod, parsed, self.now)) is not None:
            return Decision(Verdict.PROVISIONING, why, "wait: capacity is on its way", ref)
        return None

    def of_shape(self, shape: PodShape, ranked: Ranked, skip: Decision | None) -> Decision:
        """The verdict of a pod that nothing of its own decides: its shape's, the same for every such pod."""
        nearest = ranked.nearest
        ref = nearest.target if nearest else None
        if self.state_nodes is not None and skip is None:
            room = self.state_nodes.room_in_flight(shape, self.key(shape))
            if room is not None:
                claim, note = room
                pool = f" of NodePool {claim.node_pool}" if claim.node_pool else ""
                why = f"NodeClaim {claim.name}{pool} is starting and has room for the pod" + (
                    f" ({note})" if note else ""
                )
                where = TargetRef("NodePool", claim.node_pool) if claim.node_pool else ref
                return Decision(Verdict.PROVISIONING, why, "wait: capacity is on its way", where)
        if self.legacy is not None and skip is None and not ranked.offering_pool:
            return self._legacy(ref)
        if skip is not None:
            if nearest is not None and not nearest.offers:  # its blockers are no reason: it lacks the device
                kinds = ", ".join(sorted(shape.accelerators)) or "accelerator devices in ResourceSlices (DRA)"
                return Decision(skip.verdict, f"{skip.reason}; no node has {kinds}", skip.fix, ref)
            if nearest is not None and nearest.blockers:
                return Decision(
                    skip.verdict,
                    f"{skip.reason}; the nearest, {nearest.blockers[0].message}",
                    skip.fix,
                    ref,
                )
            return Decision(skip.verdict, skip.reason, skip.fix, ref)
        if shape.wants_accelerator and not ranked.any_offering and not self.node_has(shape):
            return self._no_pool(shape)
        if nearest is not None and nearest.blockers:
            first = nearest.blockers[0]
            return Decision(first.code, first.message, first.fix, ref)
        shown = f"{ref.kind} {ref.name}" if ref else "no target"
        unchecked = unverified_checks(nearest, self.unreadable)
        if unchecked or nearest is None:
            return Decision(
                Verdict.UNVERIFIED,
                f"no blocker found on {shown}, but not every check could be made: "
                + "; ".join(unchecked or ["no target"]),
                "make the missing data readable (RBAC, the CRDs, a fuller snapshot) and rerun",
                ref,
            )
        reason = f"{shown} can serve this pod and nothing is in flight: see the evidence"
        if ref is not None and ref.kind == "Node" and self.pool_names:
            reason = (
                f"node {ref.name} has room for the pod: kube-scheduler places it there, and Karpenter launches "
                "nothing for a pod an existing node can take (see the evidence)"
            )
        fix = "kubectl describe pod and the provisioner's logs; rerun in a minute (the scheduler may not have retried yet)"
        return Decision(Verdict.NO_BLOCKER_FOUND, reason, fix, ref)

    def _legacy(self, ref: TargetRef | None) -> Decision:
        pools = (
            "no karpenter.sh/v1 NodePool"
            if not self.pool_names
            else "no karpenter.sh/v1 NodePool that offers it"
        )
        return Decision(
            Verdict.UNSUPPORTED_KARPENTER_VERSION,
            f"this cluster runs a Karpenter older than v1 ({self.legacy}) and has {pools}: kubectl-gpu "
            "evaluates karpenter.sh/v1 NodePools only, so it cannot say what blocks the pod",
            "check the v1alpha5 Provisioner by hand (kubectl describe provisioner), or upgrade Karpenter "
            "(https://karpenter.sh/docs/upgrading/v1beta1-migration/, then v1) and rerun",
            ref,
        )

    def _no_pool(self, shape: PodShape) -> Decision:
        kinds = ", ".join(sorted(shape.accelerators))
        if "nodepools" in self.unreadable:
            return Decision(
                Verdict.UNVERIFIED,
                f"NodePools could not be read (forbidden) and no node readable here has {kinds}: whether a "
                "NodePool can launch one is unknown",
                "grant list on nodepools.karpenter.sh (or rerun with a snapshot that has them)",
                None,
            )
        pools = ", ".join(sorted(self.pool_names)) or "none"
        reason = f"no NodePool can launch a node with {kinds} (NodePools: {pools}) and no node has it"
        return Decision(
            Verdict.NO_ACCELERATOR_NODEPOOL, reason, no_pool_fix(self.state, shape, self.catalog)[0]
        )


def unverified_checks(evaluation: TargetEvaluation | None, unreadable: frozenset[str]) -> list[str]:
    """Checks of the nearest target that could not be made, and kinds that could not be read."""
    out = [f"{c.name}: {c.detail}" for c in evaluation.checks if c.ok is None] if evaluation else []
    for kind in sorted(unreadable & {"nodepools", "nodes", "nodeclaims"}):
        out.append(f"{kind} could not be read (forbidden)")
    return out
