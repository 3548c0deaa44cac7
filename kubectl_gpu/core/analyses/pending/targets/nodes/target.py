"""An existing node as a target: would kube-scheduler place the pod shape on it, and if not, why."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubectl_gpu.core.accelerators.nodes import pods_unread, publishes_dra_accelerators
from kubectl_gpu.core.analyses.pending.checks.evaluation import (
    CAPACITY,
    SPEC,
    ZERO,
    Check,
    TargetEvaluation,
    selected_value,
    short_quantity,
    taint_list,
)
from kubectl_gpu.core.analyses.pending.checks.fixes import selector_fix, toleration_fix
from kubectl_gpu.core.analyses.pending.checks.removal import removal_advice
from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.analyses.pending.targets.nodes.checks import node_checks
from kubectl_gpu.core.analyses.pending.targets.nodes.quarantined import split_quarantine
from kubectl_gpu.core.analyses.pending.verdicts import Blocker, TargetRef, Verdict
from kubectl_gpu.core.catalog import Catalog, Provider
from kubectl_gpu.core.k8s.models import Node, NodeClaim
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.affinity import selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import Taint, pretty, tolerates, untolerated


@dataclass
class NodeTarget:
    """An existing node (kube-scheduler's view), or one of Karpenter's state nodes: a node, or a NodeClaim in
    flight as its own node (existing.py), with the taints Karpenter counts (`taints`)."""

    node: Node
    state: ClusterState
    provider: Provider
    catalog: Catalog
    taints: tuple[Taint, ...] | None = None  # None: the node's own
    claim: NodeClaim | None = None  # the NodeClaim in flight this target stands for
    ref: TargetRef = field(init=False)

    def __post_init__(self) -> None:
        self.ref = TargetRef("Node", self.node.name)

    @property
    def effective_taints(self) -> tuple[Taint, ...]:
        return self.node.taints if self.taints is None else self.taints

    def offers(self, shape: PodShape) -> bool:
        if not shape.wants_accelerator:  # a DRA pod: the nodes that publish accelerator devices, when known
            return not shape.claims or publishes_dra_accelerators(self.state, self.node.name) is not False
        return all(self.node.allocatable.get(r, ZERO) > 0 for r in shape.accelerators)

    def evaluate(self, shape: PodShape) -> TargetEvaluation:
        node = self.node
        blockers: list[Blocker] = []
        checks: list[Check] = []
        # The cordon taint is the cordon's (the node lifecycle controller mirrors spec.unschedulable into it):
        # said once, as the cordon below, never as a toleration to add.
        missing = tuple(
            t for t in untolerated(shape.tolerations, self.effective_taints) if t.key != UNSCHEDULABLE
        )
        missing, quarantined = split_quarantine(node, missing, self.ref)  # never a toleration to add
        replacing = disruption_blocks(missing)  # Karpenter's own taint: a node going away, not a toleration
        missing = tuple(t for t in missing if t.key != DISRUPTED)
        if quarantined is not None:
            blockers.append(quarantined)
            checks.append(Check("quarantine", False, quarantined.message))
        if missing:
            blockers.append(
                Blocker(
                    Verdict.MISSING_TOLERATION,
                    SPEC,
                    self.ref,
                    f"pod does not tolerate {taint_list(missing)} of node {node.name}",
                    toleration_fix(missing),
                    {"taints": [pretty(t) for t in missing]},
                )
            )
            checks.append(Check("taints", False, f"untolerated: {taint_list(missing)}"))
        else:
            checks.append(Check("taints", True, "tolerated" if self.effective_taints else "no taints"))
        try:
            matched, why = selector_matches(
                shape.node_selector, shape.node_affinity, node.labels, node_name=node.name
            )
        except RequirementError as exc:
            matched, why = False, f"the pod's node affinity cannot be read: {exc}"
        if not matched:
            blockers.append(self._selector_blocker(shape, why))
            checks.append(Check("selectors", False, why))
        else:
            checks.append(Check("selectors", True, "nodeSelector and affinity match"))
        requested = self.state.requested_by_node.get(node.name, {})
        short = []
        for resource, wanted in shape.accelerators.items():
            free = node.allocatable.get(resource, ZERO) - requested.get(resource, ZERO)
            if free < wanted:
                short.append(
                    f"{resource}: {short_quantity(max(free, ZERO), resource)} free, {short_quantity(wanted, resource)} wanted"
                )
        cordoned = cordon_blocks(shape, node, self.effective_taints)
        short += [why for why in (cordoned, replacing) if why]
        if short:
            blockers.append(
                Blocker(
                    Verdict.INSUFFICIENT_ACCELERATOR,
                    CAPACITY,
                    self.ref,
                    f"node {node.name}: " + "; ".join(short),
                    _capacity_fix(short, cordoned, replacing, node.name),
                )
            )
            checks.append(Check("free accelerators", False, "; ".join(short)))
        elif shape.accelerators and (unread := pods_unread(self.state)) is not None:
            # What the pods read request is a lower bound: "enough" is unknown, "too few" was a fact.
            checks.append(Check("free accelerators", None, f"free unknown: {unread}"))
        else:
            checks.append(Check("free accelerators", True, "enough free"))
        unreadable = frozenset(n.kind for n in self.state.notes if n.code == "FORBIDDEN" and n.kind)
        more, more_checks = node_checks(self.state, shape, node, self.ref, unreadable)
        blockers += more
        checks += more_checks
        blockers.sort(key=lambda b: b.rank)
        return TargetEvaluation(self.ref, self.offers(shape), tuple(blockers), tuple(checks))

    def _selector_blocker(self, shape: PodShape, why: str) -> Blocker:
        keys = [k for k in _selector_keys(shape) if k not in self.node.labels]
        for key in keys:
            other = self.catalog.other_provider_key(key)
            if other is not None and other in self.node.labels:
                return Blocker(
                    Verdict.LABEL_NAMESPACE_MISMATCH,
                    SPEC,
                    self.ref,
                    f"pod selects {key}; node {self.node.name} carries {other} instead",
                    selector_fix(key, other, selected_value(shape, key)),
                )
        if keys and not any(k in n.labels for k in keys for n in self.state.nodes):
            return Blocker(
                Verdict.UNKNOWN_LABEL,
                SPEC,
                self.ref,
                f"pod selects {', '.join(keys)}, which no node carries",
                f"{'; '.join(removal_advice(shape, k) for k in keys)}; or label the nodes that should run this pod",
            )
        return Blocker(
            Verdict.REQUIREMENT_CONFLICT,
            SPEC,
            self.ref,
            f"node {self.node.name}: {why}",
            "change the pod's nodeSelector/affinity to values the GPU nodes carry (kubectl get nodes --show-labels)",
        )


UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_CORDON_TAINT = Taint(UNSCHEDULABLE, "", "NoSchedule")
_ACCELERATOR_FIX = (
    "free accelerators on this node (kubectl gpu nodes shows who holds them), uncordon it once it is healthy, or "
    "add GPU capacity (a NodePool with Karpenter/Auto Mode, or a larger node group)"
)
_CORDON_FIX = (
    "the node is cordoned: uncordon it once it is healthy (kubectl uncordon {node}), or wait for the repair or "
    "drain that cordoned it; a toleration of node.kubernetes.io/unschedulable would only place the pod on a node "
    "taken out of service"
)


#: Karpenter's disruption taint (kubernetes-sigs/karpenter pkg/apis/v1/taints.go DisruptedNoScheduleTaint): put on
#: a node it is consolidating, replacing for drift or expiry, or deleting; the node drains and goes away.
DISRUPTED = "karpenter.sh/disrupted"
_DISRUPTED_FIX = (
    "the node is being replaced by Karpenter (consolidation, drift or expiry: kubectl gpu lifecycle says which): "
    "wait for the pod to be placed on its replacement or another node; a toleration of karpenter.sh/disrupted "
    "would only place the pod on a node that is going away"
)


def disruption_blocks(untolerated_taints: tuple[Taint, ...]) -> str | None:
    """Why a node Karpenter is disrupting does not take the pod (it carries karpenter.sh/disrupted), or None."""
    if any(t.key == DISRUPTED for t in untolerated_taints):
        return "node is being replaced by Karpenter (karpenter.sh/disrupted:NoSchedule)"
    return None


def _capacity_fix(short: list[str], cordoned: str | None, replacing: str | None, node: str) -> str:
    """The fix of a node's capacity blocker: the cordon's or the disruption's when that is all there is."""
    if len(short) == 1 and short[0] == cordoned:
        return _CORDON_FIX.format(node=node)
    if len(short) == 1 and short[0] == replacing:
        return _DISRUPTED_FIX
    return _ACCELERATOR_FIX


def cordon_blocks(shape: PodShape, node: Node, taints: tuple[Taint, ...]) -> str | None:
    """kube-scheduler `nodeunschedulable` Filter: a node with `spec.unschedulable` (or the cordon taint the
    node lifecycle controller puts on it) takes only a pod that tolerates
    `node.kubernetes.io/unschedulable:NoSchedule`; why it does not take this one, or None."""
    if not node.unschedulable and not any(t.key == UNSCHEDULABLE for t in taints):
        return None
    if tolerates(shape.tolerations, _CORDON_TAINT):
        return None
    return "node is cordoned (spec.unschedulable)"


def _selector_keys(shape: PodShape) -> list[str]:
    keys = list(shape.node_selector)
    if shape.requirements is not None:
        keys += [k for k in shape.requirements.strict if k not in keys]
    return keys
