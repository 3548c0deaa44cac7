"""Karpenter / EKS Auto Mode `Failed to schedule pod, ...` messages (EKS-FACTS §2.2)."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.evidence import (
    Code,
    InstanceTypeFinding,
    Kind,
    LabelFinding,
    LimitFinding,
    MinValuesFinding,
    RequirementFinding,
    Source,
    TaintFinding,
    parse_event_message,
)

ISSUE_7574 = (
    'incompatible with nodepool "gpu", daemonset overhead={"cpu":"605m","memory":"1288Mi","pods":"12"}, did not '
    'tolerate nvidia.com/gpu=1:NoSchedule; incompatible with nodepool "app", …, incompatible requirements, label '
    '"eks.amazonaws.com/nodegroup" does not have known values'
)


def test_issue_7574_string_verbatim() -> None:
    """aws/karpenter-provider-aws#7574 (Karpenter v1.0.6) as quoted in EKS-FACTS §2.2, elision included."""
    parsed = parse_event_message("FailedScheduling", f"Failed to schedule pod, {ISSUE_7574}", "karpenter")
    assert parsed.source is Source.KARPENTER
    assert parsed.kind is Kind.FAILED_SCHEDULING
    taint, label = parsed.parts
    assert isinstance(taint, TaintFinding) and isinstance(label, LabelFinding)
    assert (taint.nodepool, taint.key, taint.value, taint.effect) == (
        "gpu",
        "nvidia.com/gpu",
        "1",
        "NoSchedule",
    )
    assert taint.daemonset_overhead == '{"cpu":"605m","memory":"1288Mi","pods":"12"}'
    assert taint.text == "did not tolerate nvidia.com/gpu=1:NoSchedule"
    assert (label.nodepool, label.label, label.daemonset_overhead) == (
        "app",
        "eks.amazonaws.com/nodegroup",
        None,
    )
    assert parsed.nodepools == ("gpu", "app")
    assert parsed.taint_keys == ("nvidia.com/gpu",)
    assert parsed.unknown_labels == ("eks.amazonaws.com/nodegroup",)
    assert parsed.render().splitlines() == [
        "NodePool gpu: untolerated taint nvidia.com/gpu=1:NoSchedule",
        "NodePool app: label eks.amazonaws.com/nodegroup has no known values on the NodePool",
    ]


def test_v1_4_nested_multierr_belongs_to_the_preceding_nodepool() -> None:
    message = (
        'Failed to schedule pod, incompatible with nodepool "gpu", daemonset overhead={"cpu":"200m","pods":"3"}, '
        "did not tolerate nvidia.com/gpu:NoSchedule; did not tolerate dedicated=ml:NoExecute; "
        'all available instance types exceed limits for nodepool "burst"; '
        'incompatible with nodepool "default", daemonset overhead={"cpu":"200m","pods":"3"}, incompatible '
        'requirements, label "team" does not have known values; label "gpu" does not have known values (typo of '
        '"karpenter.k8s.aws/instance-gpu-name"?)'
    )
    parsed = parse_event_message("FailedScheduling", message, "karpenter")
    assert [(p.code, p.nodepool) for p in parsed.parts] == [
        (Code.UNTOLERATED_TAINT, "gpu"),
        (Code.UNTOLERATED_TAINT, "gpu"),
        (Code.LIMITS_EXCEEDED, "burst"),
        (Code.UNKNOWN_LABEL, "default"),
        (Code.UNKNOWN_LABEL, "default"),
    ]
    last = parsed.parts[-1]
    assert isinstance(last, LabelFinding)
    assert (last.label, last.typo_of) == ("gpu", "karpenter.k8s.aws/instance-gpu-name")
    assert parsed.taint_keys == ("nvidia.com/gpu", "dedicated")
    assert parsed.nodepools == ("gpu", "burst", "default")


