"""Which pods are in scope, the order of the report, `blocking`, shape caching and the JSON contract."""

from __future__ import annotations

import json

import pytest

from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.analyses.pending.analysis import in_scope
from kubectl_gpu.core.analyses.pending.pod.shape import shape_of
from kubectl_gpu.core.analyses.pending.verdicts import BLOCKER_ORDER
from tests.core.analyses.pending._scenarios import NAMES, NOW, analyse, diagnosis, items, pod_obj, state_of

V = Verdict

SCOPE: dict[str, set[str]] = {
    "automode-gpu": {
        "ml/gpu-nvidia-7d9f8-abcde",
        "ml/wrong-value",
        "ml/karpenter-label",
        "ml/gfd-label",
        "ml/spot-only",
        "ml/many-gpus",
        "ml/neuron-6c9d4-xk2lq",
        "ml/mig-slice",
        "ml/nvidia-smi",
        "ml/tolerate-all",
        "serving/llm-5f7b9-aaaaa",
        "serving/llm-5f7b9-bbbbb",
        "serving/nominated-fresh",
        "serving/nominated-stale",
        "serving/nominated-superseded",
        "serving/dra-inference",
    },
    "automode-capacity": {
        "training/train-llama-0",
        "training/reserved-job",
        "training/private-job",
        "inference/serve-l40s",
        "inference/serve-any",
        "inferentia/neuron-7b4c9-pq2rs",
        "inferentia/neuroncore-0",
    },
    "no-karpenter": {
        "notebooks/notebook-c",
        "notebooks/notebook-d",
        "training/pretrain-1",
        "training/h100-eval",
        "training/wrong-effect",
        "training/a100-job",
        "training/rack-pinned",
        "training/rocm-0",
        "serving/t4-inference",
        "serving/dra-job",
    },
}
# Pending pods without accelerators, added by --all-pending.
EXTRA = {
    "automode-gpu": {"default/web-0"},
    "automode-capacity": {"training/efa-only"},
    "no-karpenter": {"default/web-0"},
}


@pytest.mark.parametrize("scenario", sorted(SCOPE))
def test_scope(scenario: str) -> None:
    assert {p.key for p in analyse(scenario).pods} == SCOPE[scenario]
    assert {p.key for p in analyse(scenario, all_pending=True).pods} == SCOPE[scenario] | EXTRA[scenario]


def test_scope_rules_on_single_pods() -> None:
    objects = items("automode-gpu")
    state = state_of(objects)
    by_key = {f"{p.namespace}/{p.name}": p for p in state.pods}
    assert not in_scope(by_key["ml/smoke-test"], all_pending=True)  # Succeeded
    assert not in_scope(by_key["serving/embeddings-0"], all_pending=True)  # Running
    assert not in_scope(by_key["default/web-0"], all_pending=False)  # no accelerator
    assert in_scope(by_key["default/web-0"], all_pending=True)
    assert in_scope(
        by_key["serving/dra-inference"], all_pending=False
    )  # DRA claim, no device-plugin resource
    assert in_scope(by_key["ml/mig-slice"], all_pending=False)  # MIG profile
    assert in_scope(by_key["ml/nvidia-smi"], all_pending=False)  # bound but still Pending


@pytest.mark.parametrize(
    "resources",
    [
        {"nvidia.com/gpu": "1"},
        {"nvidia.com/gpu.shared": "1"},
        {"nvidia.com/mig-3g.40gb": "1"},
        {"aws.amazon.com/neuron": "1"},
        {"aws.amazon.com/neuroncore": "2"},
        {"amd.com/gpu": "1"},
        {"vpc.amazonaws.com/efa": "4", "nvidia.com/gpu": "8"},
    ],
)
def test_every_accelerator_resource_is_in_scope(resources: dict[str, str]) -> None:
    objects = items("automode-gpu")
    pod_obj(objects, "default/web-0")["spec"]["containers"][0]["resources"]["requests"] = resources
    report = analyse(objects)
    assert "default/web-0" in {p.key for p in report.pods}
    assert set(resources) <= set(diagnosis(report, "default/web-0").requests)


@pytest.mark.parametrize(
    ("change", "in_report"),
    [
        ({"metadata": {"annotations": {"kubectl-gpu.io/ignore": "true"}}}, False),
        ({"metadata": {"annotations": {"kubectl-gpu.io/ignore": "false"}}}, True),
        ({"status": {"phase": "Failed"}}, False),
        ({"status": {"phase": "Unknown"}}, False),
        (
            {
                "spec": {
                    "containers": [
                        {"name": "m", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "0"}}}
                    ]
                }
            },
            False,
        ),
    ],
)
def test_scope_exclusions(change: dict[str, dict[str, object]], in_report: bool) -> None:
    objects = items("automode-gpu")
    pod = pod_obj(objects, "ml/tolerate-all")
    for section, values in change.items():
        pod.setdefault(section, {}).update(values)
    assert ("ml/tolerate-all" in {p.key for p in analyse(objects).pods}) is in_report


