"""Properties of the Pending analysis over the scenarios (moderate example counts: the folder must stay fast)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.analyses.pending.ranking import LISTED_TARGETS
from kubectl_gpu.core.analyses.pending.verdicts import BLOCKER_ORDER
from kubectl_gpu.core.analyses.pending.verify.verifier import TRIED
from tests.core.analyses.pending._scenarios import NAMES, Obj, analyse, diagnosis, items, pod_obj

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
V = Verdict


@cache
def _in_scope() -> tuple[tuple[str, str], ...]:
    return tuple((name, p.key) for name in NAMES for p in analyse(name, all_pending=True).pods)


taint_keys = st.sampled_from(
    ["", "nvidia.com/gpu", "CriticalAddonsOnly", "dedicated", "aws.amazon.com/neuron", "workload", "x"]
)
effects = st.sampled_from(["", "NoSchedule", "NoExecute", "PreferNoSchedule"])


@st.composite
def tolerations(draw: st.DrawFn) -> dict[str, Any]:
    operator = draw(st.sampled_from(["Exists", "Equal", ""]))
    out: dict[str, Any] = {"key": draw(taint_keys), "operator": operator, "effect": draw(effects)}
    if operator != "Exists":
        out["value"] = draw(st.sampled_from(["", "true", "training", "inference", "ml"]))
    return {k: v for k, v in out.items() if v != ""}


@SETTINGS
@given(st.sampled_from(_in_scope()), st.lists(tolerations(), min_size=1, max_size=3))
def test_adding_tolerations_never_adds_blockers(case: tuple[str, str], extra: list[dict[str, Any]]) -> None:
    scenario, key = case
    objects = items(scenario)
    before = diagnosis(analyse(objects, only=[key]), key)
    pod_obj(objects, key)["spec"].setdefault("tolerations", []).extend(extra)
    after = diagnosis(analyse(objects, only=[key]), key)
    assert {(b.target, b.code) for b in after.blockers} <= {(b.target, b.code) for b in before.blockers}
    if any(t.get("operator") == "Exists" and "key" not in t and "effect" not in t for t in extra):
        assert V.MISSING_TOLERATION not in {b.code for b in after.blockers}


FAMILIES = ["g4dn", "g5", "g5g", "g6", "g6e", "g7e", "p4d", "p5", "inf2", "trn1", "g4ad", "c7i", "m7i"]


@st.composite
def nodepools(draw: st.DrawFn, auto: bool) -> Obj:
    prefix = "eks.amazonaws.com" if auto else "karpenter.k8s.aws"
    ref = (
        {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}
        if auto
        else {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
    )
    requirements: list[Obj] = [
        {
            "key": f"{prefix}/instance-family",
            "operator": "In",
            "values": draw(st.lists(st.sampled_from(FAMILIES), min_size=1, max_size=4, unique=True)),
        },
        {
            "key": "karpenter.sh/capacity-type",
            "operator": "In",
            "values": draw(st.sampled_from([["on-demand"], ["spot"], ["spot", "on-demand"]])),
        },
    ]
    taints = draw(
        st.lists(
            st.sampled_from(
                [
                    {"key": "nvidia.com/gpu", "effect": "NoSchedule"},
                    {"key": "aws.amazon.com/neuron", "effect": "NoSchedule"},
                    {"key": "team", "value": "a", "effect": "NoExecute"},
                    {"key": "spot", "effect": "PreferNoSchedule"},
                ]
            ),
            max_size=2,
            unique_by=lambda t: t["key"],
        )
    )
    spec: Obj = {"template": {"spec": {"nodeClassRef": ref, "requirements": requirements, "taints": taints}}}
    if draw(st.booleans()):
        spec["weight"] = draw(st.integers(min_value=1, max_value=100))
    if draw(st.booleans()):
        spec["limits"] = {"nvidia.com/gpu": str(draw(st.integers(min_value=0, max_value=16)))}
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "zz-added"},
        "spec": spec,
    }


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(NAMES), st.data())
def test_adding_a_nodepool_never_makes_a_pod_unprovisionable(scenario: str, data: st.DataObject) -> None:
    objects = items(scenario)
    before = {p.key: p for p in analyse(objects, all_pending=True).pods}
    objects.append(data.draw(nodepools(auto=scenario.startswith("automode"))))
    after = {p.key: p for p in analyse(objects, all_pending=True).pods}
    assert set(after) == set(before)
    for key, old in before.items():
        new = after[key]
        if old.verdict is not V.NO_ACCELERATOR_NODEPOOL:
            assert new.verdict is not V.NO_ACCELERATOR_NODEPOOL, key
        if old.verdict is V.SCHEDULED_NOT_STARTED:
            assert new.verdict is V.SCHEDULED_NOT_STARTED
        if old.verdict is V.PROVISIONING and "nominated" in old.reason:
            assert new.verdict is V.PROVISIONING, key


SELECTORS = [
    ("eks.amazonaws.com/instance-gpu-name", "l40s"),
    ("eks.amazonaws.com/instance-family", "g6"),
    ("karpenter.k8s.aws/instance-gpu-name", "l40s"),
    ("karpenter.sh/capacity-type", "spot"),
    ("karpenter.sh/capacity-type", "on-demand"),
    ("nvidia.com/gpu.product", "NVIDIA-L40S"),
    ("kubernetes.io/arch", "arm64"),
    ("karpenter.sh/nodepool", "gpu"),
    ("example.com/team", "a"),
]
RESOURCES = [
    "nvidia.com/gpu",
    "aws.amazon.com/neuron",
    "nvidia.com/mig-1g.10gb",
    "amd.com/gpu",
    "cpu",
    "memory",
]


@st.composite
def pods(draw: st.DrawFn) -> Obj:
    requests = {
        r: (f"{draw(st.integers(1, 64))}Gi" if r == "memory" else str(draw(st.integers(1, 16))))
        for r in draw(st.lists(st.sampled_from(RESOURCES), min_size=1, max_size=3, unique=True))
    }
    spec: Obj = {
        "containers": [{"name": "m", "image": "x", "resources": {"requests": requests}}],
        "tolerations": draw(st.lists(tolerations(), max_size=2)),
        "nodeSelector": dict(
            draw(st.lists(st.sampled_from(SELECTORS), max_size=2, unique_by=lambda kv: kv[0]))
        ),
    }
    if draw(st.booleans()):
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "random", "namespace": "t", "uid": "uid-random"},
        "spec": spec,
        "status": {"phase": "Pending"},
    }


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(NAMES), pods())
def test_any_pod_gets_a_well_formed_diagnosis(scenario: str, pod: Obj) -> None:
    objects = [*items(scenario), pod]
    report = analyse(objects, all_pending=True)
    diag = diagnosis(report, "t/random")
    assert json.loads(json.dumps(report.to_dict())) == report.to_dict()
    assert diag.reason
    if diag.verdict.blocking:
        assert diag.fix
    assert diag.blockers == tuple(b for e in diag.evaluations[:LISTED_TARGETS] for b in e.blockers)
    if diag.verdict in BLOCKER_ORDER[1:10]:  # a blocker code: the first blocker of one of the nearest targets
        # (the nearest, unless another of the TRIED nearest has a verified fix that gets further: fix_check.py)
        chosen = next(e for e in diag.evaluations[:TRIED] if e.target == diag.nearest)
        assert diag.verdict is chosen.blockers[0].code
    if diag.verdict is V.NO_ACCELERATOR_NODEPOOL:
        assert not any(e.offers for e in diag.evaluations)
    # The same pod twice: one shape, one evaluation.
    twin = {**pod, "metadata": {**pod["metadata"], "name": "twin", "uid": "uid-twin"}}
    again = analyse([*objects, twin], all_pending=True)
    assert diagnosis(again, "t/twin").evaluations is diagnosis(again, "t/random").evaluations
