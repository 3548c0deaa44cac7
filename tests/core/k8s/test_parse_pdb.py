"""The PodDisruptionBudget parser (policy/v1). The object is hand-made in the shape `kubectl get pdb -o json`
prints (an API server's fields: uid, generation, resourceVersion, status.conditions)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import PodDisruptionBudget
from kubectl_gpu.core.k8s.parse import ModelError, parse_object

PDB: dict[str, Any] = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {
        "creationTimestamp": "2026-11-20T08:14:03Z",
        "generation": 1,
        "name": "vllm-l40s",
        "namespace": "serving",
        "resourceVersion": "48213",
        "uid": "2f1c6a0e-7d1b-4c9e-9a51-0c4f3f8e6b12",
    },
    "spec": {
        "minAvailable": "50%",
        "selector": {
            "matchLabels": {"app.kubernetes.io/name": "vllm-l40s"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["canary"]}],
        },
    },
    "status": {
        "conditions": [
            {
                "lastTransitionTime": "2026-11-20T08:14:05Z",
                "message": "",
                "observedGeneration": 1,
                "reason": "InsufficientPods",
                "status": "False",
                "type": "DisruptionAllowed",
            }
        ],
        "currentHealthy": 1,
        "desiredHealthy": 1,
        "disruptionsAllowed": 0,
        "expectedPods": 1,
        "observedGeneration": 1,
    },
}


def test_a_pdb_as_kubectl_prints_it() -> None:
    pdb = parse_object(PDB)
    assert isinstance(pdb, PodDisruptionBudget)
    assert (pdb.namespace, pdb.name) == ("serving", "vllm-l40s")
    assert (pdb.min_available, pdb.max_unavailable) == ("50%", None)
    assert (pdb.disruptions_allowed, pdb.current_healthy, pdb.expected_pods) == (0, 1, 1)
    assert pdb.selects("serving", {"app.kubernetes.io/name": "vllm-l40s"})
    assert not pdb.selects("serving", {"app.kubernetes.io/name": "vllm-l40s", "tier": "canary"})
    assert not pdb.selects("default", {"app.kubernetes.io/name": "vllm-l40s"})  # its own namespace only


def test_a_nil_selector_selects_no_pod_and_an_empty_one_every_pod() -> None:
    nil = copy.deepcopy(PDB)
    del nil["spec"]["selector"]
    empty = copy.deepcopy(PDB)
    empty["spec"]["selector"] = {}
    nil_pdb, empty_pdb = parse_object(nil), parse_object(empty)
    assert isinstance(nil_pdb, PodDisruptionBudget) and isinstance(empty_pdb, PodDisruptionBudget)
    assert not nil_pdb.selects("serving", {})
    assert empty_pdb.selects("serving", {"any": "pod"})


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("spec", "maxUnavailable"), "half", "spec.maxUnavailable"),
        (("spec", "minAvailable"), 1.5, "spec.minAvailable"),
        (("status", "disruptionsAllowed"), "0", "status.disruptionsAllowed"),
        (("spec", "selector"), {"matchExpressions": [{"key": "a", "operator": "Near"}]}, "spec.selector"),
        (("spec",), [], "spec"),
    ],
)
def test_a_broken_field_is_named(path: tuple[str, ...], value: Any, field: str) -> None:
    bad = copy.deepcopy(PDB)
    target = bad
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ModelError, match=f"PodDisruptionBudget serving/vllm-l40s {field}"):
        parse_object(bad)
