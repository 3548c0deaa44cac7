"""Issue 11 rules, each pinned against the upstream function it follows.

Karpenter: kubernetes-sigs/karpenter (pkg/controllers/provisioning/provisioner.go, scheduling/preferences.go,
pkg/apis/v1/labels.go, pkg/apis/v1/nodeclaim_validation.go, pkg/utils/pod/scheduling.go,
pkg/operator/options/options.go); kube-scheduler: component-helpers nodeaffinity, SchedulingGates PreEnqueue.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending import analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._scenarios import (
    NOW,
    Obj,
    analyse,
    catalog,
    diagnosis,
    find,
    items,
    state_of,
    without,
)

TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def pod(name: str = "p", **spec: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "t", "uid": f"uid-{name}"},
        "spec": {
            "tolerations": TOLERATE_GPU,
            "containers": [{"name": "m", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
            **spec,
        },
        "status": {"phase": "Pending"},
    }


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": key, "operator": op, "values": list(values)}]}


def verdict_of(objects: list[Obj], name: str = "p") -> Any:
    return diagnosis(analyse(objects, only=[f"t/{name}"]), f"t/{name}")


# ---- 1. several nodeSelectorTerms: Preferences.Relax (preferences.go removeRequiredNodeAffinityTerm) ------


def test_a_later_term_that_fits_is_the_one_karpenter_provisions_for() -> None:
    objects = [
        *items("automode-gpu"),
        pod(
            affinity=required(
                expr("eks.amazonaws.com/instance-family", "In", "p5"),
                expr("eks.amazonaws.com/instance-family", "In", "g6e"),
            )
        ),
    ]
    diag = verdict_of(objects)
    assert diag.verdict is V.NO_BLOCKER_FOUND, diag.reason
    assert any("OR-terms" in n for n in diag.notes)


def test_when_no_term_fits_the_last_attempt_is_reported() -> None:
    """`trySchedule` (scheduler.go) relaxes the pod until `Preferences.Relax` has nothing left and returns the
    error of that last attempt: the last OR-term (issue 20, item 3; it used to report term 0)."""
    objects = [
        *items("automode-gpu"),
        pod(
            affinity=required(
                expr("eks.amazonaws.com/instance-family", "In", "p5"),
                expr("eks.amazonaws.com/instance-family", "In", "m7i"),
            )
        ),
    ]
    diag = verdict_of(objects)
    assert diag.verdict is V.REQUIREMENT_CONFLICT
    assert "m7i" in diag.reason and "p5" not in diag.reason


# ---- 2. pods the provisioner ignores: Provisioner.Validate, v1.ValidateRequirement, IsRestrictedLabel ------


@pytest.mark.parametrize(
    ("affinity", "node_selector", "text"),
    [
        # validateNodeSelectorTerm: "node selector term with matchFields is not supported"
        (
            required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}),
            {},
            "matchFields is not supported",
        ),
        # IsRestrictedLabel: RestrictedLabels = {kubernetes.io/hostname}
        (None, {"kubernetes.io/hostname": "ip-10-0-0-1"}, "kubernetes.io/hostname is not allowed"),
        # IsRestrictedLabel: the karpenter.sh domain outside WellKnownLabels
        (None, {"karpenter.sh/registered": "true"}, "karpenter.sh/registered is not allowed"),
        # validateKarpenterManagedLabelCanExist
        (
            required({"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}),
            {},
            "to not run on a Karpenter provisioned node",
        ),
    ],
    # ("Gt -1", once here, is no valid label value: kube-scheduler matches no node with it either, so it reads
    # INVALID_SELECTOR; tests/core/analyses/pending/test_round_four_plugins.py, issue 37)
    ids=["matchFields", "hostname", "karpenter-domain", "nodepool-does-not-exist"],
)
def test_pods_karpenter_ignores(
    affinity: dict[str, Any] | None, node_selector: dict[str, str], text: str
) -> None:
    spec: dict[str, Any] = {"nodeSelector": node_selector}
    if affinity:
        spec["affinity"] = affinity
    diag = verdict_of([*items("automode-gpu"), pod(**spec)])
    assert diag.verdict is V.POD_IGNORED_BY_PROVISIONER
    assert text in diag.reason
    assert all(e.target.kind == "Node" for e in diag.evaluations)  # existing nodes only
    assert "template" not in (diag.fix or "")  # never a fix that makes a NodePool invalid


def test_a_hostname_selector_never_gets_a_template_label_fix() -> None:
    """A hostname in spec.template.metadata.labels is rejected by the NodePool CRD (labels.sh)."""
    diag = verdict_of([*items("automode-gpu"), pod(nodeSelector={"kubernetes.io/hostname": "x"})])
    assert "metadata.labels" not in (diag.fix or "")
    assert all("metadata.labels" not in (b.fix or "") for b in diag.blockers)


@pytest.mark.parametrize(
    "affinity",
    [
        required(expr("eks.amazonaws.com/instance-gpu-count", "Gt", "many")),  # no integer: matches nothing
        required(expr("eks.amazonaws.com/instance-family", "In")),  # In without values
        required({}),  # an empty term matches no node
    ],
    ids=["gt-not-integer", "in-without-values", "empty-term"],
)
def test_selectors_no_node_can_match(affinity: dict[str, Any]) -> None:
    diag = verdict_of([*items("automode-gpu"), pod(affinity=affinity)])
    assert diag.verdict is V.INVALID_SELECTOR, diag.reason


def test_one_valid_term_keeps_the_selector_valid() -> None:
    """kube-scheduler ORs terms: an invalid term next to a valid one only drops that term."""
    affinity = required(expr("x", "In"), expr("eks.amazonaws.com/instance-family", "In", "g6e"))
    diag = verdict_of([*items("automode-gpu"), pod(affinity=affinity)])
    assert diag.verdict is V.POD_IGNORED_BY_PROVISIONER  # ValidateRequirement rejects In without values


# ---- 3. not the provisioner's to place ------------------------------------------------------------------


def test_scheduling_gates() -> None:
    diag = verdict_of([*items("automode-gpu"), pod(schedulingGates=[{"name": "kueue.x-k8s.io/admission"}])])
    assert diag.verdict is V.SCHEDULING_GATED
    assert "kueue.x-k8s.io/admission" in diag.reason
    assert diag.nearest is None


def test_another_scheduler() -> None:
    """FailedToSchedule (pkg/utils/pod/scheduling.go): only kube-scheduler's Unschedulable condition counts."""
    diag = verdict_of([*items("automode-gpu"), pod(schedulerName="volcano")])
    assert diag.verdict is V.NOT_HANDLED_BY_SCHEDULER
    assert "volcano" in diag.reason


