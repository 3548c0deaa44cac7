"""Evidence rows (every message form, every reporting component), disagreements with the provisioner, what
counts as "in flight" (Nominated fresh / stale / superseded, launching NodeClaims) and the capacity window."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kubectl_gpu.core.analyses.pending import Verdict
from tests.core.analyses.pending._scenarios import (
    NOW,
    analyse,
    diagnosis,
    evaluation,
    event,
    events_of,
    find,
    items,
    pod_obj,
    without,
)

V = Verdict


def _at(minutes_ago: float) -> str:
    return (NOW - timedelta(minutes=minutes_ago)).isoformat().replace("+00:00", "Z")


# ---- evidence rows ----------------------------------------------------------------------------------------

# (scenario, pod, [(source, reason, count, lastSeen, codes)]) in the order of the report (oldest first)
FS, NOM = "FailedScheduling", "Nominated"
# fmt: off
EVIDENCE: list[tuple[str, str, list[tuple[str, str, int, str, list[str]]]]] = [
    ("automode-gpu", "ml/gpu-nvidia-7d9f8-abcde", [
        ("auto-mode", FS, 12, "2026-11-29T11:57:00Z", ["UNTOLERATED_TAINT", "NO_INSTANCE_TYPE"]),
        ("scheduler", FS, 14, "2026-11-29T11:58:00Z", ["UNTOLERATED_TAINT", "INSUFFICIENT_RESOURCE"]),
    ]),
    # events.k8s.io/v1: regarding, note, reportingController, series
    ("automode-gpu", "ml/spot-only", [
        ("auto-mode", FS, 8, "2026-11-29T11:54:00Z", ["UNTOLERATED_TAINT", "REQUIREMENT_CONFLICT"]),
    ]),
    ("automode-gpu", "serving/nominated-superseded", [
        ("auto-mode", NOM, 1, "2026-11-29T11:50:00Z", ["NOMINATED"]),
        ("auto-mode", FS, 3, "2026-11-29T11:53:00Z", ["LIMITS_EXCEEDED"]),
    ]),
    ("automode-gpu", "serving/dra-inference", [("auto-mode", FS, 4, "2026-11-29T11:52:00Z", ["DRA"])]),
    ("automode-gpu", "ml/tolerate-all", []),
    ("automode-capacity", "inference/serve-l40s", [
        ("scheduler", FS, 1, "2026-11-29T11:48:00Z", ["NODE_AFFINITY"]),
        ("auto-mode", NOM, 1, "2026-11-29T11:49:00Z", ["NOMINATED"]),
        ("auto-mode", FS, 4, "2026-11-29T11:58:00Z", ["NO_INSTANCE_TYPE"]),
    ]),
    # Karpenter v1.0 nodepool-prefixed form; kube-scheduler <= 1.24 taint form
    ("karpenter-gpu", "research/no-toleration", [
        ("karpenter", FS, 31, "2026-11-29T11:59:00Z", ["UNTOLERATED_TAINT", "NO_INSTANCE_TYPE"]),
        ("scheduler", FS, 40, "2026-11-29T11:59:30Z", ["INSUFFICIENT_RESOURCE", "UNTOLERATED_TAINT"]),
    ]),
    ("karpenter-gpu", "stablediffusion/stablediffusion-raycluster-ms6pl-worker-gpu-85d22", [
        ("scheduler", FS, 1, "2026-11-29T11:57:00Z", ["INSUFFICIENT_RESOURCE"]),
        ("karpenter", NOM, 1, "2026-11-29T11:57:10Z", ["NOMINATED"]),
    ]),
    ("karpenter-gpu", "research/eight-gpus", [("karpenter", FS, 12, "2026-11-29T11:58:00Z", ["LIMITS_EXCEEDED"])]),
    ("no-karpenter", "notebooks/notebook-c", [
        ("scheduler", FS, 22, "2026-11-29T11:58:00Z", ["UNTOLERATED_TAINT", "INSUFFICIENT_RESOURCE"]),
    ]),
]
# fmt: on


@pytest.mark.parametrize(("scenario", "key", "rows"), EVIDENCE, ids=[k for _, k, _ in EVIDENCE])
def test_evidence_rows(scenario: str, key: str, rows: list[tuple[str, str, int, str, list[str]]]) -> None:
    objects = items(scenario)
    diag = diagnosis(analyse(objects), key)
    got = [
        (
            e.source,
            e.reason,
            e.count,
            e.last_seen.isoformat().replace("+00:00", "Z") if e.last_seen else None,
            list(e.codes),
        )
        for e in diag.evidence
    ]
    assert got == rows
    messages = {e.get("message") or e.get("note") for e in events_of(objects, key)}
    assert {e.message for e in diag.evidence} <= messages  # quoted verbatim


def test_events_of_an_earlier_pod_with_the_same_name_are_not_evidence() -> None:
    """The scenario holds a fresh Nominated event for another uid: it must neither show nor make the pod
    PROVISIONING."""
    diag = diagnosis(analyse("automode-gpu"), "ml/gpu-nvidia-7d9f8-abcde")
    assert "Nominated" not in [e.reason for e in diag.evidence]
    assert diag.verdict is V.MISSING_TOLERATION


def test_events_without_uid_are_attributed_by_name() -> None:
    diag = diagnosis(
        analyse("karpenter-gpu"), "stablediffusion/stablediffusion-raycluster-ms6pl-worker-gpu-85d22"
    )
    assert len(diag.evidence) == 2


def test_irrelevant_reasons_and_other_objects_are_not_evidence() -> None:
    objects = items("automode-gpu")
    key = "ml/tolerate-all"
    uid = pod_obj(objects, key)["metadata"]["uid"]
    objects += [
        event(
            key,
            "Pulling",
            'Pulling image "nvidia/cuda:12.8.0-runtime-ubuntu22.04"',
            _at(1),
            component="kubelet",
            uid=uid,
        ),
        event(
            "tolerate-all",
            "Nominated",
            "Pod should schedule on: nodeclaim/gpu-aaaaa",
            _at(1),
            component="karpenter",
            kind="NodeClaim",
        ),
    ]
    assert diagnosis(analyse(objects), key).evidence == ()


def test_cluster_autoscaler_events_are_evidence_too() -> None:
    """Clusters without Karpenter often run cluster-autoscaler; its events are shown (source unknown) and
    never compared with the analysis."""
    objects = items("no-karpenter")
    key = "training/pretrain-1"
    uid = pod_obj(objects, key)["metadata"]["uid"]
    message = (
        "pod didn't trigger scale-up (it wouldn't fit if a new node is added): 1 Insufficient nvidia.com/gpu"
    )
    objects.append(event(key, "NotTriggerScaleUp", message, _at(2), component="cluster-autoscaler", uid=uid))
    diag = diagnosis(analyse(objects), key)
    assert [(e.source, e.reason, e.message) for e in diag.evidence] == [
        ("unknown", "NotTriggerScaleUp", message)
    ]
    assert diag.verdict is V.INSUFFICIENT_ACCELERATOR
    assert diag.disagreements == ()
    assert "facts" not in vars(diag.ranked), "nothing to compare: the pass over every target is not made"


# ---- disagreements ----------------------------------------------------------------------------------------


def test_disagreement_when_the_provisioner_reports_a_limit_that_is_gone() -> None:
    diag = diagnosis(analyse("automode-gpu"), "serving/nominated-superseded")
    assert len(diag.disagreements) == 1
    assert "LIMITS_EXCEEDED" in diag.disagreements[0]
    assert "NodePool=gpu" in diag.disagreements[0]


def test_disagreement_when_the_provisioner_reports_a_taint_the_pool_no_longer_has() -> None:
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    diag = diagnosis(analyse(objects), "research/stale-taint")
    assert diag.verdict is V.UNVERIFIED  # the pool requires instance-hypervisor, unknown in the catalog
    assert len(diag.disagreements) == 1
    assert "UNTOLERATED_TAINT" in diag.disagreements[0]
    assert "did not tolerate nvidia.com/gpu:NoSchedule" in diag.disagreements[0]


def test_the_dra_verdict_agrees_with_the_provisioner_message() -> None:
    """Auto Mode's own event says what DRA_NOT_SUPPORTED_BY_PROVISIONER says: no disagreement left."""
    diag = diagnosis(analyse("automode-gpu"), "serving/dra-inference")
    assert diag.verdict is V.DRA_NOT_SUPPORTED_BY_PROVISIONER
    assert "not yet supported by Karpenter" in diag.reason
    assert diag.disagreements == ()
    assert any("DRA ResourceClaims" in n for n in diag.notes)


