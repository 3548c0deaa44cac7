"""Nominated, NodeClaim, NodePool, disruption and termination events (EKS-FACTS §2.2)."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.evidence import (
    AssignmentFinding,
    Code,
    DisruptionFinding,
    FilteredFinding,
    Kind,
    NodeClaimFinding,
    NominationFinding,
    Source,
    StatusConditionFinding,
    parse_event_message,
)


@pytest.mark.parametrize(
    ("message", "nodeclaim", "node"),
    [
        ("Pod should schedule on: nodeclaim/gpu-ljvhl", "gpu-ljvhl", None),
        (
            "Pod should schedule on: nodeclaim/gpu-ljvhl, node/ip-10-0-1-2.ec2.internal",
            "gpu-ljvhl",
            "ip-10-0-1-2.ec2.internal",
        ),
        ("Pod should schedule on: node/i-0123456789abcdef0", None, "i-0123456789abcdef0"),
    ],
)
def test_nominated(message: str, nodeclaim: str | None, node: str | None) -> None:
    parsed = parse_event_message("Nominated", message, "eks-auto-mode/compute")
    assert (parsed.source, parsed.kind) == (Source.AUTO_MODE, Kind.NOMINATED)
    (finding,) = parsed.parts
    assert isinstance(finding, NominationFinding)
    assert (finding.code, finding.nodeclaim, finding.node) == (Code.NOMINATED, nodeclaim, node)


def test_auto_mode_nominated_doc_capture() -> None:
    parsed = parse_event_message(
        "Nominated", "Pod should schedule on: nodeclaim/gpu-inf-dynamic-ggsvc", "eks-auto-mode/compute"
    )
    assert parsed.render() == "nominated for nodeclaim/gpu-inf-dynamic-ggsvc"


def test_nodeclaim_events() -> None:
    ice = parse_event_message(
        "InsufficientCapacityError",
        "NodeClaim gpu-abcde event: creating instance, insufficient capacity, with fleet error(s), "
        "InsufficientInstanceCapacity: We currently do not have sufficient p5.48xlarge capacity in the Availability "
        "Zone you requested (us-east-1a).",
        "karpenter",
    )
    (finding,) = ice.parts
    assert isinstance(finding, NodeClaimFinding)
    assert (ice.kind, finding.code, finding.nodeclaim) == (
        Kind.NODECLAIM,
        Code.INSUFFICIENT_CAPACITY,
        "gpu-abcde",
    )
    assert finding.detail.startswith("creating instance, insufficient capacity")
    unknown_reason = parse_event_message(
        "", "NodeClaim gpu-abcde event: something else happened", "karpenter"
    )
    assert unknown_reason.codes == (Code.OTHER,)


def test_no_compatible_instance_types_without_min_values() -> None:
    parsed = parse_event_message(
        "NoCompatibleInstanceTypes",
        "NodePool requirements filtered out all compatible available instance types",
        None,
    )
    (finding,) = parsed.parts
    assert isinstance(finding, FilteredFinding)
    assert (parsed.kind, parsed.source, finding.min_values) == (Kind.NODEPOOL, Source.KARPENTER, False)


def test_disruption_budget_without_reason() -> None:
    (finding,) = parse_event_message(
        "DisruptionBlocked", "No allowed disruptions due to blocking budget", "karpenter"
    ).parts
    assert isinstance(finding, DisruptionFinding)
    assert (finding.code, finding.disruption_reason) == (Code.DISRUPTION_BUDGET, None)


@pytest.mark.parametrize(
    ("reason", "message", "code", "fields"),
    [
        (
            "DisruptionBlocked",
            'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
            Code.DO_NOT_DISRUPT,
            {"pod": None},
        ),
        (
            "DisruptionBlocked",
            'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ml/train-0)',
            Code.DO_NOT_DISRUPT,
            {"pod": "ml/train-0"},
        ),
        (
            "Unconsolidatable",
            'pod ml/train-0 has "karpenter.sh/do-not-disrupt" annotation',
            Code.DO_NOT_DISRUPT,
            {"pod": "ml/train-0"},
        ),
        (
            "DisruptionBlocked",
            "Pdb prevents pod evictions (PodDisruptionBudget=ml/train-pdb)",
            Code.PDB_BLOCKED,
            {"pdbs": ("ml/train-pdb",)},
        ),
        (
            "Unconsolidatable",
            "pdb ml/train-pdb prevents pod evictions",
            Code.PDB_BLOCKED,
            {"pdbs": ("ml/train-pdb",)},
        ),
        (
            "DisruptionBlocked",
            "eviction does not support multiple PDBs (Pod=ml/train-0)",
            Code.PDB_BLOCKED,
            {"pod": "ml/train-0", "pdbs": ()},
        ),
        (
            "DisruptionBlocked",
            "Cannot disrupt Node: pdb ml/train-pdb prevents pod evictions",
            Code.PDB_BLOCKED,
            {"target": "Node", "pdbs": ("ml/train-pdb",)},
        ),
        (
            "DisruptionBlocked",
            "node is nominated for a pending pod",
            Code.DISRUPTION_BLOCKED,
            {"detail": "node is nominated for a pending pod"},
        ),
        ("DisruptionBlocked", "node is deleting or marked for deletion", Code.DISRUPTION_BLOCKED, {}),
        (
            "Unconsolidatable",
            'Node does not have label "karpenter.sh/capacity-type"',
            Code.UNCONSOLIDATABLE,
            {"nodepool": None},
        ),
        (
            "Unconsolidatable",
            'NodePool "gpu" has consolidation disabled',
            Code.UNCONSOLIDATABLE,
            {"nodepool": "gpu"},
        ),
        (
            "DisruptionLaunching",
            "Launching NodeClaim: Underutilized",
            Code.DISRUPTING,
            {"target": "NodeClaim", "disruption_reason": "Underutilized"},
        ),
        (
            "DisruptionTerminating",
            "Disrupting Node: Expired",
            Code.DISRUPTING,
            {"target": "Node", "disruption_reason": "Expired"},
        ),
        (
            "DisruptionWaitingReadiness",
            "Waiting on readiness to continue disruption",
            Code.DISRUPTING,
            {"disruption_reason": None},
        ),
    ],
)
def test_disruption_family(reason: str, message: str, code: Code, fields: dict[str, object]) -> None:
    parsed = parse_event_message(reason, message, "karpenter")
    assert parsed.kind is Kind.DISRUPTION
    (finding,) = parsed.parts
    assert isinstance(finding, DisruptionFinding)
    assert finding.code is code
    for name, expected in fields.items():
        assert getattr(finding, name) == expected, name
    assert finding.render()


def test_termination_family() -> None:
    expiring = parse_event_message(
        "TerminationGracePeriodExpiring", "All pods will be deleted by 2026-08-21T10:00:00Z", None
    )
    draining = parse_event_message(
        "FailedDraining", "Failed to drain node, 3 pods are waiting to be evicted", None
    )
    assert (expiring.kind, draining.kind) == (Kind.TERMINATION, Kind.TERMINATION)
    assert expiring.render() == "all pods will be deleted by 2026-08-21T10:00:00Z"
    assert draining.codes == (Code.FAILED_DRAINING,)


def test_status_condition_and_scheduled() -> None:
    status = parse_event_message(
        "Ready",
        "Status condition transitioned, Type: Ready, Status: True -> False, Reason: NodeClassNotReady, Message: "
        "NodeClass is not ready",
        "karpenter",
    )
    (condition,) = status.parts
    assert isinstance(condition, StatusConditionFinding)
    assert (condition.condition, condition.from_status, condition.to_status) == ("Ready", "True", "False")
    assert (condition.condition_reason, condition.condition_message) == (
        "NodeClassNotReady",
        "NodeClass is not ready",
    )
    scheduled = parse_event_message("Scheduled", "Successfully assigned ml/train-0 to i-0123", None)
    (assignment,) = scheduled.parts
    assert isinstance(assignment, AssignmentFinding)
    assert (scheduled.source, assignment.pod, assignment.node) == (Source.SCHEDULER, "ml/train-0", "i-0123")


def test_unknown_event_is_unparsed() -> None:
    parsed = parse_event_message("BackOff", "Back-off restarting failed container", "kubelet")
    assert (parsed.source, parsed.kind, parsed.codes) == (Source.UNKNOWN, Kind.OTHER, (Code.UNPARSED,))
    assert parsed.parts[0].text == "Back-off restarting failed container"
    unknown_disruption = parse_event_message("DisruptionBlocked", "a brand new blocker", "karpenter")
    assert unknown_disruption.codes == (Code.DISRUPTION_BLOCKED,)


def test_render_does_not_repeat_a_nodepool_the_text_names() -> None:
    unconsolidatable = parse_event_message(
        "Unconsolidatable", 'NodePool "gpu" has consolidation disabled', None
    )
    assert unconsolidatable.render() == 'NodePool "gpu" has consolidation disabled'
    limits = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, node limits have been exhausted for nodepool (NodePool=gpu)",
        None,
    )
    assert limits.render() == "NodePool gpu: node limit of the NodePool exhausted"