def test_pre_v1_provisioner_prefix_without_overhead() -> None:
    message = (
        'Failed to schedule pod, incompatible with provisioner "default", incompatible requirements, key '
        "karpenter.sh/provisioner-name, karpenter.sh/provisioner-name DoesNotExist not in "
        'karpenter.sh/provisioner-name In [default]; incompatible with provisioner "gpu", did not tolerate '
        "nvidia.com/gpu=true:NoSchedule"
    )
    parsed = parse_event_message("FailedScheduling", message, "karpenter")
    conflict, taint = parsed.parts
    assert isinstance(conflict, RequirementFinding)
    assert (conflict.code, conflict.nodepool, conflict.key) == (
        Code.REQUIREMENT_CONFLICT,
        "default",
        "karpenter.sh/provisioner-name",
    )
    assert (conflict.pod_requirement, conflict.nodepool_requirement) == ("DoesNotExist", "In [default]")
    assert (taint.code, taint.nodepool) == (Code.UNTOLERATED_TAINT, "gpu")


def test_requirement_conflict_head_form_repeats_the_key() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, incompatible requirements, key karpenter.k8s.aws/instance-gpu-name, "
        "karpenter.k8s.aws/instance-gpu-name In [h100] not in karpenter.k8s.aws/instance-gpu-name In [a10g l4]",
        "eks-auto-mode/compute",
    )
    assert parsed.source is Source.AUTO_MODE
    (conflict,) = parsed.parts
    assert isinstance(conflict, RequirementFinding)
    assert (conflict.key, conflict.pod_requirement, conflict.nodepool_requirement) == (
        "karpenter.k8s.aws/instance-gpu-name",
        "In [h100]",
        "In [a10g l4]",
    )
    assert conflict.nodepool is None


def test_requirement_conflict_with_bounds_and_min_values() -> None:
    (conflict,) = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, incompatible requirements, key karpenter.k8s.aws/instance-gpu-count, "
        "karpenter.k8s.aws/instance-gpu-count Exists >=9 not in karpenter.k8s.aws/instance-gpu-count Exists <=8 "
        "minValues 2",
        "karpenter",
    ).parts
    assert isinstance(conflict, RequirementFinding)
    assert (conflict.pod_requirement, conflict.nodepool_requirement) == (
        "Exists >=9",
        "Exists <=8 minValues 2",
    )


def test_pre_v1_conflict_order() -> None:
    (conflict,) = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, incompatible requirements, [] not in [ip-10-0-0-1], key kubernetes.io/hostname",
        "karpenter",
    ).parts
    assert isinstance(conflict, RequirementFinding)
    assert (conflict.key, conflict.pod_requirement, conflict.nodepool_requirement) == (
        "kubernetes.io/hostname",
        "[]",
        "[ip-10-0-0-1]",
    )


@pytest.mark.parametrize(
    ("clause", "key", "value", "effect"),
    [
        ("did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)", "nvidia.com/gpu", "", "NoSchedule"),
        (
            "did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)",
            "nvidia.com/gpu",
            "true",
            "NoSchedule",
        ),
        (
            "did not tolerate taint (taint=CriticalAddonsOnly:NoSchedule)",
            "CriticalAddonsOnly",
            "",
            "NoSchedule",
        ),
        ("did not tolerate nvidia.com/gpu:NoSchedule", "nvidia.com/gpu", "", "NoSchedule"),
        ("did not tolerate nvidia.com/gpu=true:NoExecute", "nvidia.com/gpu", "true", "NoExecute"),
        ("did not tolerate nvidia.com/gpu=:NoSchedule", "nvidia.com/gpu", "", "NoSchedule"),
        ("did not tolerate taint:NoSchedule", "taint", "", "NoSchedule"),
        ("did not tolerate taint", None, None, None),
    ],
)
def test_every_karpenter_taint_form(
    clause: str, key: str | None, value: str | None, effect: str | None
) -> None:
    (taint,) = parse_event_message("FailedScheduling", f"Failed to schedule pod, {clause}", "karpenter").parts
    assert isinstance(taint, TaintFinding)
    assert (taint.code, taint.key, taint.value, taint.effect, taint.text) == (
        Code.UNTOLERATED_TAINT,
        key,
        value,
        effect,
        clause,
    )


