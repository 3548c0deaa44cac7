"""`simulate` on the demo snapshot, with changes whose effect Karpenter's rules fix in advance."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses.simulate import Direction, SimulateReport, simulate
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.changes import Change, ChangeError
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.snapshot import load_snapshot

DEMO = Path(__file__).resolve().parents[3] / "examples" / "automode-gpu-demo.json"


@pytest.fixture(scope="module")
def demo() -> ClusterState:
    return load_snapshot([DEMO], keep_manifests=True)


def run(state: ClusterState, *changes: Change) -> SimulateReport:
    assert state.captured_at is not None
    return simulate(state, changes, load_catalog(), state.captured_at)


def requirements(state: ClusterState, pool: str) -> list[dict[str, Any]]:
    manifest = state.manifest("NodePool", pool)
    assert manifest is not None
    return list(manifest["spec"]["template"]["spec"]["requirements"])


def pool_patch(name: str, body: dict[str, Any]) -> Change:
    return Change("patch", "NodePool", name, body=body, patch_type="merge", source="test")


def effects(report: SimulateReport, direction: Direction, area: str) -> list[str]:
    return [f"{e.object} {e.message}" for e in report.of(direction) if e.area == area]


def test_a_toleration_added_to_the_deployment_schedules_its_new_replica(demo: ClusterState) -> None:
    toleration = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    patch = {"spec": {"template": {"spec": {"tolerations": [toleration]}}}}
    report = run(demo, Change("patch", "Deployment", "chat-api", "default", patch, "strategic", "test"))
    better = effects(report, Direction.BETTER, "pending")
    assert any("chat-api-simulated-0 schedules: NodePool gpu-inference" in e for e in better), better
    assert report.applied[0].pods_removed == ("chat-api-7d9f8c6b5d-x2k4p",)
    assert report.exit_code() == 0  # nothing got worse


def test_spot_allowed_unblocks_the_spot_pod_and_drifts_nothing(demo: ClusterState) -> None:
    reqs = requirements(demo, "gpu-inference")
    spot = [
        {**r, "values": ["on-demand", "spot"]} if r["key"] == "karpenter.sh/capacity-type" else r
        for r in reqs
    ]
    report = run(demo, pool_patch("gpu-inference", {"spec": {"template": {"spec": {"requirements": spot}}}}))
    assert any("ml/batch-spot schedules" in e for e in effects(report, Direction.BETTER, "pending"))
    assert not report.drifts  # requirements are hash:"ignore"; every node still satisfies them


def test_a_family_removed_drifts_the_nodes_of_that_family(demo: ClusterState) -> None:
    reqs = requirements(demo, "gpu-inference")
    only_g6 = [{**r, "values": ["g6"]} if r["key"].endswith("instance-family") else r for r in reqs]
    report = run(
        demo, pool_patch("gpu-inference", {"spec": {"template": {"spec": {"requirements": only_g6}}}})
    )
    assert [d.reason for d in report.drifts] == ["RequirementsDrifted"]
    assert report.drifts[0].gpu_pods  # the GPU pods on the g6e nodes go with them
    assert report.exit_code() == 1


def test_limits_raised_unblock_the_pod_at_the_limit(demo: ClusterState) -> None:
    report = run(demo, pool_patch("gpu-training", {"spec": {"limits": {"nvidia.com/gpu": "32"}}}))
    better = effects(report, Direction.BETTER, "pending")
    assert any("pretrain-8x-h100-1 schedules: NodePool gpu-training, p5.48xlarge" in e for e in better), (
        better
    )
    assert any("GPU limit 8 -> 32" in e.message for e in report.effects if e.area == "capacity")
    assert not report.drifts  # limits are not part of the template hash


def test_improves_pending_and_worsens_lifecycle_at_once(demo: ClusterState) -> None:
    body = {"spec": {"limits": {"nvidia.com/gpu": "32"}, "template": {"spec": {"expireAfter": "336h"}}}}
    report = run(demo, pool_patch("gpu-training", body))
    assert effects(report, Direction.BETTER, "pending")
    assert [d.reason for d in report.drifts] == ["NodePoolDrifted"]
    assert report.drifts[0].fields == ("spec.template.spec.expireAfter",)
    assert report.exit_code() == 1


def test_consolidation_changed_is_a_difference_without_drift(demo: ClusterState) -> None:
    body = {"spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized"}}}
    report = run(demo, pool_patch("gpu-training", body))
    assert not report.drifts  # spec.disruption is outside spec.template
    assert report.effects


def test_expire_after_never_drifts_the_pool_and_adds_the_lint_finding(demo: ClusterState) -> None:
    report = run(
        demo, pool_patch("gpu-inference", {"spec": {"template": {"spec": {"expireAfter": "Never"}}}})
    )
    assert [d.reason for d in report.drifts] == ["NodePoolDrifted"]
    worse = effects(report, Direction.WORSE, "findings")
    assert any("LINT_EXPIRE_NEVER_AUTO_MODE" in e for e in worse), worse


def test_a_budget_window_changes_no_node(demo: ClusterState) -> None:
    budgets = [
        {"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h", "reasons": ["Drifted"]},
        {"nodes": "1"},
    ]
    report = run(demo, pool_patch("gpu-inference", {"spec": {"disruption": {"budgets": budgets}}}))
    assert not report.drifts


def test_an_ephemeral_size_above_the_nvme_is_reported(demo: ClusterState) -> None:
    patch = {"spec": {"ephemeralStorage": {"size": "8Ti"}}}
    report = run(demo, Change("patch", "NodeClass", "gpu", body=patch, patch_type="merge", source="test"))
    assert any(e.area == "storage" and "300Gi -> 8Ti" in e.message for e in report.effects)
    assert [d.reason for d in report.drifts] == ["NodeClassDrift"]


def test_a_rule_the_crd_carries_refuses_the_change(demo: ClusterState) -> None:
    budgets = [{"nodes": "0", "schedule": "0 9 * * mon-fri"}]
    with pytest.raises(ChangeError, match="'schedule' must be set with 'duration'"):
        run(demo, pool_patch("gpu-inference", {"spec": {"disruption": {"budgets": budgets}}}))
    reqs = [{"key": "karpenter.sh/nodepool", "operator": "In", "values": []}]
    with pytest.raises(ChangeError, match="must have a value defined"):
        run(demo, pool_patch("gpu-inference", {"spec": {"template": {"spec": {"requirements": reqs}}}}))


def test_bad_changes_are_refused_whole(demo: ClusterState) -> None:
    with pytest.raises(ChangeError, match="strategic merge patch is not supported for custom resources"):
        run(demo, Change("patch", "NodePool", "gpu-inference", body={"spec": {}}, source="f.yaml"))
    bad = [{"op": "replace", "path": "/spec/nope/x", "value": 1}]
    with pytest.raises(ChangeError, match=r"f\.yaml: NodePool/gpu-inference: the json patch does not apply"):
        run(demo, Change("patch", "NodePool", "gpu-inference", body=bad, patch_type="json", source="f.yaml"))
    with pytest.raises(ChangeError, match="not found"):
        run(demo, pool_patch("no-such-pool", {"spec": {}}))


def test_a_json_patch_and_a_deletion(demo: ClusterState) -> None:
    op = [{"op": "replace", "path": "/spec/limits/nvidia.com~1gpu", "value": "16"}]
    report = run(demo, Change("patch", "NodePool", "gpu-training", body=op, patch_type="json"))
    assert any("pretrain-8x-h100-1 schedules" in e for e in effects(report, Direction.BETTER, "pending"))
    gone = run(demo, Change("delete", "NodePool", "gpu-inference"))
    assert [d.reason for d in gone.drifts] == ["NodePoolDeleted"]


LIFECYCLE = DEMO.parents[1] / "tests" / "scenarios" / "lifecycle" / "ours__automode-lifecycle.yaml"
FRIDAY = datetime(2026, 11, 27, 16, 30, tzinfo=UTC)  # the scenario's evaluation time (its header)
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "eval", "namespace": "ml"},
    "spec": {
        "parallelism": 2,
        "template": {
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [
                    {"name": "eval", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
                ],
            }
        },
    },
}


def test_consolidation_changed_puts_running_gpu_pods_at_risk_while_a_new_job_schedules() -> None:
    state = load_snapshot([LIFECYCLE], keep_manifests=True)
    consolidate = pool_patch(
        "gpu-train", {"spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized"}}}
    )
    job = Change("apply", "Job", "eval", "ml", JOB, source="job.yaml")
    unknown = simulate(state, (job,), load_catalog(), FRIDAY)  # the scenario holds no NodeClass: not known
    assert [e.message.split(":")[0] for e in unknown.effects] == ["not known", "not known"]
    assert unknown.exit_code() == 0
    nodeclass = {
        "apiVersion": "eks.amazonaws.com/v1",
        "kind": "NodeClass",
        "metadata": {"name": "default"},
        "spec": {"ephemeralStorage": {"size": "80Gi"}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    added = Change("apply", "NodeClass", "default", body=nodeclass, source="nodeclass.yaml")
    report = simulate(state, (consolidate, added, job), load_catalog(), FRIDAY)
    worse = effects(report, Direction.WORSE, "lifecycle")
    assert any(
        "ml/finetune-0 GPU pod risk medium -> high; earliest disruption: consolidation" in e for e in worse
    )
    better = effects(report, Direction.BETTER, "pending")
    assert [e.split(" ")[0] for e in better] == ["pod/ml/eval-0", "pod/ml/eval-1"], better
    assert not report.drifts  # spec.disruption is not part of the template hash


def test_a_whole_object_keeps_the_captured_status(demo: ClusterState) -> None:
    """`kubectl apply` never writes the status subresource: the pool's GPUs in use stay counted."""
    manifest = demo.manifest("NodePool", "gpu-training")
    assert manifest is not None
    whole = {k: v for k, v in manifest.items() if k != "status"}
    same = run(demo, Change("apply", "NodePool", "gpu-training", body=whole, source="pool.yaml"))
    assert not effects(same, Direction.BETTER, "pending")  # still at its limit: 8 GPUs in use
    assert not same.drifts