@pytest.mark.parametrize(
    ("scenario", "key"),
    [
        ("automode-gpu", "ml/gpu-nvidia-7d9f8-abcde"),
        ("automode-gpu", "ml/karpenter-label"),
        ("automode-gpu", "ml/gfd-label"),
        ("automode-gpu", "ml/spot-only"),
        ("automode-capacity", "training/train-llama-0"),
        ("automode-capacity", "inference/serve-l40s"),
        ("karpenter-gpu", "research/no-toleration"),
        ("karpenter-gpu", "research/eks-label"),
        ("karpenter-gpu", "research/eight-gpus"),
        ("no-karpenter", "notebooks/notebook-c"),  # kube-scheduler messages are never compared
    ],
)
def test_no_disagreement_when_provisioner_and_analysis_agree(scenario: str, key: str) -> None:
    assert diagnosis(analyse(scenario), key).disagreements == ()


def test_disagreement_on_a_taint_no_pool_has_even_with_the_system_pool() -> None:
    objects = items("automode-gpu")
    key = "ml/karpenter-label"
    message = next(e for e in events_of(objects, key) if e["reason"] == "FailedScheduling")
    message["message"] = (
        "Failed to schedule pod, did not tolerate taint (taint=CriticalAddonsOnly:NoSchedule); did not tolerate "
        "taint (taint=dedicated=ml:NoSchedule); incompatible requirements, label "
        '"karpenter.k8s.aws/instance-gpu-name" does not have known values'
    )
    diag = diagnosis(analyse(objects), key)
    assert diag.verdict is V.LABEL_NAMESPACE_MISMATCH
    assert diag.disagreements, "dedicated=ml:NoSchedule is on no NodePool"


