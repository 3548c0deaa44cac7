"""`kubectl gpu lifecycle` analysis on scenario snapshots: expireAfter (explicit and defaults) vs the 21-day
Auto Mode cap, terminationGracePeriod, drift, budgets and their UTC windows, do-not-disrupt in all its forms,
pod risk and the "will it survive N more days?" answer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses.lifecycle.analysis import (
    FOREVER,
    LifecycleReport,
    NodeLifecycle,
    PodLifecycle,
    analyse_lifecycle,
    expire_after_of,
    protection_of,
    termination_grace_of,
)
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_nodepool, parse_objects, parse_pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.k8s.times import parse_go_duration
from kubectl_gpu.core.report import Severity
from tests.helpers import FIXTURES as ALL_FIXTURES
from tests.helpers import SCENARIOS as ALL_SCENARIOS
from tests.helpers import load_yaml_docs, pod

SCENARIOS = ALL_SCENARIOS / "lifecycle"
FIXTURES = ALL_FIXTURES / "karpenter"
AUTO = SCENARIOS / "ours__automode-lifecycle.yaml"
KARP = SCENARIOS / "ours__karpenter-lifecycle.yaml"
AUTO_NOW = "2026-11-27T16:30:00Z"  # a Friday
KARP_NOW = "2026-11-29T23:30:00Z"  # a Sunday

Obj = dict[str, Any]


def t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _items(path: Path) -> list[Obj]:
    out: list[Obj] = []
    for doc in load_yaml_docs(path):
        out.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    return out


def _find(items: list[Obj], kind: str, name: str) -> Obj:
    return next(o for o in items if o["kind"] == kind and o["metadata"]["name"] == name)


def state_of(path: Path, mutate: Callable[[list[Obj]], None] | None = None) -> ClusterState:
    items = _items(path)
    if mutate is not None:
        mutate(items)
    models, _ = parse_objects(items)
    state = ClusterState.of(models)
    return state


def run(
    path: Path,
    now: str,
    mutate: Callable[[list[Obj]], None] | None = None,
    **kw: Any,
) -> LifecycleReport:
    return analyse_lifecycle(state_of(path, mutate), load_catalog(), t(now), **kw)


def node(report: LifecycleReport, name: str) -> NodeLifecycle:
    return next(n for n in report.nodes if n.name == name)


def pod_of(report: LifecycleReport, name: str) -> PodLifecycle:
    return next(p for p in report.pods if p.name == name)


def codes(report: LifecycleReport) -> set[tuple[str, str, str]]:
    return {(f.code, f.severity.value, f.object.name) for f in report.findings}


@pytest.fixture(scope="module")
def auto() -> LifecycleReport:
    return run(AUTO, AUTO_NOW)


@pytest.fixture(scope="module")
def karp() -> LifecycleReport:
    return run(KARP, KARP_NOW)


class TestExpiry:
    def test_cap_comes_before_the_default_expire_after(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0inf0001")
        assert (n.expire_after.value, n.expire_after.source) == ("720h", "karpenter-default")
        assert n.max_lifetime == timedelta(days=21)
        assert n.expires_at == t("2026-11-28T00:00:00Z")  # NodeClaim creation + 21 days, not + 720h
        assert n.expiry_reason == "maxLifetime"
        assert n.forced_by == n.expires_at

    def test_expire_after_comes_before_the_cap(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0train001")
        assert (n.expire_after.value, n.expire_after.source) == ("336h", "nodeclaim")
        assert n.expires_at == t("2026-12-04T00:00:00Z")
        assert n.expiry_reason == "expireAfter"
        # No terminationGracePeriod: only the 21-day cap bounds the drain.
        assert n.termination_grace_period.source == "unset"
        assert n.forced_by == t("2026-12-11T00:00:00Z")

    def test_nodeclaim_value_wins_and_tgp_adds_up(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0inf0002")
        assert (n.expire_after.value, n.expire_after.source) == ("720h", "nodeclaim")
        assert n.termination_grace_period.value == "24h0m0s"
        assert n.expiry_reason == "maxLifetime" and n.expires_at == t("2026-12-17T00:00:00Z")

    def test_expiry_is_measured_from_the_nodeclaim(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0train002")
        assert n.created == t("2026-11-25T00:00:00Z")  # the Node object is a minute younger
        assert n.expires_at == t("2026-12-09T00:00:00Z")

    def test_expiring_soon_finding(self, auto: LifecycleReport) -> None:
        assert ("LIFECYCLE_NODE_EXPIRING", "warning", "i-0inf0001") in codes(auto)
        msg = next(f.message for f in auto.findings if f.code == "LIFECYCLE_NODE_EXPIRING")
        assert "21-day Auto Mode maximum lifetime" in msg and "in 7h30m" in msg

    def test_never_on_auto_mode_still_hits_the_cap(self) -> None:
        def never(items: list[Obj]) -> None:
            _find(items, "NodeClaim", "gpu-train-ccccc")["spec"]["expireAfter"] = "Never"

        n = node(run(AUTO, AUTO_NOW, never), "i-0train001")
        assert n.expire_after.value == "Never"
        assert n.expiry_reason == "maxLifetime" and n.expires_at == t("2026-12-11T00:00:00Z")

    def test_never_on_self_managed_never_expires(self) -> None:
        def never(items: list[Obj]) -> None:
            _find(items, "NodeClaim", "gpu-k8s10")["spec"]["expireAfter"] = "Never"

        n = node(run(KARP, KARP_NOW, never), "ip-10-0-1-10.us-west-2.compute.internal")
        assert n.expires_at is None and n.expiry_reason is None and n.max_lifetime is None
        assert all(d.by != "expiry" for d in n.disruptions)

    def test_builtin_pool_default_is_336h(self) -> None:
        def strip(items: list[Obj]) -> None:
            del _find(items, "NodePool", "general-purpose")["spec"]["template"]["spec"]["expireAfter"]
            del _find(items, "NodeClaim", "general-purpose-eeeee")["spec"]["expireAfter"]

        report = run(AUTO, AUTO_NOW, strip, include_all=True)
        n = node(report, "i-0cpu0001")
        assert (n.expire_after.value, n.expire_after.source) == ("336h", "automode-builtin-default")
        assert n.expires_at == t("2026-12-04T10:00:00Z")

    def test_past_expiry_is_reported(self, karp: LifecycleReport) -> None:
        name = "ip-10-0-1-12.us-west-2.compute.internal"
        n = node(karp, name)
        assert n.expires_at == t("2026-11-28T12:00:00Z") and n.forced_by is None
        assert ("LIFECYCLE_NODE_EXPIRED", "warning", name) in codes(karp)

    def test_default_720h_on_self_managed(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-2-20.us-west-2.compute.internal")
        assert (n.expire_after.value, n.expire_after.source) == ("720h", "karpenter-default")
        assert n.expires_at == t("2026-12-29T00:00:00Z") and n.compute_type == "karpenter"


class TestSettingsFromRealManifests:
    def test_automode_gpu_pool_from_the_eks_docs(self) -> None:
        pool = parse_nodepool(load_yaml_docs(FIXTURES / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml")[0])
        assert expire_after_of(None, pool).to_dict() == {"value": "720h", "source": "karpenter-default"}
        assert termination_grace_of(None, pool).to_dict() == {"value": "24h0m0s", "source": "nodepool"}

    def test_data_on_eks_pool_has_no_tgp(self) -> None:
        pool = parse_nodepool(load_yaml_docs(FIXTURES / "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml")[0])
        assert expire_after_of(None, pool).source == "karpenter-default"
        assert termination_grace_of(None, pool).to_dict() == {"value": None, "source": "unset"}

    def test_nothing_known(self) -> None:
        assert expire_after_of(None, None).source == "unknown"
        assert termination_grace_of(None, None).source == "unknown"


class TestDrift:
    def test_drifted_and_allowed_now(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0inf0002")
        assert n.drifted is True and n.drift_reason == "AMIDrift"
        assert n.drifted_since == t("2026-11-27T06:00:00Z")
        nxt = n.next_disruption
        assert nxt is not None and (nxt.by, nxt.at, nxt.certain) == ("drift", t(AUTO_NOW), True)
        assert ("LIFECYCLE_NODE_DRIFTED", "warning", "i-0inf0002") in codes(auto)

    def test_do_not_disrupt_blocks_drift_without_tgp(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0train001")
        assert n.drifted is True
        assert all(d.by != "drift" for d in n.disruptions)
        f = next(
            f for f in auto.findings if f.code == "LIFECYCLE_NODE_DRIFTED" and f.object.name == "i-0train001"
        )
        assert f.severity is Severity.INFO and "ml/pretrain-0 hold it" in f.message

    def test_tgp_lets_drift_pass_do_not_disrupt(self) -> None:
        def tgp(items: list[Obj]) -> None:
            _find(items, "NodeClaim", "gpu-train-ccccc")["spec"]["terminationGracePeriod"] = "24h"

        report = run(AUTO, "2026-11-28T06:00:00Z", tgp)  # Saturday: the budget window is open
        drift = next(d for d in node(report, "i-0train001").disruptions if d.by == "drift")
        assert drift.at == t("2026-11-28T06:00:00Z")
        # The protected pod is deleted when the 24h grace period runs out, minus its own 30s.
        pod_drift = next(d for d in pod_of(report, "pretrain-0").disruptions if d.by == "drift")
        assert pod_drift.at == t("2026-11-29T05:59:30Z")

    def test_node_annotation_blocks_drift(self) -> None:
        def annotate(items: list[Obj]) -> None:
            meta = _find(items, "Node", "i-0inf0002")["metadata"]
            meta["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}

        report = run(AUTO, AUTO_NOW, annotate)
        n = node(report, "i-0inf0002")
        assert [d.by for d in n.disruptions] == ["maxLifetime"]  # expiry still comes
        f = next(f for f in report.findings if f.code == "LIFECYCLE_NODE_DRIFTED")
        assert "node's karpenter.sh/do-not-disrupt=true" in f.message

    def test_drift_within_budget_after_a_not_ready_node(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-1-10.us-west-2.compute.internal")
        assert (n.pool_nodes, n.pool_disrupting) == (3, 1)
        allowed = {a.reason: a for a in n.allowances}
        assert allowed["Drifted"].now == 1  # ceil(50% of 3) - 1 NotReady
        assert allowed["Drifted"].next_at == t(KARP_NOW)
        assert n.drift_reason == "NodePoolDrifted"

    def test_karpenter_events_are_reported(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-1-10.us-west-2.compute.internal")
        assert any(
            note.startswith("DisruptionBlocked at 2026-11-29T23:10:00Z: Pdb prevents") for note in n.notes
        )
        f = next(f for f in karp.findings if f.code == "LIFECYCLE_NODE_DRIFTED")
        assert "Karpenter reported DisruptionBlocked" in f.message


class TestBudgets:
    def test_weekday_block_across_the_week_boundary(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0train002")
        allowed = {a.reason: a for a in n.allowances}
        for reason in ("Drifted", "Underutilized", "Empty"):
            assert allowed[reason].now == 0
            assert allowed[reason].next_at == t("2026-11-28T00:00:00Z")  # Friday's window ends Saturday 00:00
        assert n.budgets is not None
        first = n.budgets[0]
        assert first.active and first.active_until == t("2026-11-28T00:00:00Z")
        assert (first.next_start, first.next_end) == (t("2026-11-30T00:00:00Z"), t("2026-12-05T00:00:00Z"))

    def test_nightly_window_across_midnight(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-1-10.us-west-2.compute.internal")
        allowed = {a.reason: a for a in n.allowances}
        assert allowed["Underutilized"].now == 0
        assert allowed["Underutilized"].next_at == t(
            "2026-11-30T02:00:00Z"
        )  # Sunday 22:00 + 4h = Monday 02:00
        consolidation = next(d for d in n.disruptions if d.by == "consolidation")
        assert consolidation.at == t("2026-11-30T02:00:00Z") and not consolidation.certain

    def test_percentage_rounds_up_and_unbounded_is_none(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0inf0001")
        allowed = {a.reason: a.now for a in n.allowances}
        assert allowed == {"Drifted": 1, "Underutilized": 1, "Empty": 1}  # ceil(10% of 2)
        k = node(run(KARP, KARP_NOW), "ip-10-0-1-11.us-west-2.compute.internal")
        assert {a.reason: a.now for a in k.allowances}["Empty"] == 0  # window active for Empty too

    def test_invalid_budget_fails_closed(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-2-20.us-west-2.compute.internal")
        assert {(a.now, a.next_at) for a in n.allowances} == {(0, None)}
        assert ("LIFECYCLE_BUDGET_INVALID", "error", "gpu-broken") in codes(karp)
        assert n.budgets is not None and n.budgets[0].spec.error is not None

    def test_terminating_claims_and_deleting_nodes_count(self) -> None:
        def terminating(items: list[Obj]) -> None:
            claim = _find(items, "NodeClaim", "gpu-k8s11")
            claim["status"]["conditions"].append({"type": "InstanceTerminating", "status": "True"})
            meta = _find(items, "Node", "ip-10-0-1-12.us-west-2.compute.internal")["metadata"]
            meta["deletionTimestamp"] = "2026-11-28T12:00:05Z"

        n = node(run(KARP, KARP_NOW, terminating), "ip-10-0-1-10.us-west-2.compute.internal")
        assert (n.pool_nodes, n.pool_disrupting) == (2, 1)  # the terminating claim is not counted at all

    def test_default_budget_when_the_pool_has_none(self) -> None:
        def strip(items: list[Obj]) -> None:
            del _find(items, "NodePool", "gpu-inference")["spec"]["disruption"]

        n = node(run(AUTO, AUTO_NOW, strip), "i-0inf0001")
        assert n.budgets_defaulted and n.budgets is not None and n.budgets[0].spec.budget.nodes == "10%"
        assert n.consolidation_policy.to_dict() == {
            "value": "WhenEmptyOrUnderutilized",
            "source": "karpenter-default",
        }


class TestDoNotDisrupt:
    @pytest.mark.parametrize(
        ("text", "seconds"),
        [
            ("48h", 172800),
            ("1h30m", 5400),
            ("1.5h", 5400),
            ("300ms", 0.3),
            ("-1h", -3600),
            ("0", 0),
        ],
    )
    def test_go_durations(self, text: str, seconds: float) -> None:
        value = parse_go_duration(text)
        assert value is not None and value.total_seconds() == pytest.approx(seconds)

    @pytest.mark.parametrize("text", ["True", "1d", "", "h", "5", "1h 30m", "yes"])
    def test_not_go_durations(self, text: str) -> None:
        assert parse_go_duration(text) is None

    def test_forms(self) -> None:
        def make(value: str, start: str | None = "2026-11-27T00:00:00Z") -> Any:
            raw = pod("p", "ns", annotations={"karpenter.sh/do-not-disrupt": value})
            if start:
                raw["status"]["startTime"] = start
            return protection_of(parse_pod(raw))

        assert make("true").kind == "permanent" and make("true").ends == FOREVER
        timed = make("12h")
        assert timed.kind == "duration" and timed.until == t("2026-11-27T12:00:00Z")
        assert timed.active_at(t("2026-11-27T11:59:00Z")) and not timed.active_at(t("2026-11-27T12:00:00Z"))
        assert make("12h", None).until == FOREVER  # no start time: Karpenter keeps it protected
        for bad in ("True", "0s", "-5m", "forever"):
            assert make(bad).kind == "invalid" and not make(bad).active_at(t(AUTO_NOW))

    def test_duration_protection_and_invalid_value(self, auto: LifecycleReport) -> None:
        n = node(auto, "i-0train002")
        by_pod = {p.name: p for p in n.protections}
        assert by_pod["finetune-0"].kind == "duration" and by_pod["finetune-0"].until == t(
            "2026-11-28T16:30:00Z"
        )
        assert by_pod["finetune-1"].kind == "invalid"
        assert ("LIFECYCLE_DND_INVALID", "warning", "finetune-1") in codes(auto)

    def test_without_tgp_only_when_protection_outlives_expiry(self, auto: LifecycleReport) -> None:
        found = {f.object.name for f in auto.findings if f.code == "LIFECYCLE_DND_WITHOUT_TGP"}
        assert found == {"i-0train001"}  # finetune-0's 48h end long before i-0train002 expires

    def test_node_annotation_must_be_exactly_true(self, karp: LifecycleReport) -> None:
        name = "ip-10-0-1-12.us-west-2.compute.internal"
        assert node(karp, name).node_do_not_disrupt == "True"
        assert ("LIFECYCLE_NODE_DND_IGNORED", "warning", name) in codes(karp)
        assert ("LIFECYCLE_DND_WITHOUT_TGP", "warning", name) in codes(karp)


class TestPods:
    def test_only_running_accelerator_pods(self, auto: LifecycleReport) -> None:
        assert {p.name for p in auto.pods} == {"llm-0", "llm-1", "pretrain-0", "finetune-0", "finetune-1"}
        assert pod_of(auto, "pretrain-0").requests == {"nvidia.com/gpu": "8"}

    def test_risk_levels(self, auto: LifecycleReport) -> None:
        assert pod_of(auto, "llm-1").risk == "high"  # drift now
        assert pod_of(auto, "llm-0").risk == "high"  # consolidation possible now, the cap in 7.5h
        assert pod_of(auto, "finetune-0").risk == "medium"  # only a future AMI drift (undated)
        assert pod_of(auto, "pretrain-0").risk == "low"
        at_risk = {f.object.name for f in auto.findings if f.code == "LIFECYCLE_POD_AT_RISK"}
        assert at_risk == {"llm-0", "llm-1"}

    def test_expiry_of_a_protected_pod_waits_for_the_cap(self, auto: LifecycleReport) -> None:
        p = pod_of(auto, "pretrain-0")
        expiry = next(d for d in p.disruptions if d.by == "expiry")
        assert expiry.forceful and expiry.at == t("2026-12-10T23:59:30Z")  # 21 days minus its 30s grace

    def test_future_ami_drift_is_undated(self, auto: LifecycleReport) -> None:
        drift = next(d for d in pod_of(auto, "finetune-0").disruptions if d.by == "drift")
        assert drift.at is None and not drift.certain and "about weekly" in drift.detail

    def test_ami_alias_latest_means_future_drift(self, karp: LifecycleReport) -> None:
        n = node(karp, "ip-10-0-1-11.us-west-2.compute.internal")
        assert any(d.by == "drift" and d.at is None and "@latest" in d.detail for d in n.disruptions)

    @pytest.mark.parametrize(
        ("name", "needs", "verdict"),
        [
            ("pretrain-0", "11d", "yes"),
            ("pretrain-0", "14d", "no"),  # the 21-day cap on 2026-12-11 comes first
            ("llm-1", "2h", "no"),  # drifted, the budget allows it now
            ("llm-0", "1h", "at-risk"),  # consolidation possible now, the cap only in 7.5 h
            ("llm-0", "8h", "no"),
            ("finetune-0", "5d", "at-risk"),  # a future AMI drift
            ("finetune-0", "12d", "no"),  # expiry 2026-12-09
        ],
    )
    def test_survival(self, name: str, needs: str, verdict: str) -> None:
        from kubectl_gpu.core.k8s.times import parse_duration

        target = next(p for p in _items(AUTO) if p["kind"] == "Pod" and p["metadata"]["name"] == name)
        report = run(
            AUTO, AUTO_NOW, pod=(target["metadata"]["namespace"], name), needs=(parse_duration(needs), needs)
        )
        assert [p.name for p in report.pods] == [name]
        assert len(report.nodes) == 1
        survival = report.pods[0].survival
        assert survival is not None and survival.verdict == verdict
        assert report.survival_failed is (verdict != "yes")
        wanted = {"no": "LIFECYCLE_POD_WILL_NOT_SURVIVE", "at-risk": "LIFECYCLE_POD_SURVIVAL_AT_RISK"}
        got = {
            f.code for f in report.findings if f.code.startswith("LIFECYCLE_POD_WILL") or "SURVIVAL" in f.code
        }
        assert got == ({wanted[verdict]} if verdict in wanted else set())

    def test_survival_fix_fits_the_cause(self) -> None:
        from kubectl_gpu.core.k8s.times import parse_duration

        report = run(AUTO, AUTO_NOW, pod=("ml", "pretrain-0"), needs=(parse_duration("14d"), "14d"))
        f = next(f for f in report.findings if f.code == "LIFECYCLE_POD_WILL_NOT_SURVIVE")
        assert f.severity is Severity.ERROR and f.fix is not None and "cannot be postponed" in f.fix

    def test_held_pod_on_an_expired_node(self, karp: LifecycleReport) -> None:
        p = pod_of(karp, "eval-b")
        assert p.disruptions == () and p.risk == "low"  # the drain cannot evict it: no TGP


class TestReport:
    def test_nodes_listed(self, auto: LifecycleReport) -> None:
        assert [n.name for n in auto.nodes] == ["i-0inf0001", "i-0inf0002", "i-0train001", "i-0train002"]
        everything = run(AUTO, AUTO_NOW, include_all=True)
        assert "i-0cpu0001" in {n.name for n in everything.nodes}

    def test_json_shape(self, auto: LifecycleReport) -> None:
        data = auto.to_dict()
        assert (data["apiVersion"], data["kind"], data["now"]) == (
            "kubectl-gpu/v1",
            "LifecycleReport",
            AUTO_NOW,
        )
        first = data["nodes"][0]
        for key in (
            "name",
            "nodePool",
            "createdAt",
            "expireAfter",
            "expireAfterSource",
            "maxLifetime",
            "terminationGracePeriod",
            "expiresAt",
            "expiryReason",
            "drifted",
            "driftReason",
            "budgets",
            "disruptionAllowed",
            "consolidationPolicy",
            "doNotDisrupt",
            "nextDisruption",
        ):
            assert key in first
        assert first["expiresAt"] == "2026-11-28T00:00:00Z" and first["expiryReason"] == "maxLifetime"
        assert first["maxLifetime"] == "504h"
        assert set(first["disruptionAllowed"]) == {"Drifted", "Underutilized", "Empty"}
        train = next(n for n in data["nodes"] if n["name"] == "i-0train002")
        assert train["budgets"][0]["activeUntil"] == "2026-11-28T00:00:00Z"
        pod_json = next(p for p in data["pods"] if p["name"] == "pretrain-0")
        assert pod_json["runningFor"] == "7d16h" and pod_json["doNotDisrupt"]["kind"] == "permanent"
        assert "survival" not in pod_json
        assert {f["source"] for f in data["findings"]} == {"lifecycle"}

    def test_node_without_karpenter(self) -> None:
        def unmanaged(items: list[Obj]) -> None:
            for obj in list(items):
                if obj["kind"] == "NodeClaim" and obj["metadata"]["name"] == "gpu-inference-aaaaa":
                    items.remove(obj)
            del _find(items, "Node", "i-0inf0001")["metadata"]["labels"]["karpenter.sh/nodepool"]

        n = node(run(AUTO, AUTO_NOW, unmanaged), "i-0inf0001")
        assert n.node_pool is None and n.budgets is None
        assert n.expire_after.source == "unknown"
        assert n.expiry_reason == "maxLifetime"  # still Auto Mode: the cap from the node's creation
        assert any("not managed by Karpenter" in note for note in n.notes)
