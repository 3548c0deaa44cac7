"""Every scenario pod: its verdict, its nearest target, the blockers of that target, and the verdict rule.

The table is the contract of tests/scenarios/pending/README.md. `ANY` marks a nearest target this suite deliberately
does not pin (DRA pods: see the README).
"""

from __future__ import annotations

from typing import Final

import pytest

from kubectl_gpu.core.analyses.pending import PodDiagnosis, Verdict
from kubectl_gpu.core.analyses.pending.ranking import nearness
from kubectl_gpu.core.analyses.pending.verdicts import BLOCKER_ORDER, BlockerClass
from tests.core.analyses.pending._scenarios import NAMES, analyse, diagnosis, items, without

ANY: Final = "ANY"
V = Verdict

# (scenario, pod, verdict, nearest "Kind/name" | None | ANY, blocker codes of the nearest target)
# fmt: off
TABLE: list[tuple[str, str, Verdict, str | None, list[str]]] = [
    # ---- Auto Mode: pod-spec problems -------------------------------------------------------------
    ("automode-gpu", "ml/gpu-nvidia-7d9f8-abcde", V.MISSING_TOLERATION, "NodePool/gpu", ["MISSING_TOLERATION"]),
    ("automode-gpu", "ml/wrong-value", V.MISSING_TOLERATION, "NodePool/gpu", ["MISSING_TOLERATION"]),
    ("automode-gpu", "ml/karpenter-label", V.LABEL_NAMESPACE_MISMATCH, "NodePool/gpu", ["LABEL_NAMESPACE_MISMATCH"]),
    ("automode-gpu", "ml/gfd-label", V.UNKNOWN_LABEL, "NodePool/gpu", ["UNKNOWN_LABEL"]),
    ("automode-gpu", "ml/spot-only", V.REQUIREMENT_CONFLICT, "NodePool/gpu", ["REQUIREMENT_CONFLICT"]),
    ("automode-gpu", "ml/many-gpus", V.NO_INSTANCE_TYPE_FITS, "NodePool/gpu", ["NO_INSTANCE_TYPE_FITS"]),
    ("automode-gpu", "ml/neuron-6c9d4-xk2lq", V.NO_ACCELERATOR_NODEPOOL, None, []),
    ("automode-gpu", "ml/mig-slice", V.NO_ACCELERATOR_NODEPOOL, None, []),
    ("automode-gpu", "ml/nvidia-smi", V.SCHEDULED_NOT_STARTED, "Node/i-02315c7d7643cdee6", []),
    ("automode-gpu", "ml/tolerate-all", V.NO_BLOCKER_FOUND, "NodePool/gpu", []),
    ("automode-gpu", "serving/llm-5f7b9-aaaaa", V.NO_BLOCKER_FOUND, "NodePool/gpu", []),
    ("automode-gpu", "serving/llm-5f7b9-bbbbb", V.NO_BLOCKER_FOUND, "NodePool/gpu", []),
    ("automode-gpu", "serving/nominated-fresh", V.PROVISIONING, "NodePool/gpu", []),
    ("automode-gpu", "serving/nominated-stale", V.NO_BLOCKER_FOUND, "NodePool/gpu", []),
    ("automode-gpu", "serving/nominated-superseded", V.NO_BLOCKER_FOUND, "NodePool/gpu", []),
    ("automode-gpu", "serving/dra-inference", V.DRA_NOT_SUPPORTED_BY_PROVISIONER, ANY, []),
    # ---- Auto Mode: capacity problems ------------------------------------------------------------
    ("automode-capacity", "training/train-llama-0", V.NODEPOOL_LIMIT_REACHED, "NodePool/training", ["NODEPOOL_LIMIT_REACHED"]),
    ("automode-capacity", "training/reserved-job", V.NODECLASS_NOT_READY, "NodePool/reserved", ["NODECLASS_NOT_READY"]),
    ("automode-capacity", "training/private-job", V.NODECLASS_NOT_READY, "NodePool/private", ["NODECLASS_NOT_READY"]),
    ("automode-capacity", "inference/serve-l40s", V.CAPACITY_UNAVAILABLE, "NodePool/inference", ["CAPACITY_UNAVAILABLE"]),
    ("automode-capacity", "inference/serve-any", V.NO_BLOCKER_FOUND, "NodePool/inference-l4", []),
    ("automode-capacity", "inferentia/neuron-7b4c9-pq2rs", V.PROVISIONING, "NodePool/neuron", []),
    ("automode-capacity", "inferentia/neuroncore-0", V.PROVISIONING, "NodePool/neuron", []),
    # ---- self-managed Karpenter --------------------------------------------------------------------
    ("karpenter-gpu", "stablediffusion/stablediffusion-raycluster-ms6pl-worker-gpu-85d22", V.PROVISIONING, "NodePool/gpu", []),
    ("karpenter-gpu", "research/eks-label", V.LABEL_NAMESPACE_MISMATCH, "NodePool/gpu", ["LABEL_NAMESPACE_MISMATCH"]),
    ("karpenter-gpu", "research/no-toleration", V.MISSING_TOLERATION, "NodePool/gpu", ["MISSING_TOLERATION"]),
    ("karpenter-gpu", "research/equal-false", V.MISSING_TOLERATION, "NodePool/gpu", ["MISSING_TOLERATION"]),
    ("karpenter-gpu", "research/eight-gpus", V.NODEPOOL_LIMIT_REACHED, "NodePool/gpu", ["NODEPOOL_LIMIT_REACHED"]),
    ("karpenter-gpu", "research/neuron-6c9d4-xk2lq", V.NO_ACCELERATOR_NODEPOOL, None, []),
    ("karpenter-gpu", "research/rocm-0", V.NO_ACCELERATOR_NODEPOOL, None, []),
    # ---- no Karpenter: existing nodes --------------------------------------------------------------
    ("no-karpenter", "notebooks/notebook-c", V.INSUFFICIENT_ACCELERATOR, "Node/s4124-0073", ["INSUFFICIENT_ACCELERATOR"]),
    ("no-karpenter", "notebooks/notebook-d", V.NO_BLOCKER_FOUND, "Node/s4124-0073", []),
    ("no-karpenter", "training/pretrain-1", V.INSUFFICIENT_ACCELERATOR, "Node/gpu-node-1", ["INSUFFICIENT_ACCELERATOR"]),
    ("no-karpenter", "training/h100-eval", V.MISSING_TOLERATION, "Node/gpu-node-1", ["MISSING_TOLERATION"]),
    ("no-karpenter", "training/wrong-effect", V.MISSING_TOLERATION, "Node/gpu-node-1", ["MISSING_TOLERATION"]),
    ("no-karpenter", "training/a100-job", V.REQUIREMENT_CONFLICT, "Node/gpu-node-1", ["REQUIREMENT_CONFLICT"]),
    ("no-karpenter", "training/rack-pinned", V.UNKNOWN_LABEL, "Node/gpu-node-1", ["UNKNOWN_LABEL"]),
    ("no-karpenter", "training/rocm-0", V.NO_ACCELERATOR_NODEPOOL, None, []),
    ("no-karpenter", "serving/t4-inference", V.NO_BLOCKER_FOUND, "Node/ip-10-0-3-17.ec2.internal", []),
    ("no-karpenter", "serving/dra-job", V.NO_BLOCKER_FOUND, ANY, []),
]
# fmt: on