# ---- in flight --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("minutes_ago", "verdict"),
    [
        (0, V.PROVISIONING),
        (3, V.PROVISIONING),
        (15, V.PROVISIONING),
        (16, V.NO_BLOCKER_FOUND),
        (40, V.NO_BLOCKER_FOUND),
    ],
)
def test_nomination_window(minutes_ago: int, verdict: Verdict) -> None:
    objects = items("automode-gpu")
    key = "serving/nominated-fresh"
    for e in events_of(objects, key):
        e["lastTimestamp"] = _at(minutes_ago + (1 if e["reason"] == "FailedScheduling" else 0))
    diag = diagnosis(analyse(objects), key)
    assert diag.verdict is verdict
    if verdict is V.PROVISIONING:
        ago = f"{minutes_ago}m ago" if minutes_ago else "just now"  # never "0m ago"
        assert f"NodeClaim gpu-ggsvc {ago}" in diag.reason
        assert diag.fix == "wait: capacity is on its way"


def test_nomination_superseded_by_a_later_provisioner_failure() -> None:
    objects = items("automode-gpu")
    key = "serving/nominated-fresh"
    uid = pod_obj(objects, key)["metadata"]["uid"]
    objects.append(
        event(
            key,
            "FailedScheduling",
            "Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=gpu)",
            _at(1),  # after the Nominated event (3 min ago)
            component="eks-auto-mode/compute",
            uid=uid,
        )
    )
    assert diagnosis(analyse(objects), key).verdict is V.NO_BLOCKER_FOUND