def test_pods_argument_analyses_exactly_those() -> None:
    report = analyse("automode-gpu", only=["default/web-0", "ml/mig-slice"])
    assert [p.key for p in report.pods] == ["ml/mig-slice", "default/web-0"]
    # arm64: general-purpose and gpu are amd64 only, so the pod's own selector excludes them (issue 11 item 9);
    # the nearest is the built-in system pool (amd64 and arm64), whose taint the pod does not tolerate.
    assert diagnosis(report, "default/web-0").verdict is V.MISSING_TOLERATION


@pytest.mark.parametrize("scenario", NAMES)
def test_report_is_worst_first(scenario: str) -> None:
    pods = analyse(scenario, all_pending=True).pods
    keys = [(not p.verdict.blocking, BLOCKER_ORDER.index(p.verdict), p.namespace, p.name) for p in pods]
    assert keys == sorted(keys)
    blocking = [p.verdict.blocking for p in pods]
    assert blocking == sorted(blocking, reverse=True)  # PROVISIONING last


def test_verdict_order_in_automode_gpu() -> None:
    verdicts = [p.verdict for p in analyse("automode-gpu").pods]
    assert verdicts[:2] == [V.NO_ACCELERATOR_NODEPOOL, V.NO_ACCELERATOR_NODEPOOL]
    assert verdicts[-1] is V.PROVISIONING
    assert verdicts.index(V.SCHEDULED_NOT_STARTED) < verdicts.index(V.NO_BLOCKER_FOUND)


def test_blocking() -> None:
    assert all(v.blocking for v in Verdict if v is not V.PROVISIONING)
    assert not V.PROVISIONING.blocking
    for name in NAMES:
        assert analyse(name).blocking, name
    only_in_flight = analyse(
        "automode-capacity", only=["inferentia/neuron-7b4c9-pq2rs", "inferentia/neuroncore-0"]
    )
    assert [p.verdict for p in only_in_flight.pods] == [V.PROVISIONING, V.PROVISIONING]
    assert not only_in_flight.blocking
    assert not analyse("automode-capacity", only=[]).blocking


def test_targets_kind() -> None:
    assert analyse("automode-gpu").targets == "nodepools"
    assert analyse("karpenter-gpu").targets == "nodepools"
    assert analyse("no-karpenter").targets == "nodes"


# ---- shapes -----------------------------------------------------------------------------------------------


def test_pods_sharing_a_shape_share_their_evaluation() -> None:
    report = analyse("automode-gpu")
    a = diagnosis(report, "serving/llm-5f7b9-aaaaa")
    b = diagnosis(report, "serving/llm-5f7b9-bbbbb")
    assert a.evaluations is b.evaluations  # evaluated once
    assert a.blockers == b.blockers
    assert (a.verdict, a.nearest, a.reason, a.fix) == (b.verdict, b.nearest, b.reason, b.fix)


def test_shape_key() -> None:
    state = state_of(items("automode-gpu"))
    pods = {f"{p.namespace}/{p.name}": p for p in state.pods}
    assert shape_of(pods["serving/llm-5f7b9-aaaaa"]).key == shape_of(pods["serving/llm-5f7b9-bbbbb"]).key
    # Same requests, different tolerations / selectors: different shapes.
    assert shape_of(pods["serving/nominated-fresh"]).key == shape_of(pods["serving/nominated-stale"]).key
    assert shape_of(pods["ml/wrong-value"]).key != shape_of(pods["ml/gpu-nvidia-7d9f8-abcde"]).key
    assert shape_of(pods["ml/karpenter-label"]).key != shape_of(pods["ml/gfd-label"]).key


def test_same_shape_different_evidence_different_verdict() -> None:
    """A shape caches target evaluations, never the per-pod part (evidence, in-flight state)."""
    report = analyse("automode-gpu")
    fresh = diagnosis(report, "serving/nominated-fresh")
    stale = diagnosis(report, "serving/nominated-stale")
    assert fresh.evaluations is stale.evaluations
    assert (fresh.verdict, stale.verdict) == (V.PROVISIONING, V.NO_BLOCKER_FOUND)


# ---- JSON contract ----------------------------------------------------------------------------------------