def test_a_pool_from_a_repository_gets_the_crd_defaults(demo: ClusterState) -> None:
    """A file without expireAfter is stored with 720h (the CRD's default): against the captured 336h it is a
    template change, so it drifts the pool; the disruption defaults it leaves out are no change."""
    manifest = demo.manifest("NodePool", "gpu-inference")
    assert manifest is not None
    spec = manifest["spec"]
    tspec = {k: v for k, v in spec["template"]["spec"].items() if k != "expireAfter"}
    bare = {**manifest, "spec": {**spec, "template": {**spec["template"], "spec": tspec}}}
    report = run(demo, Change("apply", "NodePool", "gpu-inference", body=bare, source="pool.yaml"))
    assert [d.fields for d in report.drifts] == [("spec.template.spec.expireAfter",)]
    assert report.applied[0].after is not None
    assert report.applied[0].after["spec"]["template"]["spec"]["expireAfter"] == "720h"


DRIVERS = DEMO.parents[1] / "tests" / "scenarios" / "drivers" / "ours__mixed-drivers-and-cuda-needs.yaml"


def ec2nodeclass(alias: str) -> Change:
    body = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "bottlerocket-nvidia"},
        "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": alias}]},
    }
    return Change("apply", "EC2NodeClass", "bottlerocket-nvidia", body=body, source="ec2nodeclass.yaml")