def test_dra_claims_are_ignored_by_karpenter_by_default() -> None:
    """options.go: --ignore-dra-requests defaults to true; scheduler.go NewDRAError."""
    diag = verdict_of(
        [*items("automode-gpu"), pod(resourceClaims=[{"name": "gpu", "resourceClaimName": "c1"}])]
    )
    assert diag.verdict is V.DRA_NOT_SUPPORTED_BY_PROVISIONER
    assert all(e.target.kind == "Node" for e in diag.evaluations)


# ---- 7. NodePool readiness: provisioner.go NewScheduler "ignoring nodepool, not ready" -------------------


def test_a_nodepool_that_is_not_ready() -> None:
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["status"]["conditions"] = [
        {"type": "NodeClassReady", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ValidationFailed", "message": "bad requirement"},
    ]
    diag = diagnosis(analyse(objects), "serving/llm-5f7b9-aaaaa")
    assert diag.verdict is V.NODEPOOL_NOT_READY
    assert "bad requirement" in diag.reason


def test_nodeclass_not_ready_keeps_its_own_code() -> None:
    objects = items("automode-gpu")
    find(objects, "NodePool", "gpu")["status"]["conditions"] = [
        {"type": "NodeClassReady", "status": "False", "message": "no subnets"},
        {"type": "Ready", "status": "False"},
    ]
    assert diagnosis(analyse(objects), "serving/llm-5f7b9-aaaaa").verdict is V.NODECLASS_NOT_READY


# ---- 10. unknown is not ok -------------------------------------------------------------------------------


def test_an_unknown_catalog_value_never_passes_a_requirement() -> None:
    """The catalog knows no instance-hypervisor value: a pool requiring it is not verified, not 'ok'."""
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    diag = diagnosis(analyse(objects), "operators/op-in-ok")
    assert diag.verdict is V.UNVERIFIED
    assert "instance-hypervisor" in diag.reason
    reqs = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"]
    reqs[:] = [r for r in reqs if r["key"] != "karpenter.k8s.aws/instance-hypervisor"]
    assert diagnosis(analyse(objects), "operators/op-in-ok").verdict is V.NO_BLOCKER_FOUND


# ---- 11. unreadable kinds --------------------------------------------------------------------------------


def _forbidden(objects: list[Obj], *kinds: str) -> Any:
    state = state_of(o for o in objects if o["kind"].lower() + "s" not in kinds)
    notes = tuple(Note("FORBIDDEN", f"forbidden to list {k} cluster-wide", k) for k in kinds)
    return dataclasses.replace(state, notes=notes)


def test_forbidden_nodepools_never_read_as_no_nodepool() -> None:
    state = _forbidden(items("automode-gpu"), "nodepools")
    report = analyse_pending(state, catalog(), NOW)
    for diag in report.pods:
        assert diag.verdict is not V.NO_ACCELERATOR_NODEPOOL
        assert "no NodePool can launch" not in diag.reason
        if diag.verdict not in (V.SCHEDULED_NOT_STARTED,):
            assert any("forbidden to list nodepools" in n for n in diag.notes), diag.key
    neuron = next(p for p in report.pods if p.key == "ml/neuron-6c9d4-xk2lq")
    assert neuron.verdict is V.UNVERIFIED


def test_forbidden_events_leave_the_capacity_check_unknown() -> None:
    state = _forbidden(items("automode-gpu"), "events")
    diag = next(p for p in analyse_pending(state, catalog(), NOW).pods if p.key == "serving/llm-5f7b9-aaaaa")
    assert diag.verdict is V.UNVERIFIED
    assert "capacity" in diag.reason


# ---- 12. API server defaults: SetDefaults_Pod (pkg/apis/core/v1/defaults.go) requests default to limits ----


def test_a_pod_that_sets_only_limits_is_in_scope() -> None:
    only_limits = pod("limits-only")
    only_limits["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "2", "cpu": "4"}}
    report = analyse([*items("automode-gpu"), only_limits])
    diag = diagnosis(report, "t/limits-only")
    assert diag.requests["nvidia.com/gpu"] == 2 and diag.requests["cpu"] == 4


def test_an_explicit_request_wins_over_its_limit() -> None:
    both = pod("both")
    both["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "1"},
        "limits": {"cpu": "4", "nvidia.com/gpu": "1"},
    }
    diag = diagnosis(analyse([*items("automode-gpu"), both]), "t/both")
    assert diag.requests["cpu"] == 1 and diag.requests["nvidia.com/gpu"] == 1