def test_v1_5_taints_carry_no_nodepool() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, did not tolerate taint (taint=CriticalAddonsOnly:NoSchedule); incompatible "
        'requirements, label "NodeGroupType" does not have known values',
        "eks-auto-mode/compute",
    )
    assert parsed.codes == (Code.UNTOLERATED_TAINT, Code.UNKNOWN_LABEL)
    assert parsed.nodepools == ()
    assert parsed.unknown_labels == ("NodeGroupType",)


def test_no_instance_type_v1_0_with_nested_reason() -> None:
    requirements = (
        "karpenter.k8s.aws/instance-category In [c m r], karpenter.k8s.aws/instance-generation Exists >2, "
        "karpenter.sh/capacity-type In [on-demand spot], topology.kubernetes.io/zone DoesNotExist"
    )
    message = (
        'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"655m"}, '
        f'no instance type satisfied resources {{"cpu":"2655m","nvidia.com/gpu":"1","pods":"8"}} and requirements '
        f"{requirements} (no instance type met the scheduling requirements or had a required offering)"
    )
    (finding,) = parse_event_message("FailedScheduling", message, "karpenter").parts
    assert isinstance(finding, InstanceTypeFinding)
    assert finding.nodepool == "default"
    assert finding.failed == ("requirements", "offering")
    assert finding.requirements == requirements
    assert finding.resources == '{"cpu":"2655m","nvidia.com/gpu":"1","pods":"8"}'
    assert finding.reason == "no instance type met the scheduling requirements or had a required offering"


def test_no_instance_type_v1_0_with_cpu_typo_hint_in_parentheses() -> None:
    message = (
        'Failed to schedule pod, no instance type satisfied resources {"cpu":"2000k"} and requirements '
        "kubernetes.io/arch In [amd64] (no instance type has enough resources (CPU request >= 1 Million, m vs M "
        "typo?))"
    )
    (finding,) = parse_event_message("FailedScheduling", message, "karpenter").parts
    assert isinstance(finding, InstanceTypeFinding)
    assert (finding.failed, finding.hint) == (("resources",), "CPU request >= 1 Million, m vs M typo?")
    assert finding.requirements == "kubernetes.io/arch In [amd64]"


def test_no_instance_type_min_max_resources() -> None:
    message = (
        "Failed to schedule pod, no instance type has enough resources, requirements=kubernetes.io/arch In [amd64], "
        'resources=min={"cpu":"1","nvidia.com/gpu":"8"}, max={"cpu":"1200m","nvidia.com/gpu":"8"}'
    )
    (finding,) = parse_event_message("FailedScheduling", message, "karpenter").parts
    assert isinstance(finding, InstanceTypeFinding)
    assert (
        finding.resources == 'min={"cpu":"1","nvidia.com/gpu":"8"}, max={"cpu":"1200m","nvidia.com/gpu":"8"}'
    )
    assert finding.requirements == "kubernetes.io/arch In [amd64]"


def test_no_instance_type_truncated_and_unknown_sentences() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, no instance type has enough resources, requirements=kubernetes.io/arch In [amd; "
        "no instance type fits the moon",
        "karpenter",
    )
    truncated, unknown = parsed.parts
    assert isinstance(truncated, InstanceTypeFinding) and isinstance(unknown, InstanceTypeFinding)
    assert truncated.failed == ("resources",)
    assert (unknown.code, unknown.failed, unknown.reason) == (
        Code.NO_INSTANCE_TYPE,
        (),
        "no instance type fits the moon",
    )


def test_min_values_older_forms() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, pod didn't schedule because NodePool \"gpu\" couldn't meet minValues requirements, "
        'minValues requirement is not met for "karpenter.k8s.aws/instance-family"; pod didn’t schedule because '
        "NodePool couldn’t meet minValues requirements, minValues requirement is not met for label "
        "(label=node.kubernetes.io/instance-type) (NodePool=spot)",
        "karpenter",
    )
    first, second = parsed.parts
    assert isinstance(first, MinValuesFinding) and isinstance(second, MinValuesFinding)
    assert (first.nodepool, first.labels) == ("gpu", ("karpenter.k8s.aws/instance-family",))
    assert (second.nodepool, second.labels) == ("spot", ("node.kubernetes.io/instance-type",))


