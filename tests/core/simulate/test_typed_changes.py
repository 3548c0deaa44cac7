"""One engine, two paths: a patch made on the object as read (a source that keeps manifests: simulate, the
TUI) and on its parsed model (pending and explain keep none) give the same model, on the demo snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.changes import Change, ChangeError, apply_changes, changed_objects
from kubectl_gpu.core.k8s.models import NodePool, Pod
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.snapshot import load_snapshot

DEMO = Path(__file__).resolve().parents[3] / "examples" / "automode-gpu-demo.json"


@pytest.fixture(scope="module")
def states() -> tuple[ClusterState, ClusterState]:
    return load_snapshot([DEMO], keep_manifests=True), load_snapshot([DEMO])


def _both(states: tuple[ClusterState, ClusterState], change: Change) -> tuple[Any, Any]:
    """The model made on the manifest (`apply_changes` on the state that kept them) and on the model."""
    kept = apply_changes(states[0], (change,))[1][0].model
    bare = changed_objects(states[1], (change,))[0].model
    assert changed_objects(states[0], (change,))[0].model == bare  # kept manifests: made on the model too
    if isinstance(bare, NodePool):  # what lint's unknown-field check reads: as parsed from the patched object
        assert bare.field_paths == kept.field_paths
    return kept, bare


def test_a_merge_patch_lifting_a_pools_limits_is_the_same_on_both_paths(
    states: tuple[ClusterState, ClusterState],
) -> None:
    change = Change("patch", "NodePool", "gpu-training", body={"spec": {"limits": None}}, patch_type="merge")
    kept, bare = _both(states, change)
    assert isinstance(bare, NodePool) and bare.limits == kept.limits == {}
    assert bare.requirements == kept.requirements
    assert states[1].nodepool_by_name["gpu-training"].limits  # the captured state is not changed


def test_a_merge_patch_of_limits_and_requirements_on_the_model(
    states: tuple[ClusterState, ClusterState],
) -> None:
    pool = states[1].nodepool_by_name["gpu-inference"]
    spot = [r for r in pool.requirements if r["key"] != "karpenter.sh/capacity-type"]
    body = {"spec": {"limits": {"nvidia.com/gpu": "32"}, "template": {"spec": {"requirements": spot}}}}
    kept, bare = _both(states, Change("patch", "NodePool", "gpu-inference", body=body, patch_type="merge"))
    assert bare.limits == kept.limits and str(bare.limits["nvidia.com/gpu"]) == "32"
    assert bare.requirements == kept.requirements == tuple(spot)


def test_a_field_a_patch_writes_wrong_is_linted_on_the_model_as_on_the_manifest(
    states: tuple[ClusterState, ClusterState],
) -> None:
    from datetime import UTC, datetime

    from kubectl_gpu.core.analyses.lint import analyse as lint
    from kubectl_gpu.core.catalog import load_catalog

    pool = states[1].nodepool_by_name["gpu-inference"]
    typo = [{**r, "value": r["values"]} if "values" in r else r for r in pool.requirements]  # `value`: no such field
    body = {"spec": {"template": {"spec": {"requirements": typo}}, "limits": {"cpu": None, "memory": "1Ti"}}}
    change = Change("patch", "NodePool", "gpu-inference", body=body, patch_type="merge")
    bare = _both(states, change)[1]
    assert ".spec.template.spec.requirements[].value" in bare.field_paths
    assert ".spec.limits.cpu" not in bare.field_paths and ".spec.limits.memory" in bare.field_paths
    fixed = Change("patch", "NodePool", "gpu-inference", body={"spec": {"limits": None}}, patch_type="merge")
    assert not [p for p in _both(states, fixed)[1].field_paths if p.startswith(".spec.limits")]

    def unknown_fields(state: ClusterState) -> list[str]:
        report = lint(state, load_catalog(), datetime(2026, 12, 6, tzinfo=UTC))
        return [f.message for f in report.findings if f.code == "LINT_UNKNOWN_FIELD"]

    before = unknown_fields(states[1])
    after = unknown_fields(apply_changes(states[1], (change,))[0])
    new = [m for m in after if m not in before]
    assert len(new) == 1 and new[0].startswith("NodePool gpu-inference sets spec.template.spec.requirements[].value,")
    assert after == unknown_fields(apply_changes(states[0], (change,))[0])


def test_a_strategic_patch_of_a_pods_tolerations_and_selector_is_the_same_on_both_paths(
    states: tuple[ClusterState, ClusterState],
) -> None:
    body = {
        "spec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "nodeSelector": {"eks.amazonaws.com/instance-gpu-name": None, "extra": "yes"},
        }
    }
    change = Change("patch", "Pod", "vllm-l40s-1", "serving", body)
    kept, bare = _both(states, change)
    assert isinstance(bare, Pod)
    assert bare.tolerations == kept.tolerations and len(bare.tolerations) == 1
    assert bare.node_selector == kept.node_selector == {"extra": "yes"}
    assert bare.node_affinity == kept.node_affinity
    new, _ = apply_changes(states[1], (change,))
    assert [p for p in new.pods if p.name == "vllm-l40s-1"] == [bare]
    assert len(new.pods) == len(states[1].pods)


def test_a_field_the_model_does_not_hold_needs_the_manifest(
    states: tuple[ClusterState, ClusterState],
) -> None:
    change = Change("patch", "NodePool", "gpu-training", body={"spec": {"weight": 5}}, patch_type="merge")
    assert changed_objects(states[0], (change,))[0].model.weight == 5
    with pytest.raises(ChangeError, match=r"spec\.weight: the source kept no copy of it"):
        changed_objects(states[1], (change,))
    json_patch = Change("patch", "Pod", "vllm-l40s-1", "serving", [], patch_type="json")
    with pytest.raises(ChangeError, match="json patch"):
        changed_objects(states[1], (json_patch,))


def test_a_change_to_a_pod_the_caller_holds_builds_no_index_of_every_pod() -> None:
    """The fix verifier names the pod it patches: the same model, and no pass over every pod to find it."""
    body = {"spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}}
    change = Change("patch", "Pod", "vllm-l40s-1", "serving", body)
    state = load_snapshot([DEMO])
    pod = next(p for p in state.pods if p.namespace == "serving" and p.name == "vllm-l40s-1")
    other = next(p for p in state.pods if p.name != "vllm-l40s-1")
    made = changed_objects(state, (change,), pods=(pod,))[0]
    assert not state._memo  # nothing memoized on the state: no pod index was built
    assert made.pods_removed == ("vllm-l40s-1",)
    assert made.model == changed_objects(load_snapshot([DEMO]), (change,))[0].model
    assert len(made.model.tolerations) == 1
    # a held pod by another name is not the one the change means: the index finds it
    again = changed_objects(state, (change,), pods=(other,))[0]
    assert again.model == made.model and state._memo
