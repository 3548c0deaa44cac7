"""Karpenter rules read in one place each (core/karpenter): do-not-disrupt on nodes and pods, zero budgets,
the consolidation defaults."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kubectl_gpu.core.k8s.models import Budget, NodePool, Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.karpenter.budgets import BudgetSpec
from kubectl_gpu.core.karpenter.do_not_disrupt import blocks_disruption, protection_of
from kubectl_gpu.core.karpenter.settings import (
    Setting,
    consolidate_after_of,
    consolidation_disabled,
    consolidation_policy_of,
)
from tests.helpers import pod

NOW = datetime(2026, 11, 28, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "blocks"), [("true", True), ("True", False), (" true", False), ("1h", False), (None, False)]
)
def test_node_and_nodeclaim_do_not_disrupt_is_exactly_true(value: str | None, blocks: bool) -> None:
    annotations = {} if value is None else {"karpenter.sh/do-not-disrupt": value}
    assert blocks_disruption(annotations) is blocks


@pytest.mark.parametrize(
    ("value", "kind", "active_now"),
    [
        ("true", "permanent", True),
        ("2h", "duration", True),
        ("30m", "duration", False),
        ("True", "invalid", False),
    ],
)
def test_pod_do_not_disrupt(value: str, kind: str, active_now: bool) -> None:
    obj = pod("p", annotations={"karpenter.sh/do-not-disrupt": value})
    obj["status"]["startTime"] = (NOW - timedelta(hours=1)).isoformat()
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    protection = protection_of(parsed)
    assert protection is not None and protection.kind == kind
    assert protection.active_at(NOW) is active_now


@pytest.mark.parametrize(
    ("nodes", "zero"), [("0", True), ("0%", True), ("00", True), ("1", False), ("10%", False), ("x", False)]
)
def test_zero_budget(nodes: str, zero: bool) -> None:
    assert BudgetSpec.of(Budget(nodes, None, None, ()), 0).zero is zero


def _pool(disruption: dict[str, Any]) -> NodePool:
    parsed = parse_object(
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": "gpu"},
            "spec": {"disruption": disruption},
        }
    )
    assert isinstance(parsed, NodePool)
    return parsed


def test_consolidation_settings_and_their_defaults() -> None:
    unset = _pool({})
    assert consolidation_policy_of(unset) == Setting("WhenEmptyOrUnderutilized", "karpenter-default")
    assert consolidate_after_of(unset) == Setting("0s", "karpenter-default")
    assert not consolidation_disabled(unset)
    pool = _pool({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "Never"})
    assert consolidation_policy_of(pool) == Setting("WhenEmpty", "nodepool")
    assert consolidate_after_of(pool) == Setting("Never", "nodepool")
    assert consolidation_disabled(pool)
    assert consolidation_policy_of(None) == consolidate_after_of(None) == Setting(None, "unknown")