# Pods of karpenter-gpu evaluated with the launching NodeClaim gpu-ljvhl removed: with it, the analysis calls
# every blocker-free pod of NodePool gpu PROVISIONING (see the README), which says nothing about these pods.
# fmt: off
SETTLED: list[tuple[str, Verdict, list[str]]] = [
    ("research/stale-taint", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-in-conflict", V.REQUIREMENT_CONFLICT, ["REQUIREMENT_CONFLICT", "NO_INSTANCE_TYPE_FITS"]),
    ("operators/op-in-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-notin-conflict", V.REQUIREMENT_CONFLICT, ["REQUIREMENT_CONFLICT", "NO_INSTANCE_TYPE_FITS"]),
    ("operators/op-notin-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-exists-unknown", V.UNKNOWN_LABEL, ["UNKNOWN_LABEL"]),
    ("operators/op-exists-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-doesnotexist-conflict", V.REQUIREMENT_CONFLICT, ["REQUIREMENT_CONFLICT"]),
    ("operators/op-doesnotexist-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-gt-none", V.NO_INSTANCE_TYPE_FITS, ["NO_INSTANCE_TYPE_FITS"]),
    ("operators/op-gt-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
    ("operators/op-lt-none", V.NO_INSTANCE_TYPE_FITS, ["NO_INSTANCE_TYPE_FITS"]),
    ("operators/op-lt-ok", V.UNVERIFIED, []),  # the pool requires instance-hypervisor, unknown in the catalog
]
# fmt: on

SPEC_CODES = {
    V.MISSING_TOLERATION,
    V.LABEL_NAMESPACE_MISMATCH,
    V.UNKNOWN_LABEL,
    V.REQUIREMENT_CONFLICT,
    V.NO_INSTANCE_TYPE_FITS,
    V.MIN_VALUES_UNSATISFIED,
    V.HOST_PORT_CONFLICT,
    V.VOLUME_TOPOLOGY_CONFLICT,
}
CAPACITY_CODES = {
    V.NODEPOOL_LIMIT_REACHED,
    V.NODECLASS_NOT_READY,
    V.CAPACITY_UNAVAILABLE,
    V.INSUFFICIENT_ACCELERATOR,
    V.INSUFFICIENT_RESOURCES,
    V.TOPOLOGY_SPREAD_UNSATISFIABLE,
    V.POD_AFFINITY_UNSATISFIABLE,
    V.VOLUME_UNAVAILABLE,
}


def _nearest(diag: PodDiagnosis) -> str | None:
    return f"{diag.nearest.kind}/{diag.nearest.name}" if diag.nearest else None


@pytest.mark.parametrize(
    ("scenario", "key", "verdict", "nearest", "codes"), TABLE, ids=[f"{s}:{k}" for s, k, *_ in TABLE]
)
def test_scenario_table(
    scenario: str, key: str, verdict: Verdict, nearest: str | None, codes: list[str]
) -> None:
    diag = diagnosis(analyse(scenario), key)
    assert diag.verdict is verdict, diag.reason
    if nearest != ANY:
        assert _nearest(diag) == nearest
    if verdict in SPEC_CODES | CAPACITY_CODES:
        evaluation = diag.evaluations[0]
        assert [str(b.code) for b in evaluation.blockers] == codes
        assert diag.reason == evaluation.blockers[0].message
        assert diag.fix == evaluation.blockers[0].fix
    elif nearest not in (None, ANY) and nearest.startswith("NodePool/"):
        found = [e for e in diag.evaluations if f"{e.target.kind}/{e.target.name}" == nearest]
        assert [str(b.code) for b in found[0].blockers] == codes


@pytest.mark.parametrize(("key", "verdict", "codes"), SETTLED, ids=[k for k, *_ in SETTLED])
def test_karpenter_without_launching_claim(key: str, verdict: Verdict, codes: list[str]) -> None:
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    diag = diagnosis(analyse(objects), key)
    assert diag.verdict is verdict, diag.reason
    assert _nearest(diag) == "NodePool/gpu"
    assert [str(b.code) for b in diag.evaluations[0].blockers] == codes


def test_the_table_covers_every_verdict_code() -> None:
    # Codes the scenario files do not hold are pinned, with their upstream source, in tests/core/analyses/pending/.
    from tests.core.analyses.pending import PINNED_ELSEWHERE

    assert {verdict for _, _, verdict, _, _ in TABLE} | PINNED_ELSEWHERE == set(Verdict)


def test_the_table_covers_every_in_scope_pod() -> None:
    for name in NAMES:
        in_report = {p.key for p in analyse(name).pods}
        in_table = {k for s, k, *_ in TABLE if s == name}
        if name == "karpenter-gpu":
            in_table |= {k for k, *_ in SETTLED}
        assert in_report == in_table, name


@pytest.mark.parametrize("scenario", NAMES)
def test_verdict_rule_holds_for_every_pod(scenario: str) -> None:
    """Bound -> SCHEDULED_NOT_STARTED; else in flight -> PROVISIONING; else nothing offers ->
    NO_ACCELERATOR_NODEPOOL; else the first blocker (table order) of the nearest target; else
    NO_BLOCKER_FOUND. Every target's blockers stay in the report, sorted in table order."""
    for diag in analyse(scenario, all_pending=True).pods:
        assert diag.blockers == tuple(b for e in diag.evaluations for b in e.blockers)
        for evaluation in diag.evaluations:
            ranks = [BLOCKER_ORDER.index(b.code) for b in evaluation.blockers]
            assert ranks == sorted(ranks), diag.key
            assert all(b.target == evaluation.target for b in evaluation.blockers)
        keys = [nearness(e) for e in diag.evaluations]
        assert keys == sorted(keys), diag.key
        if diag.verdict in SPEC_CODES | CAPACITY_CODES:
            first = diag.evaluations[0]
            assert diag.nearest == first.target
            assert diag.verdict is first.blockers[0].code
            assert first.offers or not any(e.offers for e in diag.evaluations)
        if diag.verdict is V.NO_ACCELERATOR_NODEPOOL:
            assert diag.nearest is None
            assert not any(e.offers for e in diag.evaluations)
        if diag.verdict is V.NO_BLOCKER_FOUND:
            assert diag.evaluations and not diag.evaluations[0].blockers


@pytest.mark.parametrize("scenario", NAMES)
def test_blocker_classes(scenario: str) -> None:
    for diag in analyse(scenario, all_pending=True).pods:
        for blocker in diag.blockers:
            expected = BlockerClass.SPEC if blocker.code in SPEC_CODES else BlockerClass.CAPACITY
            assert blocker.code in SPEC_CODES | CAPACITY_CODES
            assert blocker.cls is expected, (diag.key, blocker)
            assert blocker.message and blocker.fix, (diag.key, blocker)


@pytest.mark.parametrize(
    ("scenario", "key", "verdict", "nearest", "codes"), TABLE, ids=[f"{s}:{k}" for s, k, *_ in TABLE]
)
def test_each_pod_alone_gets_the_same_diagnosis(
    scenario: str, key: str, verdict: Verdict, nearest: str | None, codes: list[str]
) -> None:
    """`explain` analyses one pod (`pods=`); it must agree with `pending` over the whole cluster."""
    alone = diagnosis(analyse(scenario, only=[key]), key)
    together = diagnosis(analyse(scenario), key)
    assert alone.to_dict() == together.to_dict()
    assert alone.evaluations == together.evaluations
