"""Every event line of the real fixtures in tests/fixtures/events/ (copies of the shared set, see NOTICE)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_gpu.core.evidence import (
    AssignmentFinding,
    Code,
    DisruptionFinding,
    Kind,
    NominationFinding,
    ParsedMessage,
    ResourceFinding,
    Source,
    StatusConditionFinding,
    parse_event_message,
)

from ._eventlog import EventLine, read_events

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "events"


def _parse(name: str) -> list[tuple[EventLine, ParsedMessage]]:
    events = read_events(FIXTURES / name)
    assert events
    return [(event, parse_event_message(event.reason, event.message, event.component)) for event in events]


def test_every_fixture_has_its_provenance_line() -> None:
    lines = (FIXTURES / "PROVENANCE.jsonl").read_text(encoding="utf-8").splitlines()
    listed = {Path(json.loads(line)["file"]).name for line in lines}
    present = {path.name for path in FIXTURES.glob("*.txt")}
    assert listed == present
    assert (FIXTURES / "NOTICE").is_file()


def test_gpu_operator_kubelet_events_are_unparsed() -> None:
    parsed = _parse("cloud-native-docs__gpu-operator-time-slicing__kubectl-get-events.txt")
    assert len(parsed) == 24
    assert {event.reason for event, _ in parsed} == {"Created", "Started", "Pulled"}
    for event, result in parsed:
        assert (result.source, result.kind, result.codes) == (Source.UNKNOWN, Kind.OTHER, (Code.UNPARSED,))
        assert result.parts[0].text == event.message
        assert event.object is not None and event.object.startswith("pod/")


def test_data_on_eks_describe_pod_gpu_nominated() -> None:
    parsed = _parse("data-on-eks__describe-pod-events__karpenter-gpu-nominated.txt")
    assert [(event.reason, event.component) for event, _ in parsed] == [
        ("FailedScheduling", "default-scheduler"),
        ("Nominated", "karpenter"),
        ("Scheduled", "default-scheduler"),
        ("Pulled", "kubelet"),
        ("Created", "kubelet"),
        ("Started", "kubelet"),
        ("Pulled", "kubelet"),
        ("Created", "kubelet"),
        ("Started", "kubelet"),
    ]
    failed, nominated, scheduled, *kubelet = (result for _, result in parsed)

    assert (failed.source, failed.kind, failed.total_nodes) == (Source.SCHEDULER, Kind.FAILED_SCHEDULING, 8)
    assert [(p.code, p.count, p.resource) for p in failed.parts if isinstance(p, ResourceFinding)] == [
        (Code.INSUFFICIENT_RESOURCE, 1, "cpu"),
        (Code.INSUFFICIENT_RESOURCE, 3, "memory"),
        (Code.INSUFFICIENT_RESOURCE, 8, "nvidia.com/gpu"),
    ]
    assert len(failed.parts) == 3
    assert failed.preemption is not None
    assert failed.preemption.total_nodes == 8
    assert failed.preemption.reasons == ((8, "No preemption victims found for incoming pod"),)

    (nomination,) = nominated.parts
    assert isinstance(nomination, NominationFinding)
    assert (nominated.source, nomination.nodeclaim, nomination.node) == (Source.KARPENTER, "gpu-ljvhl", None)

    (assignment,) = scheduled.parts
    assert isinstance(assignment, AssignmentFinding)
    assert assignment.pod == "stablediffusion/stablediffusion-raycluster-ms6pl-worker-gpu-85d22"
    assert assignment.node == "ip-100-64-136-72.us-west-2.compute.internal"

    assert {result.codes for result in kubelet} == {(Code.UNPARSED,)}


def test_eks_workshop_auto_mode_disruption() -> None:
    parsed = _parse("eks-workshop__automode__kubectl-events-disruption.txt")
    assert [(event.reason, event.object, result.codes) for event, result in parsed] == [
        ("DisruptionBlocked", "nodeclaim/general-purpose-5c74h", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionLaunching", "nodeclaim/general-purpose-l6dpl", (Code.DISRUPTING,)),
        ("DisruptionWaitingReadiness", "nodeclaim/general-purpose-l6dpl", (Code.DISRUPTING,)),
        ("DisruptionBlocked", "nodeclaim/general-purpose-l6dpl", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionBlocked", "nodeclaim/general-purpose-m6gjm", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionBlocked", "nodeclaim/general-purpose-m6gjm", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionTerminating", "nodeclaim/general-purpose-m6gjm", (Code.DISRUPTING,)),
        ("DisruptionBlocked", "nodeclaim/general-purpose-m6gjm", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionTerminating", "nodeclaim/general-purpose-nhtc7", (Code.DISRUPTING,)),
        ("DisruptionBlocked", "nodeclaim/general-purpose-nhtc7", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionBlocked", "node/i-076a7c45e5f8e5f11", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionTerminating", "node/i-076a7c45e5f8e5f11", (Code.DISRUPTING,)),
        ("DisruptionBlocked", "node/i-076a7c45e5f8e5f11", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionBlocked", "node/i-0a78dba9f62f5e0e4", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionBlocked", "node/i-0e1f072dc32194cc7", (Code.DISRUPTION_BLOCKED,)),
        ("DisruptionTerminating", "node/i-0e209b70f1d2dfae0", (Code.DISRUPTING,)),
        ("DisruptionBlocked", "node/i-0e209b70f1d2dfae0", (Code.DISRUPTION_BLOCKED,)),
    ]
    findings = [result.parts[0] for _, result in parsed]
    assert all(isinstance(f, DisruptionFinding) for f in findings)
    assert {result.source for _, result in parsed} == {Source.KARPENTER}
    assert {result.kind for _, result in parsed} == {Kind.DISRUPTION}
    blocked = {
        f.detail for f in findings if isinstance(f, DisruptionFinding) and f.code is Code.DISRUPTION_BLOCKED
    }
    assert blocked == {
        "Node is nominated for a pending pod",
        "Nodeclaim does not have an associated node",
        "Node is deleting or marked for deletion",
    }
    disrupting = [
        (f.target, f.disruption_reason)
        for f in findings
        if isinstance(f, DisruptionFinding) and f.code is Code.DISRUPTING
    ]
    assert disrupting == [
        ("NodeClaim", "Underutilized"),
        (None, None),
        ("NodeClaim", "Underutilized"),
        ("NodeClaim", "Underutilized"),
        ("Node", "Underutilized"),
        ("Node", "Underutilized"),
    ]


def test_eks_workshop_auto_mode_nodeclaim() -> None:
    parsed = _parse("eks-workshop__automode__kubectl-events-nodeclaim.txt")
    assert [(event.reason, result.kind, result.codes) for event, result in parsed] == [
        ("Launched", Kind.STATUS, (Code.STATUS_CONDITION,)),
        ("DisruptionBlocked", Kind.DISRUPTION, (Code.DISRUPTION_BLOCKED,)),
        ("Registered", Kind.STATUS, (Code.STATUS_CONDITION,)),
        ("Initialized", Kind.STATUS, (Code.STATUS_CONDITION,)),
        ("Ready", Kind.STATUS, (Code.STATUS_CONDITION,)),
        ("Unconsolidatable", Kind.DISRUPTION, (Code.UNCONSOLIDATABLE,)),
    ]
    conditions = [r.parts[0] for _, r in parsed if isinstance(r.parts[0], StatusConditionFinding)]
    assert [(c.condition, c.from_status, c.to_status, c.condition_reason) for c in conditions] == [
        ("Launched", "Unknown", "True", "Launched"),
        ("Registered", "Unknown", "True", "Registered"),
        ("Initialized", "Unknown", "True", "Initialized"),
        ("Ready", "Unknown", "True", "Ready"),
    ]
    assert parsed[-1][1].render() == "Can't replace with a cheaper node"


def test_karpenter_docs_describe_nodeclaim_events() -> None:
    parsed = _parse("karpenter-docs__kubectl-describe-nodeclaim__c5a-2xlarge-spot.txt")
    assert [(event.reason, event.component, result.codes) for event, result in parsed] == [
        ("Launched", "karpenter", (Code.STATUS_CONDITION,)),
        ("DisruptionBlocked", "karpenter", (Code.DISRUPTION_BLOCKED,)),
        ("Registered", "karpenter", (Code.STATUS_CONDITION,)),
        ("Initialized", "karpenter", (Code.STATUS_CONDITION,)),
        ("Ready", "karpenter", (Code.STATUS_CONDITION,)),
    ]
    blocked = parsed[1][1].parts[0]
    assert isinstance(blocked, DisruptionFinding)
    assert (blocked.target, blocked.detail) == (
        "NodeClaim",
        "state node doesn't contain both a node and a nodeclaim",
    )


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.txt")), ids=lambda path: path.name[:40])
def test_every_line_parses_and_renders(path: Path) -> None:
    for event in read_events(path):
        result = parse_event_message(event.reason, event.message, event.component)
        assert result.message == event.message
        assert result.parts and all(part.render() for part in result.parts)