def test_scheduler_failures_do_not_supersede_a_nomination() -> None:
    """kube-scheduler keeps failing until the nominated node registers: that is expected, not news."""
    objects = items("automode-gpu")
    key = "serving/nominated-fresh"
    failure = next(e for e in events_of(objects, key) if e["reason"] == "FailedScheduling")
    failure["lastTimestamp"] = _at(1)  # a default-scheduler event after the Nominated event (3 min ago)
    assert diagnosis(analyse(objects), key).verdict is V.PROVISIONING


def test_nomination_for_an_initialized_nodeclaim_is_not_in_flight() -> None:
    objects = items("automode-gpu")
    key = "serving/nominated-fresh"
    nominated = next(e for e in events_of(objects, key) if e["reason"] == "Nominated")
    nominated["message"] = "Pod should schedule on: nodeclaim/gpu-dnknr, node/i-02315c7d7643cdee6"
    assert diagnosis(analyse(objects), key).verdict is V.NO_BLOCKER_FOUND


def test_nominated_node_name_is_in_flight() -> None:
    objects = items("automode-gpu")
    key = "ml/tolerate-all"
    pod_obj(objects, key)["status"]["nominatedNodeName"] = "i-02315c7d7643cdee6"
    diag = diagnosis(analyse(objects), key)
    assert diag.verdict is V.PROVISIONING
    assert "i-02315c7d7643cdee6" in diag.reason
    assert not diag.verdict.blocking


def test_nomination_does_not_hide_a_bound_pod() -> None:
    """nvidia-smi has a fresh Nominated event too, but it is bound: SCHEDULED_NOT_STARTED wins."""
    diag = diagnosis(analyse("automode-gpu"), "ml/nvidia-smi")
    assert "Nominated" in [e.reason for e in diag.evidence]
    assert diag.verdict is V.SCHEDULED_NOT_STARTED


def test_only_the_newest_nomination_counts() -> None:
    objects = items("automode-gpu")
    key = "serving/nominated-fresh"
    for e in events_of(objects, key):
        e["lastTimestamp"] = _at(15 if e["reason"] == "FailedScheduling" else 10)
    uid = pod_obj(objects, key)["metadata"]["uid"]
    objects.append(
        event(
            key,
            "Nominated",
            "Pod should schedule on: nodeclaim/gpu-dnknr, node/i-02315c7d7643cdee6",
            _at(2),
            component="eks-auto-mode/compute",
            uid=uid,
        )
    )
    assert diagnosis(analyse(objects), key).verdict is not V.PROVISIONING


def test_launching_nodeclaim_of_the_nearest_pool_is_in_flight() -> None:
    objects = items("automode-capacity")
    key = "inferentia/neuron-7b4c9-pq2rs"
    assert diagnosis(analyse(objects), key).reason.startswith(
        "NodeClaim neuron-x9p2m of NodePool neuron is starting and has room for the pod"
    )
    claim = find(objects, "NodeClaim", "neuron-x9p2m")
    claim["status"]["conditions"] = [
        {"type": t, "status": "True"} for t in ("Launched", "Registered", "Initialized")
    ]
    assert diagnosis(analyse(objects), key).verdict is V.NO_BLOCKER_FOUND


def test_a_launching_nodeclaim_is_room_by_what_it_is_not_by_its_pool() -> None:
    """Karpenter's `ExistingNode.CanAdd` reads the NodeClaim's labels, taints and allocatable, not which pool
    it came from (issue 20, item 1): an inf2 claim of another pool is room for a Neuron pod, and no room for
    an L4 pod whose nearest pool it now carries the name of."""
    objects = items("automode-capacity")
    claim = find(objects, "NodeClaim", "neuron-x9p2m")
    claim["metadata"]["labels"]["karpenter.sh/nodepool"] = "inference-l4"
    assert diagnosis(analyse(objects), "inferentia/neuron-7b4c9-pq2rs").verdict is V.PROVISIONING
    assert diagnosis(analyse(objects), "inference/serve-any").verdict is V.NO_BLOCKER_FOUND