POD_KEYS = {
    "namespace",
    "name",
    "requests",
    "verdict",
    "reason",
    "nearest",
    "shape",
    "evidence",
    "fix",
    "fixVerified",
    "fixAfter",
    "disagreements",
    "notes",
}
SHAPE_KEYS = {"blockers", "blockersOmitted", "blockerSummary", "targetCount"}


@pytest.mark.parametrize("scenario", NAMES)
def test_json_contract(scenario: str) -> None:
    data = analyse(scenario, all_pending=True).to_dict()
    assert json.loads(json.dumps(data)) == data  # plain JSON types only
    assert data["apiVersion"] == "kubectl-gpu/v1"
    assert data["kind"] == "PendingReport"
    assert data["evaluatedAt"] == "2026-11-29T12:00:00Z"
    assert data["targets"] in ("nodepools", "nodes")
    assert {pod["shape"] for pod in data["pods"]} == set(range(len(data["shapes"])))  # each shape used
    for pod in data["pods"]:
        assert set(pod) == POD_KEYS
        assert pod["verdict"] in {str(v) for v in Verdict}
        assert pod["nearest"] is None or set(pod["nearest"]) == {"kind", "name"}
        assert all(isinstance(v, int | float) for v in pod["requests"].values())
    for shape in data["shapes"]:
        assert set(shape) == SHAPE_KEYS
        for blocker in shape["blockers"]:
            assert set(blocker) == {"code", "class", "target", "message", "fix"}
            assert blocker["class"] in ("spec", "capacity")
            assert set(blocker["target"]) == {"kind", "name"}
        assert isinstance(shape["targetCount"], int) and isinstance(shape["blockersOmitted"], int)
        listed = {(b["code"], b["target"]["name"]) for b in shape["blockers"]}
        for entry in shape["blockerSummary"]:
            assert set(entry) == {"code", "class", "targetCount", "targets", "targetsOmitted"}
            assert entry["targetCount"] == len(entry["targets"]) + entry["targetsOmitted"]
            if shape["blockersOmitted"] == 0:  # every blocker listed: the summary counts exactly those
                assert entry["targetCount"] == sum(1 for code, _ in listed if code == entry["code"])
    for pod in data["pods"]:
        for row in pod["evidence"]:
            assert set(row) == {"source", "reason", "message", "count", "lastSeen", "codes"}
            assert row["source"] in ("scheduler", "karpenter", "auto-mode", "unknown")
            assert isinstance(row["count"], int)
        assert isinstance(pod["disagreements"], list) and isinstance(pod["notes"], list)
        assert pod["fixVerified"] in (True, False, None)
        if pod["fixAfter"] is not None:  # issue 20: the fix made on a copy, and what happens then
            assert set(pod["fixAfter"]) == {"change", "verdict", "target", "instanceType", "message"}
            assert pod["fixAfter"]["message"].startswith("after this change")


def test_json_values() -> None:
    diag = diagnosis(analyse("automode-capacity"), "training/train-llama-0")
    pod = diag.to_dict()
    assert pod["requests"] == {
        "nvidia.com/gpu": 8,
        "vpc.amazonaws.com/efa": 32,
        "cpu": 96,
        "memory": 1024 * 2**30,
    }
    assert pod["verdict"] == "NODEPOOL_LIMIT_REACHED"
    assert pod["nearest"] == {"kind": "NodePool", "name": "training"}
    assert diag.shape_dict()["blockers"][0]["target"] == {"kind": "NodePool", "name": "training"}
    assert pod["evidence"][0]["lastSeen"] == "2026-11-29T11:57:00Z"
    no_pool = diagnosis(analyse("automode-gpu"), "ml/mig-slice").to_dict()
    assert no_pool["nearest"] is None
    assert analyse("automode-gpu", now=NOW).to_dict()["evaluatedAt"] == "2026-11-29T12:00:00Z"


def test_one_instant_in_two_offsets_is_written_in_each_its_own() -> None:
    """Times are written once per distinct value: an instant equal to another in another offset is not the
    other's text."""
    from datetime import UTC, datetime, timedelta, timezone

    from kubectl_gpu.core.analyses.pending.times import iso_time as _time

    utc = datetime(2026, 1, 1, 12, tzinfo=UTC)
    east = utc.astimezone(timezone(timedelta(hours=2)))
    assert utc == east
    assert (_time(utc), _time(east), _time(utc)) == (
        "2026-01-01T12:00:00Z",
        "2026-01-01T14:00:00+02:00",
        "2026-01-01T12:00:00Z",
    )
    assert _time(None) is None