def test_limits_name_their_nodepool_in_every_form() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        "Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=a); "
        'all available instance types exceed limits for nodepool "b"; all available instance types exceed limits '
        'for nodepool: "c"; node limits have been exhausted for nodepool (NodePool=d)',
        "karpenter",
    )
    assert [(p.code, p.nodepool, p.limit) for p in parsed.parts if isinstance(p, LimitFinding)] == [
        (Code.LIMITS_EXCEEDED, "a", "resources"),
        (Code.LIMITS_EXCEEDED, "b", "resources"),
        (Code.LIMITS_EXCEEDED, "c", "resources"),
        (Code.LIMITS_EXCEEDED, "d", "nodes"),
    ]
    assert parsed.nodepools == ("a", "b", "c", "d")


@pytest.mark.parametrize(
    ("clause", "code"),
    [
        (
            "unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = "
            "map[us-west-2a:1], podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/"
            "zone In [us-west-2a])",
            Code.TOPOLOGY_SPREAD,
        ),
        (
            "unsatisfiable topology constraint for pod anti-affinity, key=kubernetes.io/hostname (counts = map[])",
            Code.POD_ANTI_AFFINITY,
        ),
        ("incompatible requirements, something new", Code.REQUIREMENT_CONFLICT),
        ("incompatible volume requirements, volume zone unknown", Code.VOLUME),
        ("checking host port usage, port 8080 in use", Code.OTHER),
    ],
)
def test_other_clauses(clause: str, code: Code) -> None:
    (part,) = parse_event_message("FailedScheduling", f"Failed to schedule pod, {clause}", "karpenter").parts
    assert (part.code, part.text) == (code, clause)


def test_unknown_clause_keeps_text_and_nodepool() -> None:
    parsed = parse_event_message(
        "FailedScheduling",
        'Failed to schedule pod, incompatible with nodepool "gpu", daemonset overhead={"cpu":"1"}, a brand new '
        "error; the NodePool (NodePool=other) is sad",
        "karpenter",
    )
    assert [(p.code, p.text, p.nodepool) for p in parsed.parts] == [
        (Code.OTHER, "a brand new error", "gpu"),
        (Code.OTHER, "the NodePool (NodePool=other) is sad", "other"),
    ]


def test_truncated_prefix_still_names_the_nodepool() -> None:
    (part,) = parse_event_message(
        "FailedScheduling",
        'Failed to schedule pod, incompatible with nodepool "gpu", daemonset overhead={"cpu',
        "karpenter",
    ).parts
    assert (part.code, part.nodepool) == (Code.OTHER, "gpu")


def test_trailing_semicolon_and_empty_envelope() -> None:
    parsed = parse_event_message(
        "FailedScheduling", "Failed to schedule pod, did not tolerate a:NoSchedule;", "karpenter"
    )
    assert parsed.codes == (Code.UNTOLERATED_TAINT,)
    empty = parse_event_message("FailedScheduling", "Failed to schedule pod, ", "karpenter")
    assert empty.codes == (Code.OTHER,)


def test_bare_error_without_envelope() -> None:
    """The `error` field of the `could not schedule pod` log line, passed without the event envelope."""
    parsed = parse_event_message("", "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)", None)
    assert parsed.source is Source.KARPENTER
    assert parsed.codes == (Code.UNTOLERATED_TAINT,)
    unknown = parse_event_message("FailedScheduling", "the provisioner is on holiday", "karpenter")
    assert unknown.codes == (Code.UNPARSED,)
    assert unknown.source is Source.KARPENTER


def test_old_log_envelope() -> None:
    parsed = parse_event_message(
        "", 'Could not schedule pod, incompatible with provisioner "x", did not tolerate a=b:NoSchedule', None
    )
    assert (parsed.codes, parsed.nodepools) == ((Code.UNTOLERATED_TAINT,), ("x",))
