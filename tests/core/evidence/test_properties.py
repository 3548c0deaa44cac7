"""Property tests: arbitrary text never raises; messages assembled from known clauses parse back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_gpu.core.evidence import Code, Kind, parse_event_message

UNFORCED_REASONS = ["", "FailedScheduling", "Nominated", "Scheduled", "InsufficientCapacityError", "BackOff"]
COMPONENTS = [None, "default-scheduler", "karpenter", "eks-auto-mode/compute", "kubelet", ""]

# (clause, code) pairs in the v1.5+ form: no NodePool prefix.
KARPENTER_CLAUSES: list[tuple[str, Code]] = [
    ("did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)", Code.UNTOLERATED_TAINT),
    ("did not tolerate taint (taint=dedicated=ml:NoExecute)", Code.UNTOLERATED_TAINT),
    ("did not tolerate nvidia.com/gpu=:NoSchedule", Code.UNTOLERATED_TAINT),
    (
        'incompatible requirements, label "gpu" does not have known values (typo of "karpenter.k8s.aws/instance-gpu-name"?)',
        Code.UNKNOWN_LABEL,
    ),
    ('label "team" does not have known values', Code.UNKNOWN_LABEL),
    (
        "incompatible requirements, key karpenter.sh/capacity-type, karpenter.sh/capacity-type In [spot] not in "
        "karpenter.sh/capacity-type In [on-demand]",
        Code.REQUIREMENT_CONFLICT,
    ),
    ("all available instance types exceed limits for nodepool (NodePool=gpu)", Code.LIMITS_EXCEEDED),
    ("node limits have been exhausted for nodepool (NodePool=gpu)", Code.LIMITS_EXCEEDED),
    ("nodepool requirements filtered out all available instance types", Code.NODEPOOL_FILTERED_ALL),
    (
        "no instance type has enough resources, requirements=kubernetes.io/arch In [amd64], "
        'resources={"cpu":"1","nvidia.com/gpu":"16"}',
        Code.NO_INSTANCE_TYPE,
    ),
    (
        "no instance type met the requirements/resources/offering tuple, requirements=karpenter.k8s.aws/instance-gpu-count "
        'Exists >=2, resources={"nvidia.com/gpu":"2"}',
        Code.NO_INSTANCE_TYPE,
    ),
    (
        "pod didn’t schedule because NodePool couldn’t meet minValues requirements, minValues requirement is not met "
        "for label(s) (label(s)=[karpenter.k8s.aws/instance-family]) (NodePool=gpu)",
        Code.MIN_VALUES,
    ),
    (
        "incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [a] not in "
        "topology.kubernetes.io/zone In [b]",
        Code.VOLUME,
    ),
    ("no instance type satisfies both scheduling and dynamic resource requirements", Code.DRA),
    (
        "one or more instance types with compatible reserved offerings are available, but could not be reserved",
        Code.RESERVED_OFFERING,
    ),
]
# Clauses that a v1.4 NodePool prefix can carry (limit errors are never prefixed).
PREFIXABLE = [
    (clause, code)
    for clause, code in KARPENTER_CLAUSES
    if code is not Code.LIMITS_EXCEEDED and code is not Code.MIN_VALUES
]

SCHEDULER_REASONS: list[tuple[str, Code]] = [
    ("Insufficient nvidia.com/gpu", Code.INSUFFICIENT_RESOURCE),
    ("Insufficient memory", Code.INSUFFICIENT_RESOURCE),
    ("node(s) had untolerated taint {nvidia.com/gpu: }", Code.UNTOLERATED_TAINT),
    (
        "node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate",
        Code.UNTOLERATED_TAINT,
    ),
    ("node(s) had untolerated taint(s)", Code.UNTOLERATED_TAINT),
    ("node(s) didn't match Pod's node affinity/selector", Code.NODE_AFFINITY),
    ("node(s) were unschedulable", Code.UNSCHEDULABLE),
    ("node(s) didn't match pod affinity rules", Code.POD_AFFINITY),
    ("node(s) didn't match pod anti-affinity rules", Code.POD_ANTI_AFFINITY),
    ("node(s) had unknown conditions", Code.UNKNOWN_CONDITION),
    ("node(s) had volume node affinity conflict", Code.VOLUME),
]
POSTFILTERS = [
    "",
    " preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling.",
    " no new claims to deallocate, preemption: 0/{n} nodes are available: {n} No preemption victims found for "
    "incoming pod.",
]
NODEPOOL_NAMES = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")


@pytest.mark.slow
@given(st.text(), st.sampled_from(UNFORCED_REASONS) | st.text(max_size=30), st.sampled_from(COMPONENTS))
def test_arbitrary_text_never_raises(message: str, reason: str, component: str | None) -> None:
    parsed = parse_event_message(reason, message, component)
    assert parsed.message == message
    assert parsed.parts
    assert all(part.render() is not None for part in parsed.parts)


@given(st.text(), st.sampled_from(UNFORCED_REASONS), st.sampled_from(COMPONENTS))
def test_arbitrary_text_is_unparsed(message: str, reason: str, component: str | None) -> None:
    parsed = parse_event_message(reason, message, component)
    assert parsed.codes == (Code.UNPARSED,)
    assert parsed.parts[0].text == message
    assert not parsed.parsed


@given(st.text())
def test_arbitrary_karpenter_clauses_are_other(body: str) -> None:
    message = f"Failed to schedule pod, {body}"
    parsed = parse_event_message("FailedScheduling", message, "karpenter")
    assert parsed.kind is Kind.FAILED_SCHEDULING
    assert set(parsed.codes) == {Code.OTHER}
    assert all(part.text in message for part in parsed.parts)


@given(st.text(), st.sampled_from(["DisruptionBlocked", "Unconsolidatable"]))
def test_arbitrary_text_under_a_disruption_reason(message: str, reason: str) -> None:
    parsed = parse_event_message(reason, message, "karpenter")
    assert parsed.kind is Kind.DISRUPTION
    assert len(parsed.parts) == 1


@given(st.lists(st.sampled_from(KARPENTER_CLAUSES), min_size=1, max_size=8), st.sampled_from(COMPONENTS[:4]))
def test_known_clauses_joined_parse_back(clauses: list[tuple[str, Code]], component: str | None) -> None:
    message = "Failed to schedule pod, " + "; ".join(clause for clause, _ in clauses)
    parsed = parse_event_message("FailedScheduling", message, component)
    assert parsed.codes == tuple(code for _, code in clauses)
    assert [part.text for part in parsed.parts] == [clause for clause, _ in clauses]


@given(
    st.lists(
        st.tuples(NODEPOOL_NAMES, st.lists(st.sampled_from(PREFIXABLE), min_size=1, max_size=3)),
        min_size=1,
        max_size=5,
    )
)
def test_v1_4_prefixed_clauses_parse_back_with_their_nodepool(
    pools: list[tuple[str, list[tuple[str, Code]]]],
) -> None:
    errors = []
    expected = []
    for name, clauses in pools:
        inner = "; ".join(clause for clause, _ in clauses)  # a prefixed error can itself be a multierr
        errors.append(
            f'incompatible with nodepool "{name}", daemonset overhead={{"cpu":"1","pods":"2"}}, {inner}'
        )
        expected += [(code, name) for _, code in clauses]
    parsed = parse_event_message(
        "FailedScheduling", "Failed to schedule pod, " + "; ".join(errors), "karpenter"
    )
    assert [(part.code, part.nodepool) for part in parsed.parts] == expected
    assert parsed.nodepools == tuple(dict.fromkeys(name for name, _ in pools))


@given(
    st.lists(st.tuples(st.integers(1, 500), st.sampled_from(SCHEDULER_REASONS)), min_size=1, max_size=6),
    st.sampled_from(POSTFILTERS),
)
def test_scheduler_histogram_parses_back(
    entries: list[tuple[int, tuple[str, Code]]], postfilter: str
) -> None:
    histogram = sorted(f"{count} {reason}" for count, (reason, _) in entries)
    total = sum(count for count, _ in entries)
    message = f"0/{total} nodes are available: {', '.join(histogram)}." + postfilter.format(n=total)
    parsed = parse_event_message("FailedScheduling", message, "default-scheduler")
    by_text = {reason: code for reason, code in SCHEDULER_REASONS}
    assert [(part.count, part.text, part.code) for part in parsed.parts] == [
        (int(entry.split(" ", 1)[0]), entry.split(" ", 1)[1], by_text[entry.split(" ", 1)[1]])
        for entry in histogram
    ]
    assert parsed.total_nodes == total
    assert (parsed.preemption is not None) == bool(postfilter)