def test_launching_nodeclaim_does_not_hide_blockers() -> None:
    """gpu-ljvhl launches in NodePool gpu; pods blocked on that pool keep their blocker."""
    report = analyse("karpenter-gpu")
    for key in ("research/no-toleration", "research/eks-label", "research/eight-gpus"):
        assert diagnosis(report, key).verdict.blocking


# ---- capacity events --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("minutes_ago", "blocks"),
    [(0, True), (10, True), (59, True), (60, True), (61, False), (150, False), (-3, True), (-10, False)],
)
def test_insufficient_capacity_window(minutes_ago: int, blocks: bool) -> None:
    objects = items("automode-capacity")
    find(objects, "Event", "inference-8xk2p.1879b001")["lastTimestamp"] = _at(minutes_ago)
    diag = diagnosis(analyse(objects), "inference/serve-l40s")
    codes = [b.code for b in evaluation(diag, "inference").blockers]
    assert (V.CAPACITY_UNAVAILABLE in codes) is blocks
    assert diag.verdict is (V.CAPACITY_UNAVAILABLE if blocks else V.NO_BLOCKER_FOUND)


def test_old_capacity_event_of_another_pool_does_not_block() -> None:
    diag = diagnosis(analyse("automode-capacity"), "inference/serve-any")
    assert evaluation(diag, "inference-spot").blockers == ()
    assert [b.code for b in evaluation(diag, "inference").blockers] == [V.CAPACITY_UNAVAILABLE]


def test_capacity_event_on_the_nodepool_itself() -> None:
    objects = items("automode-capacity")
    objects.append(
        event(
            "inference-l4",
            "InsufficientCapacityError",
            "NodeClaim inference-l4-zz9k1 event: insufficient capacity",
            _at(5),
            component="karpenter",
            kind="NodePool",
        )
    )
    diag = diagnosis(analyse(objects), "inference/serve-any")
    assert [b.code for b in evaluation(diag, "inference-l4").blockers] == [V.CAPACITY_UNAVAILABLE]
    assert diag.nearest is not None and diag.nearest.name == "inference-spot"


def test_capacity_event_of_an_existing_nodeclaim_counts_for_its_pool() -> None:
    objects = items("automode-capacity")
    objects.append(
        event(
            "training-a1b2c",
            "InsufficientCapacityError",
            "NodeClaim training-a1b2c event: insufficient capacity",
            _at(5),
            component="eks-auto-mode/compute",
            kind="NodeClaim",
        )
    )
    diag = diagnosis(analyse(objects), "inference/serve-any")
    assert V.CAPACITY_UNAVAILABLE in [b.code for b in evaluation(diag, "training").blockers]


def test_capacity_event_is_not_attributed_to_a_pool_whose_name_is_a_prefix() -> None:
    objects = items("automode-capacity")
    find(objects, "Event", "inference-8xk2p.1879b001")["lastTimestamp"] = _at(150)
    find(objects, "Event", "inference-spot-q7w4r.1879a001")["lastTimestamp"] = _at(5)
    diag = diagnosis(analyse(objects), "inference/serve-any")
    assert [b.code for b in evaluation(diag, "inference-spot").blockers] == [V.CAPACITY_UNAVAILABLE]
    assert evaluation(diag, "inference").blockers == ()


def test_capacity_blocker_quotes_the_newest_event() -> None:
    objects = items("automode-capacity")
    older = dict(find(objects, "Event", "inference-8xk2p.1879b001"))
    older["metadata"] = {"name": "inference-8xk2p.1879a999", "namespace": "default"}
    older["lastTimestamp"] = _at(50)
    objects.append(older)  # listed after the newer one
    diag = diagnosis(analyse(objects), "inference/serve-l40s")
    assert "10m ago" in diag.reason


def test_capacity_blocker_under_a_minute_old_says_just_now() -> None:
    objects = items("automode-capacity")
    find(objects, "Event", "inference-8xk2p.1879b001")["lastTimestamp"] = _at(0)
    diag = diagnosis(analyse(objects), "inference/serve-l40s")
    assert "just now" in diag.reason and "0m ago" not in diag.reason