def test_an_ami_change_moves_the_cuda_ceiling_of_the_pools_workloads() -> None:
    """Bottlerocket 1.53.0's aws-k8s-1.31-nvidia ships driver 580.95.05 (CUDA 13.0): the CUDA 13.0.1 pod the
    1.26.1 node (535.216.01, CUDA 12.2) cannot run now can; an alias the catalog cannot map is not known."""
    state = load_snapshot([DRIVERS], keep_manifests=True)
    assert state.captured_at is not None
    newer = simulate(state, (ec2nodeclass("bottlerocket@1.53.0"),), load_catalog(), state.captured_at)
    assert any(
        "pod/ml/on-inferred needs CUDA 13.0.1: driver 580.95.05" in e
        for e in effects(newer, Direction.BETTER, "drivers")
    )
    unknown = simulate(state, (ec2nodeclass("al2023@latest"),), load_catalog(), state.captured_at)
    (said,) = [e for e in unknown.effects if e.area == "drivers"]
    assert said.direction is Direction.UNCHANGED and "not known here" in said.message


def test_an_ephemeral_size_below_the_nvme_turns_the_cache_on(demo: ClusterState) -> None:
    patch = {"spec": {"ephemeralStorage": {"size": "80Gi"}}}
    report = run(demo, Change("patch", "NodeClass", "gpu", body=patch, patch_type="merge", source="test"))
    better = effects(report, Direction.BETTER, "findings")
    assert any("gone warning LINT_NVME_CACHE_DISABLED" in e for e in better), better
    assert any("gone warning NVME_NOT_USED" in e for e in better), better
