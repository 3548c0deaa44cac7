"""kube-scheduler FitError messages (EKS-FACTS §2.3)."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.evidence import (
    Code,
    Finding,
    Kind,
    ResourceFinding,
    Source,
    TaintFinding,
    parse_event_message,
)


def _scheduler(message: str) -> tuple[Finding, ...]:
    parsed = parse_event_message("FailedScheduling", message, "default-scheduler")
    assert parsed.source is Source.SCHEDULER
    assert parsed.kind is Kind.FAILED_SCHEDULING
    return parsed.parts


def test_eks_facts_example_pre_134740() -> None:
    message = (
        "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: }, 2 Insufficient nvidia.com/gpu. "
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims "
        "found for incoming pod."
    )
    parsed = parse_event_message("FailedScheduling", message, "default-scheduler")
    assert parsed.total_nodes == 3
    taint, gpu = parsed.parts
    assert isinstance(taint, TaintFinding) and isinstance(gpu, ResourceFinding)
    assert (taint.code, taint.count, taint.key, taint.value, taint.effect) == (
        Code.UNTOLERATED_TAINT,
        1,
        "nvidia.com/gpu",
        "",
        None,
    )
    assert (gpu.code, gpu.count, gpu.resource) == (Code.INSUFFICIENT_RESOURCE, 2, "nvidia.com/gpu")
    assert parsed.taint_keys == ("nvidia.com/gpu",)
    assert parsed.insufficient_resources == ("nvidia.com/gpu",)
    assert parsed.preemption is not None
    assert parsed.preemption.total_nodes == 3
    assert parsed.preemption.reasons == (
        (1, "Preemption is not helpful for scheduling"),
        (2, "No preemption victims found for incoming pod"),
    )
    assert parsed.postfilter == parsed.preemption.text
    assert parsed.render().splitlines() == [
        "1 node(s): untolerated taint nvidia.com/gpu",
        "2 node(s): insufficient nvidia.com/gpu",
    ]


def test_auto_mode_k8s_1_34_dra_capture() -> None:
    message = (
        "0/2 nodes are available: 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: "
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )
    parsed = parse_event_message("FailedScheduling", message, "default-scheduler")
    (taint,) = parsed.parts
    assert isinstance(taint, TaintFinding)
    assert (taint.count, taint.key, taint.value) == (2, None, None)
    assert parsed.taint_keys == ()
    assert parsed.postfilter is not None and parsed.postfilter.startswith("no new claims to deallocate, ")
    assert parsed.preemption is not None
    assert parsed.preemption.reasons == ((2, "Preemption is not helpful for scheduling"),)
    assert all("claims" not in part.text and "preemption" not in part.text for part in parsed.parts)


def test_dra_prefix_without_preemption_is_not_a_reason() -> None:
    parts = _scheduler("0/1 nodes are available: 1 Insufficient nvidia.com/gpu. no new claims to deallocate")
    assert [(p.code, p.count) for p in parts] == [(Code.INSUFFICIENT_RESOURCE, 1)]


@pytest.mark.parametrize(
    ("reason", "key", "value"),
    [
        ("node(s) had untolerated taint {nvidia.com/gpu: true}", "nvidia.com/gpu", "true"),
        (
            "node(s) had untolerated taint {node.kubernetes.io/unreachable: }",
            "node.kubernetes.io/unreachable",
            "",
        ),
        (
            "node(s) had taint {nvidia.com/gpu: present}, that the pod didn't tolerate",
            "nvidia.com/gpu",
            "present",
        ),
        ("node(s) had untolerated taint(s)", None, None),
        ("node(s) had taints that the pod didn't tolerate", None, None),
    ],
)
def test_every_taint_form(reason: str, key: str | None, value: str | None) -> None:
    (part,) = _scheduler(f"0/4 nodes are available: 4 {reason}.")
    assert isinstance(part, TaintFinding)
    assert (part.code, part.count, part.key, part.value, part.text) == (
        Code.UNTOLERATED_TAINT,
        4,
        key,
        value,
        reason,
    )


def test_old_taint_form_comma_does_not_split_the_histogram() -> None:
    parts = _scheduler(
        "0/6 nodes are available: 1 node(s) had taint {node-role.kubernetes.io/control-plane: }, that the pod "
        "didn't tolerate, 2 node(s) had taint {nvidia.com/gpu: true}, that the pod didn't tolerate, 3 Insufficient "
        "nvidia.com/gpu."
    )
    assert [(p.code, p.count) for p in parts] == [
        (Code.UNTOLERATED_TAINT, 1),
        (Code.UNTOLERATED_TAINT, 2),
        (Code.INSUFFICIENT_RESOURCE, 3),
    ]
    assert [p.key for p in parts if isinstance(p, TaintFinding)] == [
        "node-role.kubernetes.io/control-plane",
        "nvidia.com/gpu",
    ]


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("Insufficient cpu", Code.INSUFFICIENT_RESOURCE),
        ("Too many pods", Code.INSUFFICIENT_RESOURCE),
        ("node(s) didn't match Pod's node affinity/selector", Code.NODE_AFFINITY),
        ("node(s) didn't match Pod's node affinity", Code.NODE_AFFINITY),
        ("node(s) didn't match node selector", Code.NODE_AFFINITY),
        ("node(s) were unschedulable", Code.UNSCHEDULABLE),
        ("node(s) didn't match pod affinity rules", Code.POD_AFFINITY),
        ("node(s) didn't match pod affinity/anti-affinity", Code.POD_AFFINITY),
        ("node(s) didn't match pod anti-affinity rules", Code.POD_ANTI_AFFINITY),
        ("node(s) didn't satisfy existing pods anti-affinity rules", Code.POD_ANTI_AFFINITY),
        ("node(s) didn't match pod topology spread constraints", Code.TOPOLOGY_SPREAD),
        ("node(s) had unknown conditions", Code.UNKNOWN_CONDITION),
        ("node(s) had memory pressure", Code.NODE_CONDITION),
        ("node(s) had volume node affinity conflict", Code.VOLUME),
        ("node(s) didn't find available persistent volumes to bind", Code.VOLUME),
        ("node(s) exceed max volume count", Code.VOLUME),
        ("cannot allocate all claims", Code.DRA),
        ("node(s) didn't have free ports for the requested pod ports", Code.OTHER),
    ],
)
def test_reason_kinds(reason: str, code: Code) -> None:
    (part,) = _scheduler(f"0/7 nodes are available: 7 {reason}.")
    assert (part.code, part.count, part.text) == (code, 7, reason)


def test_insufficient_resource_names() -> None:
    parts = _scheduler(
        "0/9 nodes are available: 1 Insufficient nvidia.com/mig-1g.10gb, 2 Insufficient aws.amazon.com/neuron, "
        "3 Insufficient memory, 3 Too many pods."
    )
    assert [p.resource for p in parts if isinstance(p, ResourceFinding)] == [
        "nvidia.com/mig-1g.10gb",
        "aws.amazon.com/neuron",
        "memory",
        "pods",
    ]


def test_prefilter_body_without_counts_is_one_reason() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are "
        "available: 3 Preemption is not helpful for scheduling.",
        "default-scheduler",
    )
    (part,) = parsed.parts
    assert (part.code, part.count, part.text) == (
        Code.VOLUME,
        None,
        "pod has unbound immediate PersistentVolumeClaims",
    )
    assert parsed.total_nodes == 3
    assert part.render() == "pod has unbound immediate PersistentVolumeClaims"


def test_prefilter_message_of_unknown_kind() -> None:
    (part,) = _scheduler("0/2 nodes are available: some plugin said no.")
    assert (part.code, part.count, part.text) == (Code.OTHER, None, "some plugin said no")


def test_old_scheduler_without_postfilter() -> None:
    parsed = parse_event_message(
        "FailedScheduling", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.", None
    )
    assert parsed.source is Source.SCHEDULER
    assert parsed.postfilter is None and parsed.preemption is None
    assert [(p.code, p.count) for p in parsed.parts] == [(Code.INSUFFICIENT_RESOURCE, 3)]


def test_preemption_not_eligible_tail() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: not eligible due to "
        "preemptionPolicy=Never.",
        "default-scheduler",
    )
    assert [p.code for p in parsed.parts] == [Code.INSUFFICIENT_RESOURCE]
    assert parsed.preemption is not None
    assert parsed.preemption.total_nodes is None and parsed.preemption.reasons == ()


def test_other_scheduler_text_is_unparsed() -> None:
    parsed = parse_event_message(
        "FailedScheduling", "skip schedule deleting pod: ml/trainer-0", "default-scheduler"
    )
    assert parsed.source is Source.SCHEDULER
    assert parsed.kind is Kind.FAILED_SCHEDULING
    assert parsed.codes == (Code.UNPARSED,)
    assert parsed.parts[0].text == "skip schedule deleting pod: ml/trainer-0"
    assert not parsed.parsed


def test_custom_scheduler_component() -> None:
    parsed = parse_event_message(
        "FailedScheduling", "0/1 nodes are available: 1 node(s) were unschedulable.", "volcano-scheduler"
    )
    assert parsed.source is Source.SCHEDULER
