"""A node Karpenter is replacing carries its disruption taint `karpenter.sh/disrupted:NoSchedule`
(kubernetes-sigs/karpenter pkg/apis/v1/taints.go, DisruptedNoScheduleTaint). A pod it does not take is told to
wait for the replacement, never to tolerate the taint (issue 37, cause 3's rule for the cordon, applied to
Karpenter's own taint)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import orjson

from tests.conftest import Result
from tests.helpers import as_list, node, pod

Cli = Callable[..., Result]
GPU = {"nvidia.com/gpu": "1"}


def _snapshot(tmp_path: Path) -> str:
    replaced = node(
        "i-0replaced", capacity=GPU, allocatable=GPU,
        taints=[{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}],
    )  # fmt: skip
    waiting = pod("train", "ml", phase="Pending", requests=GPU)
    path = tmp_path / "cluster.json"
    path.write_bytes(orjson.dumps(as_list(replaced, waiting)))
    return str(path)


def test_a_node_being_replaced_is_waited_for_never_tolerated(cli: Cli, tmp_path: Path) -> None:
    result = cli("pending", "--snapshot", _snapshot(tmp_path), "-o", "json")
    assert result.code == 1, result.err
    text = json.dumps(json.loads(result.out))
    assert "being replaced by Karpenter" in text
    assert "MISSING_TOLERATION" not in text
    table = cli("explain", "ml/train", "--snapshot", _snapshot(tmp_path)).out
    assert "wait for the pod to be placed on its replacement" in table
    assert "tolerations:" not in table
