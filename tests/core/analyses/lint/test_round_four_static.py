"""Issue 37, cause 9: static-capacity NodePools (`spec.replicas`) are never consolidated.

Upstream (kubernetes-sigs/karpenter, commit 2266468104f36373ed002241afaee2d3bbc26078):
- pkg/apis/v1/nodepool.go: when replicas is set, `disruption.consolidationPolicy` and `consolidateAfter` "are
  ignored"; CEL rules "only 'limits.nodes' is supported on static NodePools" and "'weight' is not supported
  on static NodePools";
- pkg/controllers/disruption/consolidation.go and emptiness.go: `ShouldDisrupt` returns false for a
  candidate `OwnedByStaticNodePool()` (no consolidation, no emptiness);
- pkg/controllers/nodeclaim/disruption/controller.go: "NodeClaims belonging to static NodePools are never
  eligible for consolidation";
- pkg/controllers/disruption/staticdrift.go: drift still replaces a static pool's nodes.

The pools are the real manifests of tests/fixtures/karpenter (PROVENANCE.jsonl) made static the way a user
would: `spec.replicas` added, and what the API refuses on a static pool (resource limits, weight) removed.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from kubectl_gpu.core.analyses.lint.analysis import LintReport, lint
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from tests.helpers import FIXTURES, load_yaml_docs

PINNED_HERE = frozenset({"LINT_STATIC_POOL_FIELD"})
KARPENTER = FIXTURES / "karpenter"
REAL_GPU_POOLS = [
    "data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml",
    "eks-docs__automode-nodepool-gpu-g6e-g6.yaml",
    "sample-aws-eks-auto-mode__nodepools__gpu-nodepool.yaml",
    "sample-aws-eks-auto-mode__nodepool-templates__gpu-nodepool.yaml",
]
CONSOLIDATION_CODES = {"LINT_GPU_POOL_CONSOLIDATES_UNDERUTILIZED"}

Obj = dict[str, Any]


def _docs(name: str) -> list[Obj]:
    return [d for d in load_yaml_docs(KARPENTER / name) if isinstance(d, dict)]


def _static(docs: list[Obj], replicas: int = 2, *, keep_refused: bool = False) -> list[Obj]:
    out = copy.deepcopy(docs)
    for doc in out:
        if doc.get("kind") == "NodePool":
            spec = doc["spec"]
            spec["replicas"] = replicas
            if not keep_refused:
                spec.pop("weight", None)
                limits = {k: v for k, v in (spec.get("limits") or {}).items() if k == "nodes"}
                spec.pop("limits", None)
                if limits:
                    spec["limits"] = limits
    return out


def _lint(docs: list[Obj]) -> LintReport:
    models, _ = parse_objects(docs)
    return lint(ClusterState.of(models), load_catalog())


def _codes(report: LintReport) -> set[str]:
    return {f.code for f in report.findings}


@pytest.mark.parametrize("name", REAL_GPU_POOLS)
def test_a_static_pool_gets_no_consolidation_finding(name: str) -> None:
    docs = _docs(name)
    if not any(d.get("kind") == "NodePool" for d in docs):
        pytest.skip("no NodePool in this manifest")
    static = _lint(_static(docs))
    assert not _codes(static) & CONSOLIDATION_CODES
    for f in static.findings:  # no advice to consolidate, or to choose a consolidation policy
        if f.code == "LINT_STATIC_POOL_FIELD":
            continue  # it quotes the ignored settings
        text = f"{f.message} {f.fix or ''}"
        assert "WhenEmpty" not in text, f
        assert "block consolidation" not in text, f
    # Every other finding of the dynamic pool is still there (lint checks the rest as before).
    dynamic = _lint(docs)
    assert _codes(dynamic) - CONSOLIDATION_CODES - {
        "LINT_LIMITS_BELOW_SMALLEST_TYPE",
        "LINT_LIMITS_EXCLUDE_TYPES",
    } <= _codes(static) | {"LINT_STATIC_POOL_FIELD"}


def test_the_data_on_eks_pool_made_static_keeps_its_other_findings() -> None:
    report = _lint(_static(_docs("data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml")))
    codes = {(f.code, f.severity.value) for f in report.findings}
    assert ("LINT_GPU_POOL_NO_TAINT", "warning") in codes
    assert ("LINT_HARDCODED_INSTANCE_TYPES", "info") in codes
    # Its consolidationPolicy and consolidateAfter are ignored now: said, as info.
    ignored = [f for f in report.findings if f.code == "LINT_STATIC_POOL_FIELD"]
    assert [f.severity.value for f in ignored] == ["info"]
    assert "ignored" in ignored[0].message and "never consolidates" in ignored[0].message
    taint = next(f for f in report.findings if f.code == "LINT_GPU_POOL_NO_TAINT")
    assert "and take the room its GPU pods need" in taint.message


def test_resource_limits_and_weight_on_a_static_pool_are_refused() -> None:
    docs = _static(_docs("data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml"), keep_refused=True)
    docs[0]["spec"]["weight"] = 10
    report = _lint(docs)
    (refused,) = [
        f for f in report.findings if f.code == "LINT_STATIC_POOL_FIELD" and f.severity.value == "error"
    ]
    assert "limits other than nodes" in refused.message and "weight (10)" in refused.message
    assert refused.fix is not None and "limits: {nodes: N}" in refused.fix


def test_limits_nodes_counts_nodes_not_a_resource_of_the_type() -> None:
    docs = _static(_docs("data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml"))
    docs[0]["spec"]["limits"] = {"nodes": 3}
    codes = _codes(_lint(docs))
    assert not codes & {"LINT_LIMITS_BELOW_SMALLEST_TYPE", "LINT_LIMITS_EXCLUDE_TYPES"}
    assert "LINT_STATIC_POOL_FIELD" in codes  # its consolidation settings only (info)


def test_a_static_training_pool_is_warned_of_drift_only() -> None:
    from tests.core.analyses.lint.test_lint import SCENARIOS

    docs = [d for d in load_yaml_docs(SCENARIOS / "ours__training-by-dnd-pods.yaml") if isinstance(d, dict)]
    items: list[Obj] = []
    for d in docs:
        items.extend(d["items"] if d.get("kind") == "List" else [d])
    dynamic = _lint(items)
    static = _lint(_static(items))
    before = [f for f in dynamic.findings if f.code == "LINT_TRAINING_POOL_NO_BUDGET_WINDOW"]
    after = [f for f in static.findings if f.code == "LINT_TRAINING_POOL_NO_BUDGET_WINDOW"]
    if not before:
        pytest.skip("the scenario has no training pool finding")
    assert after, "drift still replaces a static pool's nodes (staticdrift.go)"
    for f in after:
        assert "consolidation" not in f.message and "Underutilized" not in (f.fix or "")
        assert "drift" in f.message


def test_manifest_yaml_round_trip_is_what_a_user_writes() -> None:
    # The derived manifest is valid YAML a user would apply (replicas at spec level, an integer).
    text = yaml.safe_dump(_static(_docs("eks-docs__automode-nodepool-gpu-g6e-g6.yaml")))
    assert "replicas: 2" in text


def test_the_pinned_code_is_emitted() -> None:
    docs = _static(_docs("data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml"))
    assert _codes(_lint(docs)) >= PINNED_HERE


# --------------------------------------------------------------------------- lifecycle and cost


def test_lifecycle_never_schedules_consolidation_on_a_static_pool() -> None:
    from tests.core.analyses.lifecycle.test_lifecycle import AUTO, AUTO_NOW, _find, node, run, t

    def static(items: list[Obj]) -> None:
        _find(items, "NodePool", "gpu-inference")["spec"]["replicas"] = 2

    dynamic = node(run(AUTO, AUTO_NOW), "i-0inf0001")
    assert any(d.by == "consolidation" for d in dynamic.disruptions)  # the scenario does consolidate it
    n = node(run(AUTO, AUTO_NOW, static), "i-0inf0001")
    assert not any(d.by == "consolidation" for d in n.disruptions)
    assert any("is static (replicas 2)" in note and "never consolidates" in note for note in n.notes)
    # Its consolidation settings are there and ignored: said in the JSON, and in -o wide.
    assert n.to_dict(t(AUTO_NOW))["consolidationPolicySource"] == "static-nodepool"
    from kubectl_gpu.render.lifecycle_view import _node_row

    cells = [c.text for c in _node_row(n, t(AUTO_NOW), True).cells]
    assert "never (static pool)" in cells


def test_cost_says_only_what_a_static_pool_keeps() -> None:
    from tests.core.analyses.cost.test_cost import _kept, _pool, items

    objs = items("idle-gpu-nodes.yaml")
    pool = _pool(objs, "gpu-inference")
    pool["spec"]["replicas"] = 1
    pool["spec"]["disruption"]["consolidationPolicy"] = "WhenEmpty"  # ignored on a static pool
    pool["spec"]["disruption"]["consolidateAfter"] = "Never"  # ignored too
    # Not "not-empty" (a WhenEmpty reason), not "consolidation-disabled", not do-not-disrupt: replicas only.
    assert _kept(objs, "i-0c05a000000000005") == ["static-nodepool"]
